"""Every tool is `(ctx, query) -> result`, and what it needs from outside comes through the context, once."""

from __future__ import annotations

import inspect
from dataclasses import replace
from pathlib import Path

from vllm_quant_mcp.knowledge.facts.knowledge_base import KnowledgeBase, load_knowledge
from vllm_quant_mcp.knowledge.registry.store import Store
from vllm_quant_mcp.server.toolsets import all_specs
from vllm_quant_mcp.tools.context import ToolContext
from vllm_quant_mcp.tools.verify_knowledge.models import VerifyQuery
from vllm_quant_mcp.tools.verify_knowledge.tool import verify_knowledge


def test_every_tool_takes_exactly_the_context_and_its_query() -> None:
    for spec in all_specs():
        params = list(inspect.signature(spec.function()).parameters.values())
        assert [p.name for p in params] == ["ctx", "query"], spec.name
        assert all(p.default is inspect.Parameter.empty for p in params), spec.name


def test_a_context_makes_each_dependency_on_first_use_and_only_once(tmp_path: Path) -> None:
    made: list[str] = []

    def knowledge() -> KnowledgeBase:
        made.append("knowledge")
        return load_knowledge()

    ctx = ToolContext(Store(tmp_path / "store"), "v0.32.0", make_knowledge=knowledge)
    assert made == []
    ctx.registry(None)
    assert made == []  # a registry read builds nothing else
    first = verify_knowledge(ctx, VerifyQuery(tags=["v0.32.0"]))
    again = verify_knowledge(ctx, VerifyQuery(tags=["v0.32.0"]))
    assert made == ["knowledge"] and first == again


def test_the_knowledge_base_a_tool_reads_is_the_one_its_context_holds(tmp_path: Path) -> None:
    kb = load_knowledge()
    empty = kb.model_copy(update={name: [] for name in type(kb).model_fields})
    ctx = ToolContext(Store(tmp_path / "store"), "v0.32.0")
    full = verify_knowledge(ctx, VerifyQuery(tags=["v0.32.0"]))
    none = verify_knowledge(replace(ctx, make_knowledge=lambda: empty), VerifyQuery(tags=["v0.32.0"]))
    assert full.results and none.results == []
