"""Caches that heal: a damaged cache is moved aside as `<name>.corrupt-<time>`, said once, and the answer still comes.

Each test damages one cache the way a full disk or a crash leaves it (garbage, or a sqlite
file cut short) and asks through the real client or store, against the real local servers.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

import pytest
from support.clock import Clock
from support.githubapi import GitHubApi, issue_json
from support.hubserver import HubServer
from support.releases import release_tree

from vllm_quant_mcp.knowledge.github.client import GitHubClient
from vllm_quant_mcp.knowledge.github.settings import GitHubSettings
from vllm_quant_mcp.knowledge.hub.client import HubClient
from vllm_quant_mcp.knowledge.registry.store import Store
from vllm_quant_mcp.knowledge.search.grep import search
from vllm_quant_mcp.knowledge.search.loading import index_for
from vllm_quant_mcp.knowledge.sources.directory import DirectorySource
from vllm_quant_mcp.knowledge.sources.pack import INDEX_NAME, PACK_NAME

ISSUE = "/repos/vllm-project/vllm/issues/7"


def garbage(path: Path) -> None:
    path.write_bytes(b"\x00not a database\xff" * 64)


def truncated(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 3])


DAMAGES = [pytest.param(garbage, id="garbage"), pytest.param(truncated, id="truncated")]


def moved_aside(folder: Path, name: str) -> list[Path]:
    return sorted(folder.glob(f"{name}.corrupt-*"))


def healing_warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "vllm_quant_mcp.healing"]


@pytest.mark.parametrize("damage", DAMAGES)
def test_a_damaged_github_response_cache_is_moved_aside_and_the_lookup_still_answers(
    tmp_path: Path, damage: Callable[[Path], None], caplog: pytest.LogCaptureFixture
) -> None:
    with GitHubApi() as api:
        api.issues[7] = issue_json("vllm-project/vllm", 7)
        config = GitHubSettings.from_env({"VLLM_QUANT_MCP_GITHUB_API": api.base_url}, tmp_path)
        first = GitHubClient(config, clock=Clock())
        first.get(ISSUE)
        first.close()
        damage(config.cache_dir / "cache.db")
        with caplog.at_level(logging.WARNING):
            client = GitHubClient(config, clock=Clock())
            fetched = client.get(ISSUE)
            again = client.get(ISSUE)
        client.close()
    assert fetched.data["number"] == 7
    assert len(moved_aside(config.cache_dir.parent, "github")) == 1
    assert [n for n in fetched.notes if "moved it aside" in n] and not again.notes
    assert len(healing_warnings(caplog)) == 1


@pytest.mark.parametrize("damage", DAMAGES)
def test_a_damaged_hugging_face_api_cache_is_moved_aside_and_the_model_is_still_read(
    tmp_path: Path, damage: Callable[[Path], None], caplog: pytest.LogCaptureFixture
) -> None:
    with HubServer() as hub:
        client = HubClient(endpoint=hub.endpoint, cache_dir=tmp_path / "hub", hf_cache=tmp_path / "hf")
        client.model_files("Qwen/Qwen3-30B-A3B")
        damage(tmp_path / "hub" / "cache.db")
        with caplog.at_level(logging.WARNING):
            files = client.model_files("Qwen/Qwen3-30B-A3B")
    assert files.origin == "hub"
    assert len(moved_aside(tmp_path, "hub")) == 1
    assert [n for n in files.notes if "moved it aside" in n]
    assert len(healing_warnings(caplog)) == 1


def test_a_cache_folder_that_cannot_be_written_is_bypassed_not_moved_aside(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A shared cache mounted read-only is not damage: the model is read live, nothing is moved, one note says how
    to keep answers (here the folder cannot be created: a file stands in its place, which root cannot write either)."""
    (tmp_path / "hub").write_text("a file, not a folder", encoding="utf-8")
    with HubServer() as hub, caplog.at_level(logging.WARNING):
        client = HubClient(endpoint=hub.endpoint, cache_dir=tmp_path / "hub", hf_cache=tmp_path / "hf")
        files = client.model_files("Qwen/Qwen3-30B-A3B")
    assert files.origin == "hub"
    assert (tmp_path / "hub").read_text(encoding="utf-8") == "a file, not a folder"
    assert moved_aside(tmp_path, "hub") == []
    (note,) = [n for n in files.notes if "cannot be written" in n]
    assert "VLLM_QUANT_MCP_STATE_DIR" in note and len(healing_warnings(caplog)) == 1


def test_a_github_lookup_on_a_cache_it_cannot_write_answers_live(tmp_path: Path) -> None:
    (tmp_path / "github").write_text("a file, not a folder", encoding="utf-8")
    with GitHubApi() as api:
        api.issues[7] = issue_json("vllm-project/vllm", 7)
        config = GitHubSettings.from_env({"VLLM_QUANT_MCP_GITHUB_API": api.base_url}, tmp_path)
        client = GitHubClient(config, clock=Clock())
        first, second = client.get(ISSUE), client.get(ISSUE)
        client.close()
    assert first.data["number"] == 7 and second.data["number"] == 7
    assert [n for n in first.notes if "cannot be written" in n] and not second.notes
    assert api.paths().count(ISSUE) == 2  # nothing kept: the second lookup asks again


def test_a_damaged_cached_registry_is_moved_aside_once_and_the_bundled_one_answers(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store = Store(tmp_path)
    path = store.registry_path("v0.32.0")
    path.parent.mkdir(parents=True)
    path.write_bytes(b'{"schema_version": 1, "tag": "v0.32')
    with caplog.at_level(logging.WARNING):
        first = store.load_registry("v0.32.0")
        second = store.load_registry("v0.32.0")
    assert first == second and first.tag == "v0.32.0"
    assert not path.exists() and len(moved_aside(path.parent, path.name)) == 1
    assert len(healing_warnings(caplog)) == 1


@pytest.mark.parametrize("part", [PACK_NAME, INDEX_NAME])
def test_a_damaged_cached_tree_or_its_search_index_is_moved_aside_and_fetched_again(
    tmp_path: Path, part: str, caplog: pytest.LogCaptureFixture
) -> None:
    source = DirectorySource(release_tree("0.6.3").root)
    store = Store(tmp_path)
    with store.lock("v0.6.3"):
        store.install_tree("v0.6.3", source)
    truncated(store.tree_path("v0.6.3") / part)
    with caplog.at_level(logging.WARNING):
        tree = store.ensure_tree("v0.6.3", source)
    index = index_for(tree)
    found = search(index, "class Fp8Config")
    assert [index.paths[h.file_id] for h in found.hits] == ["vllm/model_executor/layers/quantization/fp8.py"]
    assert len(moved_aside(store.trees_dir, "v0.6.3")) == 1
    assert len(healing_warnings(caplog)) == 1
