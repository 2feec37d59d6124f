"""The CLI as scripts use it: `--json` is the whole result unless a page is asked for, and a cut says so;
every option says what it does; a bare command is help; `cache dir` and `cache list` say what is on disk."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from support.cli import run_cli

from vllm_quant_mcp.server.cli.main import build_parser


def test_registry_json_of_one_kind_holds_every_entry_and_no_cursor(tmp_path: Path) -> None:
    done = run_cli("registry", "--tag", "v0.32.0", "--kind", "cli_flags", "--json", cache=tmp_path)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert len(result["entries"]) == result["total"] > 300 and result["next"] is None
    assert done.stderr == ""


def test_a_page_asked_for_with_limit_says_on_stderr_that_it_is_one_page_and_how_to_go_on(tmp_path: Path) -> None:
    done = run_cli("registry", "--tag", "v0.32.0", "--kind", "cli_flags", "--json", "--limit", "500", cache=tmp_path)
    page = json.loads(done.stdout)
    assert page["next"] and len(page["entries"]) < page["total"]
    assert f"one page of {page['total']}" in done.stderr and f"--cursor {page['next']}" in done.stderr


def test_diff_and_gates_json_are_whole_however_long(tmp_path: Path) -> None:
    diff = json.loads(run_cli("diff", "v0.27.1", "v0.32.0", "--json", cache=tmp_path).stdout)
    changes = sum(len(k["added"]) + len(k["removed"]) + len(k["changed"]) for k in diff["kinds"])
    assert diff["kernel_picks"] and changes + len(diff["kernel_picks"]) == diff["total"] > 100
    assert diff["next"] is None
    gates = json.loads(run_cli("gates", "v0.27.1", "v0.32.0", "--changes", "all", "--json", cache=tmp_path).stdout)
    items = len(gates["findings"]) + sum(len(h["gates"]) + len(h["changes"]) for h in gates["hops"])
    assert items == gates["total"] and gates["next"] is None


def test_every_option_and_argument_of_every_command_has_help_text() -> None:
    missing = []

    def walk(parser: argparse.ArgumentParser, name: str) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for child, sub in action.choices.items():
                    walk(sub, f"{name} {child}")
            elif not action.help:
                missing.append(f"{name} {'/'.join(action.option_strings) or action.dest}")

    walk(build_parser(), "vllm-quant-mcp")
    assert missing == []


def test_the_bare_command_prints_the_help_and_succeeds(tmp_path: Path) -> None:
    done = run_cli(cache=tmp_path)
    assert done.returncode == 0 and done.stdout.startswith("usage: vllm-quant-mcp")
    assert "examples:" in done.stdout and done.stderr == ""


def test_cache_dir_prints_the_cache_and_cache_list_shows_only_tags_with_files_there(tmp_path: Path) -> None:
    assert run_cli("cache", "dir", cache=tmp_path).stdout.strip() == str(tmp_path)
    listing = run_cli("cache", "list", cache=tmp_path).stdout
    assert "v0.32.0" not in listing and "no tag has files here yet" in listing
    assert "bundled tags answer with no files here" in listing
