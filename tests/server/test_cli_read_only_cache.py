"""Threat: a shared cache mounted read-only, where `cache` and `refresh` used to report bytes freed that were not
freed, or end in a traceback. Each command either does what it says or says why not, naming the setting."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.cli import call_cli
from support.read_only import read_only


@pytest.fixture()
def prepared(tmp_path: Path) -> Path:
    """A cache with a refreshed registry, a tree and what a killed fetch of another tag left."""
    cache = tmp_path / "cache"
    (cache / "registries").mkdir(parents=True)
    (cache / "registries" / "v0.30.0.json").write_text("{}", encoding="utf-8")
    (cache / "trees" / "v0.30.0").mkdir(parents=True)
    (cache / "trees" / "v0.30.0" / "files.pack").write_bytes(b"x" * 200_000)
    (cache / "trees" / ".tmp-v0.31.0-k2j4x_9a" / "tree").mkdir(parents=True)
    (cache / "trees" / ".tmp-v0.31.0-k2j4x_9a" / "tree" / "files.pack").write_bytes(b"y" * 100_000)
    return cache


def files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


def test_cache_clear_on_a_read_only_cache_frees_nothing_and_says_so(prepared: Path) -> None:
    before = files(prepared)
    with read_only(prepared) as cache:
        done = call_cli("cache", "clear", cache=cache)
    assert done.returncode != 0
    assert "cannot be written" in done.stderr and "VLLM_QUANT_MCP_CACHE_DIR" in done.stderr
    assert "freed" not in done.stdout + done.stderr and "Traceback" not in done.stderr
    assert files(prepared) == before


@pytest.mark.parametrize("command", [("cache", "prune", "--tag", "v0.30.0"), ("refresh", "--tag", "v0.30.0")])
def test_prune_and_refresh_on_a_read_only_cache_are_an_error_naming_the_setting(
    prepared: Path, command: tuple[str, ...]
) -> None:
    before = files(prepared)
    with read_only(prepared) as cache:
        done = call_cli(*command, cache=cache)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert "cannot be written (Read-only file system" in done.stderr or "Permission denied" in done.stderr
    assert files(prepared) == before


def test_a_read_only_cache_still_lists_what_it_holds(prepared: Path) -> None:
    with read_only(prepared) as cache:
        listed = json.loads(call_cli("cache", "list", "--json", cache=cache).stdout)
    by_tag = {t["tag"]: t for t in listed["tags"]}
    assert by_tag["v0.30.0"]["parts"]["tree"] == 200_000


def test_what_a_killed_fetch_left_is_its_tags_and_prune_removes_it(prepared: Path) -> None:
    """It used to show as a shared tree that no prune removed."""
    listed = json.loads(call_cli("cache", "list", "--json", cache=prepared).stdout)
    (v031,) = [t for t in listed["tags"] if t["tag"] == "v0.31.0"]
    assert v031["parts"] == {"interrupted": 100_000} and "trees" not in listed["shared"]
    text = call_cli("cache", "list", cache=prepared).stdout
    assert "v0.31.0: a fetch was interrupted; `vllm-quant-mcp cache prune --tag v0.31.0` removes" in text
    pruned = call_cli("cache", "prune", "--tag", "v0.31.0", cache=prepared)
    assert pruned.returncode == 0 and "removed v0.31.0" in pruned.stdout
    assert files(prepared / "trees") == ["v0.30.0", "v0.30.0/files.pack"]
