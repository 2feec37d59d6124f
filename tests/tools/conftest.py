"""Fixtures the tool tests share: the real v0.32.0 tree with its index, and a context over the bundled registries."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.releases import release_tree

from vllm_quant_mcp.knowledge.registry.store import Store
from vllm_quant_mcp.knowledge.search.index import SearchIndex
from vllm_quant_mcp.knowledge.search.loading import index_for
from vllm_quant_mcp.knowledge.sources.tree import SourceTree
from vllm_quant_mcp.tools.context import ToolContext


@pytest.fixture(scope="module")
def tree() -> SourceTree:
    return release_tree("0.32.0")


@pytest.fixture(scope="module")
def index(tree: SourceTree) -> SearchIndex:
    """The tree packed in memory once per module (a store keeps it packed on disk)."""
    return index_for(tree)


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    """An empty store, so every registry comes from the bundled files; v0.32.0 when a call names no tag."""
    return ToolContext(Store(tmp_path / "store"), "v0.32.0")
