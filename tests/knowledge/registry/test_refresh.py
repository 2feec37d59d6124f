"""refresh end to end: sources chosen and reported, the cache untouched by failures, kills and races."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from support.cli import EXE, cli_env
from support.httpindex import IndexServer
from support.loopback import closed_port
from support.releases import release_tree, sdist

from vllm_quant_mcp.knowledge.errors import NetworkError, UnsafeInputError
from vllm_quant_mcp.knowledge.registry.inventory import inventory
from vllm_quant_mcp.knowledge.registry.refresh import refresh
from vllm_quant_mcp.knowledge.registry.store import Store


@pytest.fixture()
def index() -> Iterator[IndexServer]:
    with IndexServer([sdist("0.6.3")]) as server:
        yield server


def cache_files(root: Path) -> dict[str, bytes]:
    """Every file of the cache except lock files, which exist to be created."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.parent.name != "locks" and p.suffix != ".lock"
    }


def test_refresh_from_pypi_saves_the_registry_and_reports_what_it_fetched(index: IndexServer, tmp_path: Path) -> None:
    store = Store(tmp_path)
    result = refresh("0.6.3", source="pypi", index_url=index.index_url, store=store)
    assert result.tag == "v0.6.3"
    assert result.tree == "fetched"
    assert result.source.kind == "pypi"
    assert result.registry_path == str(tmp_path / "registries" / "v0.6.3.json")
    assert store.load_registry("v0.6.3").source == result.source
    again = refresh("v0.6.3", source="pypi", index_url="http://127.0.0.1:9/simple", store=store)
    assert again.tree == "reused"
    assert again.source == result.source


def test_refresh_auto_falls_back_to_pypi_when_git_is_unreachable_and_says_so(
    index: IndexServer, tmp_path: Path
) -> None:
    result = refresh(
        "v0.6.3", remote=f"http://127.0.0.1:{closed_port()}/vllm.git", index_url=index.index_url, store=Store(tmp_path)
    )
    assert result.source.kind == "pypi"
    assert result.notes[0].startswith("git source failed (Git remote http://127.0.0.1:")
    assert (
        result.notes[-1] == f"Tree of v0.6.3 obtained from the pypi source ({index.base_url}/files/vllm-0.6.3.tar.gz)."
    )


def test_refresh_with_the_network_down_says_so_and_leaves_the_cache_as_it_was(
    index: IndexServer, tmp_path: Path
) -> None:
    store = Store(tmp_path)
    refresh("v0.6.3", source="pypi", index_url=index.index_url, store=store)
    before = cache_files(tmp_path)
    down = f"http://127.0.0.1:{closed_port()}"
    with pytest.raises(NetworkError, match="unreachable") as caught:
        refresh("v0.11.0", remote=f"{down}/vllm.git", index_url=f"{down}/simple", store=store)
    assert "cache was left as it was" in str(caught.value)
    assert cache_files(tmp_path) == before


def test_refresh_rejects_an_option_shaped_remote_before_touching_the_cache(tmp_path: Path) -> None:
    with pytest.raises(UnsafeInputError, match="git option"):
        refresh("v0.6.3", source="git", remote="--upload-pack=touch /tmp/pwned", store=Store(tmp_path))
    assert list(tmp_path.iterdir()) == []


def _appears(found: Callable[[], bool], within: float) -> bool:
    """Whether `found()` holds before `within` seconds pass: a condition awaited, not a duration assumed."""
    deadline = time.monotonic() + within
    pause = threading.Event()
    while not found():
        if time.monotonic() > deadline:
            return False
        pause.wait(0.02)
    return True


