"""The store: bundled plus cached registries, trees renamed into place, per-tag locks, corrupt files rebuilt."""

from __future__ import annotations

import json
from collections.abc import Callable
from importlib import resources
from pathlib import Path

import filelock
import pytest
from support.opened import recording
from support.releases import release_tree

from vllm_quant_mcp.knowledge.errors import LockTimeoutError, RegistryUnavailableError
from vllm_quant_mcp.knowledge.extract.version import extractor_version
from vllm_quant_mcp.knowledge.registry.derive import derive_registry
from vllm_quant_mcp.knowledge.registry.model import Registry, SourceInfo
from vllm_quant_mcp.knowledge.registry.store import SOURCE_RECORD, Store
from vllm_quant_mcp.knowledge.sources.directory import DirectorySource
from vllm_quant_mcp.knowledge.sources.git import GitSource
from vllm_quant_mcp.knowledge.tags import InvalidTagError, UnknownTagError, tag_key

SOURCE = SourceInfo(kind="dir", origin="/nowhere")


def bundled_tags() -> list[str]:
    folder = resources.files("vllm_quant_mcp.knowledge.registry.bundled")
    return [p.name.removesuffix(".json") for p in folder.iterdir() if p.name.endswith(".json")]


def registry(tag: str) -> Registry:
    return Registry(extractor_version=extractor_version(), tag=tag, source=SOURCE)


def store_with_tree(root: Path, version: str = "0.6.3") -> Store:
    store = Store(root)
    store.install_tree(f"v{version}", DirectorySource(release_tree(version).root))
    return store


def test_known_tags_are_the_bundled_and_cached_tags_in_release_order(tmp_path: Path) -> None:
    store = Store(tmp_path)
    store.save_registry(registry("v0.10.0"))
    store.save_registry(registry("v0.9.0.1"))
    assert store.known_tags() == sorted({*bundled_tags(), "v0.10.0", "v0.9.0.1"}, key=tag_key)


def test_a_saved_registry_loads_back_equal_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    store = Store(tmp_path)
    path = store.save_registry(registry("v0.6.3"))
    assert store.load_registry("0.6.3") == registry("v0.6.3")
    assert json.loads(path.read_text(encoding="utf-8"))["tag"] == "v0.6.3"
    assert [p.name for p in path.parent.iterdir()] == ["v0.6.3.json"]


def test_an_unknown_tag_lists_the_nearest_known_tags(tmp_path: Path) -> None:
    store = Store(tmp_path)
    for tag in ("v0.6.3", "v0.6.2", "v0.11.0"):
        store.save_registry(registry(tag))
    with pytest.raises(UnknownTagError) as caught:
        store.load_registry("v0.6.4")
    assert caught.value.suggestions[:2] == ["v0.6.3", "v0.6.2"]


def test_a_malformed_tag_is_refused_before_any_file_is_touched(tmp_path: Path) -> None:
    with pytest.raises(InvalidTagError, match="not a vLLM release tag"):
        Store(tmp_path).load_registry("../../etc/passwd")
    assert not tmp_path.joinpath("registries").exists()


@pytest.mark.parametrize(
    "damage",
    [
        lambda text: text[: len(text) // 2],
        lambda text: text.replace('"schema_version": 1', '"schema_version": 0'),
        lambda text: text.replace(extractor_version(), "an-older-one"),
    ],
    ids=["truncated", "other-schema", "other-extractor"],
)
def test_a_damaged_or_stale_cached_registry_is_rebuilt_from_the_cached_tree(
    tmp_path: Path, damage: Callable[[str], str]
) -> None:
    store = store_with_tree(tmp_path)
    info = store.tree_source("v0.6.3")
    assert info is not None
    expected = derive_registry(store.source_tree("v0.6.3"), info)
    path = store.save_registry(expected)
    path.write_text(damage(path.read_text(encoding="utf-8")), encoding="utf-8")
    assert store.load_registry("v0.6.3") == expected
    assert Registry.model_validate_json(path.read_text(encoding="utf-8")) == expected


def test_a_corrupt_registry_without_tree_or_bundled_copy_says_to_refresh(tmp_path: Path) -> None:
    store = Store(tmp_path)
    store.registries_dir.mkdir()
    (store.registries_dir / "v0.6.3.json").write_text("{", encoding="utf-8")
    with pytest.raises(RegistryUnavailableError, match=r"refresh --tag v0\.6\.3"):
        store.load_registry("v0.6.3")


def test_install_tree_renames_a_complete_tree_into_place_with_its_source(tmp_path: Path) -> None:
    store = store_with_tree(tmp_path)
    root = release_tree("0.6.3").root
    assert store.tree_source("v0.6.3") == SourceInfo(kind="dir", origin=str(root))
    assert (store.tree_path("v0.6.3") / SOURCE_RECORD).is_file()
    assert [p.name for p in store.trees_dir.iterdir()] == ["v0.6.3"]


def test_ensure_tree_returns_the_cached_tree_without_fetching_again(tmp_path: Path) -> None:
    store = store_with_tree(tmp_path)
    unreachable = GitSource("http://127.0.0.1:9/vllm.git", tmp_path / "git" / "vllm.git")
    tree = store.ensure_tree("v0.6.3", unreachable)
    assert tree.root == store.tree_path("v0.6.3").resolve()
    assert tree.exists("vllm/config.py")


def test_a_refresh_lock_held_elsewhere_times_out_with_a_clear_error(tmp_path: Path) -> None:
    store = Store(tmp_path, lock_timeout=0)
    store.locks_dir.mkdir(parents=True)
    with (
        filelock.FileLock(store.locks_dir / "v0.6.3.lock"),
        pytest.raises(LockTimeoutError, match=r"Another refresh of v0\.6\.3"),
        store.lock("v0.6.3"),
    ):
        pass


def test_a_registry_is_parsed_once_while_its_file_is_unchanged(tmp_path: Path) -> None:
    store = Store(tmp_path)
    store.save_registry(registry("v0.6.3"))
    with recording() as opened:
        first, second = store.load_registry("v0.6.3"), store.load_registry("v0.6.3")
    assert first is second and [Path(p).name for p in opened] == ["v0.6.3.json"]


def test_a_registry_file_replaced_on_disk_is_read_again(tmp_path: Path) -> None:
    """A refresh in another process replaces the file: the copy parsed before must not be served."""
    store, other = Store(tmp_path), Store(tmp_path)
    store.save_registry(registry("v0.6.3"))
    assert store.load_registry("v0.6.3").notes == {}
    other.save_registry(registry("v0.6.3").model_copy(update={"notes": {"cli_flags": "refreshed"}}))
    assert store.load_registry("v0.6.3").notes == {"cli_flags": "refreshed"}
