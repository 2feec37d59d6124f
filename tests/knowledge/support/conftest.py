"""The knowledge base and the registries (bundled, read through a store of their own) that the support tests judge."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from vllm_quant_mcp.knowledge.facts.kinds import Gpu
from vllm_quant_mcp.knowledge.facts.knowledge_base import KnowledgeBase, load_knowledge
from vllm_quant_mcp.knowledge.registry.model import Registry
from vllm_quant_mcp.knowledge.registry.store import Store


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    return load_knowledge()


@pytest.fixture(scope="module")
def gpu(kb: KnowledgeBase) -> Callable[[str], Gpu]:
    """A GPU of the table by id."""
    return lambda name: kb.gpus_named(name)[0]


@pytest.fixture(scope="module")
def registries_at(tmp_path_factory: pytest.TempPathFactory) -> Callable[..., dict[str, Registry]]:
    """The registries of the tags named, by tag."""
    store = Store(tmp_path_factory.mktemp("store"))
    return lambda *tags: {t: store.load_registry(t) for t in tags}