def test_a_refresh_killed_mid_download_leaves_no_registry_or_tree_and_a_rerun_succeeds(
    index: IndexServer, tmp_path: Path
) -> None:
    index.stall_after = 1 << 20
    env = {**os.environ, "VLLM_QUANT_MCP_CACHE_DIR": str(tmp_path), "VLLM_QUANT_MCP_INDEX_URL": index.index_url}
    code = "from vllm_quant_mcp.knowledge.registry.refresh import refresh; refresh('v0.6.3', source='pypi')"
    child = subprocess.Popen([sys.executable, "-c", code], env=env, stderr=subprocess.DEVNULL)
    try:
        assert index.stalled.wait(timeout=60), "the child never started downloading"
        # The stalled bytes are on their way: the child writes them to its .part file as it reads them.
        part = ".download-vllm-0.6.3.tar.gz-*/vllm-0.6.3.tar.gz.part"
        assert _appears(lambda: any((tmp_path / "sdists").glob(part)), within=60), "no partial download on disk"
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    assert not (tmp_path / "registries").exists()
    assert not (tmp_path / "trees" / "v0.6.3").exists()
    assert not (tmp_path / "sdists" / "vllm-0.6.3.tar.gz").exists()
    # A kill runs no `finally`: what the fetch was writing is the tag's (listed, pruned), not a shared tree,
    # and the next process that looks removes it, the dead fetch holding no lock.
    (left,) = [t for t in inventory(Store(tmp_path)).tags if t.tag == "v0.6.3"]
    assert "interrupted" in left.parts and not inventory(Store(tmp_path)).shared.get("trees")
    assert Store(tmp_path).sweep_interrupted() == []
    assert [p for p in (tmp_path / "trees").iterdir()] + list((tmp_path / "sdists").glob(".download-*")) == []

    index.stall_after = None
    index.release.set()
    result = refresh("v0.6.3", source="pypi", index_url=index.index_url, store=Store(tmp_path))
    assert result.tree == "fetched"
    assert sorted(p.name for p in (tmp_path / "trees").iterdir()) == ["v0.6.3"]
    assert list((tmp_path / "sdists").iterdir()) == []  # the partial download is gone, and the sdist is not kept


def test_ctrl_c_during_a_fetch_leaves_nothing_and_the_cli_says_so_only_after_checking(
    index: IndexServer, tmp_path: Path
) -> None:
    index.stall_after = 1 << 20
    child = subprocess.Popen(
        [EXE, "refresh", "--tag", "v0.6.3", "--source", "pypi", "--quiet"],
        env=cli_env(tmp_path, VLLM_QUANT_MCP_INDEX_URL=index.index_url),
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert index.stalled.wait(timeout=60), "the child never started downloading"
        assert _appears(lambda: any((tmp_path / "trees").glob(".tmp-v0.6.3-*")), within=60)
        child.send_signal(signal.SIGINT)
        index.release.set()
        _, err = child.communicate(timeout=60)
    finally:
        child.kill()
    assert child.returncode == 130 and "interrupted; nothing half-written was kept" in err
    assert list((tmp_path / "trees").iterdir()) == [] and not list((tmp_path / "sdists").glob(".download-*"))


def test_concurrent_refreshes_of_one_tag_take_turns_and_fetch_the_tree_once(tmp_path: Path) -> None:
    checkout = str(release_tree("0.6.3").root)
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda _: refresh("v0.6.3", source=checkout, store=Store(tmp_path)), range(2)))
    assert sorted(r.tree for r in results) == ["fetched", "reused"]
    assert results[0].registry_path == results[1].registry_path
    assert sorted(p.name for p in (tmp_path / "trees").iterdir()) == ["v0.6.3"]


def test_refresh_auto_falls_back_to_pypi_when_the_cached_git_repository_is_damaged(
    index: IndexServer, tmp_path: Path
) -> None:
    damaged = tmp_path / "git" / "vllm.git"
    damaged.mkdir(parents=True)
    (damaged / "HEAD").write_text("garbage\n", encoding="utf-8")
    result = refresh(
        "v0.6.3", remote=f"http://127.0.0.1:{closed_port()}/vllm.git", index_url=index.index_url, store=Store(tmp_path)
    )
    assert result.source.kind == "pypi"
    assert f"{damaged} is damaged" in result.notes[0] and "delete it and refresh again" in result.notes[0]
