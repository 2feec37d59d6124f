"""Concurrent first searches of a tree share one load of its search data (they once built one each: 2.5 GB)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from vllm_quant_mcp.knowledge.registry.store import Store
from vllm_quant_mcp.knowledge.search.grep import search
from vllm_quant_mcp.knowledge.search.loading import index_for, loads
from vllm_quant_mcp.knowledge.sources.directory import DirectorySource
from vllm_quant_mcp.knowledge.sources.tree import SourceTree


def test_two_hundred_concurrent_first_greps_load_a_loose_tree_once(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    for i in range(300):
        (root / "vllm" / f"m{i}.py").parent.mkdir(parents=True, exist_ok=True)
        (root / "vllm" / f"m{i}.py").write_text(f"value_{i} = {i}\n", encoding="utf-8")
    tree = SourceTree(root, "v0.1.0")
    with ThreadPoolExecutor(max_workers=200) as pool:
        indexes = list(pool.map(lambda _: index_for(tree), range(200)))
    assert len({id(i) for i in indexes}) == 1
    assert loads(tree) == 1
    assert search(indexes[0], "value_299").total == 1


def test_concurrent_first_greps_of_a_refreshed_tag_share_its_pack(tmp_path: Path) -> None:
    checkout = tmp_path / "checkout"
    (checkout / "vllm").mkdir(parents=True)
    (checkout / "vllm" / "__init__.py").write_text("NAME = 1\n", encoding="utf-8")
    store = Store(tmp_path / "store")
    store.install_tree("v0.1.0", DirectorySource(checkout))
    with ThreadPoolExecutor(max_workers=50) as pool:
        indexes = list(pool.map(lambda _: index_for(store.source_tree("v0.1.0")), range(200)))
    assert len({id(i) for i in indexes}) == 1
    assert loads(store.source_tree("v0.1.0")) == 1
