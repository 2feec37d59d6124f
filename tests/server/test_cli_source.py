"""The CLI on a cached release tree: its notes and errors name the flags typed here; stdout holds the results."""

from __future__ import annotations

import json
from pathlib import Path

from support.cli import call_cli


def test_an_invalid_regex_says_to_pass_the_fixed_string_flag(cache_with_tree: Path) -> None:
    done = call_cli("grep", "(", "--tag", "v0.32.0", cache=cache_with_tree)
    assert done.returncode == 2 and done.stdout == ""
    assert "--fixed-string" in done.stderr and "fixed_string" not in done.stderr


def test_a_broad_grep_points_to_the_path_glob_and_max_results_flags(cache_with_tree: Path) -> None:
    done = call_cli("grep", "import", "--tag", "v0.32.0", "--max-results", "3", cache=cache_with_tree)
    assert done.returncode == 0, done.stderr
    assert "--path-glob" in done.stdout and "--max-results" in done.stdout
    assert "path_glob" not in done.stdout and "max_results" not in done.stdout


def test_a_grep_of_a_refreshed_tag_writes_results_to_stdout_and_nothing_to_stderr(cache_with_tree: Path) -> None:
    done = call_cli("grep", "def get_min_capability", "--tag", "v0.32.0", "-F", "--json", cache=cache_with_tree)
    assert done.returncode == 0 and done.stderr == ""
    assert json.loads(done.stdout)["schema_version"] >= 1
