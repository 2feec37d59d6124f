"""`--offline` never reaches the network (a real index on 127.0.0.1 counts the requests) and says what is
missing; what is cached or bundled still answers. `--quiet` leaves stderr to errors."""

from __future__ import annotations

import json
from pathlib import Path

from support.cli import run_cli
from support.httpindex import IndexServer
from support.releases import sdist


def test_offline_a_tree_not_cached_is_named_as_missing_and_no_request_leaves(tmp_path: Path) -> None:
    with IndexServer([sdist("0.14.0")]) as index:
        done = run_cli(
            "symbol",
            "CacheDType",
            "--tag",
            "v0.14.0",
            "--offline",
            cache=tmp_path,
            VLLM_QUANT_MCP_INDEX_URL=index.index_url,
        )
        assert index.requests == []
    assert done.returncode == 3
    assert "not cached here: the source tree of v0.14.0" in done.stderr and "without --offline" in done.stderr
    assert not (tmp_path / "trees").exists() or not any((tmp_path / "trees").iterdir())


def test_offline_the_bundled_registries_and_the_knowledge_base_still_answer(tmp_path: Path) -> None:
    done = run_cli("registry", "--tag", "v0.32.0", "--kind", "kv_cache_dtypes", "--json", "--offline", cache=tmp_path)
    assert done.returncode == 0, done.stderr
    assert {"fp8", "auto"} <= {e["name"] for e in json.loads(done.stdout)["entries"]}
    issue = run_cli("issue", "38652", "--tag", "v0.18.0", "--offline", cache=tmp_path)
    assert issue.returncode == 0 and "offline" in issue.stdout and "knowledge base" in issue.stdout


def test_quiet_keeps_the_page_note_off_stderr_and_errors_on_it(tmp_path: Path) -> None:
    args = ("registry", "--tag", "v0.32.0", "--kind", "cli_flags", "--json", "--limit", "5")
    assert "one page" in run_cli(*args, cache=tmp_path).stderr
    assert run_cli(*args, "--quiet", cache=tmp_path).stderr == ""
    failed = run_cli("registry", "--tag", "v0.99.0", "--quiet", cache=tmp_path)
    assert failed.returncode == 2 and "v0.99.0" in failed.stderr
