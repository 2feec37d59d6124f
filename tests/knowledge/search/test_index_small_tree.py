"""Search on small trees written here: regex-only syntax, the store's own files, a tree replaced by refresh."""

from __future__ import annotations

from pathlib import Path

from vllm_quant_mcp.knowledge.registry.model import SourceInfo
from vllm_quant_mcp.knowledge.registry.refresh import refresh
from vllm_quant_mcp.knowledge.registry.store import SOURCE_RECORD, Store
from vllm_quant_mcp.knowledge.search.grep import search
from vllm_quant_mcp.knowledge.search.index import SearchIndex
from vllm_quant_mcp.knowledge.search.loading import index_for
from vllm_quant_mcp.knowledge.sources.directory import DirectorySource
from vllm_quant_mcp.knowledge.sources.packed import PackedTree
from vllm_quant_mcp.knowledge.sources.tree import SourceTree


def write_tree(root: Path, files: dict[str, str]) -> Path:
    for relpath, text in files.items():
        (root / relpath).parent.mkdir(parents=True, exist_ok=True)
        (root / relpath).write_text(text, encoding="utf-8")
    return root


def loose(root: Path, files: dict[str, str]) -> SourceTree:
    return SourceTree(write_tree(root, files), "v0.1.0")


def matching_lines(index: SearchIndex, pattern: str) -> list[tuple[str, int]]:
    return [(index.paths[h.file_id], h.line) for h in search(index, pattern).hits]


def test_a_fuzzy_pattern_finds_the_near_miss_the_regex_module_matches(tmp_path: Path) -> None:
    index = index_for(loose(tmp_path, {"a.py": "x = 1\nname = 'abd'\n", "b.py": "nothing\n"}))
    assert matching_lines(index, "(?:abc){e<=1}") == [("a.py", 2)]


def test_a_posix_class_is_read_as_the_regex_module_reads_it(tmp_path: Path) -> None:
    index = index_for(loose(tmp_path, {"a.py": "first\nxabc\n", "b.py": "]abc\n"}))
    assert matching_lines(index, "[[:alpha:]]abc") == [("a.py", 2)]


def test_the_stores_source_record_is_not_searched_as_vllm_source(tmp_path: Path) -> None:
    store = Store(tmp_path / "store")
    checkout = write_tree(tmp_path / "checkout", {"vllm/__init__.py": "origin = 1\n"})
    store.install_tree("v0.1.0", DirectorySource(checkout))
    index = index_for(store.source_tree("v0.1.0"))
    assert (store.tree_path("v0.1.0") / SOURCE_RECORD).is_file()
    assert index.paths == ["vllm/__init__.py"]
    assert matching_lines(index, "origin") == [("vllm/__init__.py", 1)]


def test_a_tree_replaced_by_a_refresh_is_searched_as_it_now_is(tmp_path: Path) -> None:
    store = Store(tmp_path / "store")
    before = write_tree(tmp_path / "before", {"vllm/__init__.py": "OLD_NAME = 1\n"})
    after = write_tree(tmp_path / "after-the-fix", {"vllm/__init__.py": "NEW_NAME = 1\n"})
    store.install_tree("v0.1.0", DirectorySource(before))
    assert matching_lines(index_for(store.source_tree("v0.1.0")), "OLD_NAME") == [("vllm/__init__.py", 1)]
    store.install_tree("v0.1.0", DirectorySource(after))
    index = index_for(store.source_tree("v0.1.0"))
    assert matching_lines(index, "NEW_NAME") == [("vllm/__init__.py", 1)]
    assert matching_lines(index, "OLD_NAME") == []


def test_refresh_packs_a_tree_an_earlier_version_cached_as_loose_files(tmp_path: Path) -> None:
    checkout = write_tree(tmp_path / "checkout", {"vllm/__init__.py": "LEGACY = 1\n"})
    store = Store(tmp_path / "store")
    loose = write_tree(store.tree_path("v0.1.0"), {"vllm/__init__.py": "LEGACY = 1\n"})
    info = SourceInfo(kind="dir", origin=str(checkout))
    (loose / SOURCE_RECORD).write_text(info.model_dump_json(), encoding="utf-8")
    assert not isinstance(store.source_tree("v0.1.0"), PackedTree)
    result = refresh("v0.1.0", source=str(checkout), store=store)
    assert result.tree == "reused"
    assert any("Packed the cached tree" in note for note in result.notes)
    tree = store.source_tree("v0.1.0")
    assert isinstance(tree, PackedTree)
    assert matching_lines(index_for(tree), "LEGACY") == [("vllm/__init__.py", 1)]
