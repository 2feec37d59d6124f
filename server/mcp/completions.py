"""completion/complete: the values a prompt or the registry template accepts, for the argument being typed.

Tags are the ones the server knows (bundled or refreshed), newest first; kinds are the
registry's; GPUs and model families are the knowledge base's (the names version gates
and known issues are keyed by, so a completed family is one check_gates can match).
A value matches by prefix, ignoring case and a missing leading `v` on tags.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from mcp.server import MCPServer, ServerRequestContext
from mcp.types import CompleteRequestParams, CompleteResult, Completion, ResourceTemplateReference

from vllm_quant_mcp.knowledge.registry.kinds import KIND_NAMES
from vllm_quant_mcp.knowledge.tags import tag_key
from vllm_quant_mcp.server.mcp.resources import TEMPLATE
from vllm_quant_mcp.tools.context import ToolContext

if TYPE_CHECKING:
    from vllm_quant_mcp.knowledge.facts.knowledge_base import KnowledgeBase

__all__ = ["MOST", "register"]

MOST = 100  # the spec's cap on values in one completion


def _gpus(kb: KnowledgeBase) -> tuple[str, ...]:
    return tuple(g.id for g in kb.gpus)


def _families(kb: KnowledgeBase) -> tuple[str, ...]:
    names = {a.name for _, fact in kb.facts() for a in getattr(fact, "affects", []) if a.kind == "model_family"}
    return tuple(sorted(names))


def _matching(pool: list[str] | tuple[str, ...], typed: str) -> Completion:
    prefix = typed.strip().lower()
    values = [v for v in pool if v.lower().startswith(prefix) or v.lower().startswith("v" + prefix)]
    return Completion(values=values[:MOST], total=len(values), has_more=len(values) > MOST)


def register(server: MCPServer, ctx: Callable[[], ToolContext]) -> None:
    def tags() -> list[str]:
        return sorted(ctx().store.known_tags(), key=tag_key, reverse=True)

    pools: dict[str, Callable[[], list[str] | tuple[str, ...]]] = {
        "tag": tags,
        "from_tag": tags,
        "to_tag": tags,
        "kind": lambda: KIND_NAMES,
        "gpu": lambda: _gpus(ctx().knowledge),
        "model_family": lambda: _families(ctx().knowledge),
    }

    async def complete(ctx: ServerRequestContext[Any], params: CompleteRequestParams) -> CompleteResult:
        pool = pools.get(params.argument.name)
        if pool is None or (isinstance(params.ref, ResourceTemplateReference) and params.ref.uri != TEMPLATE):
            return CompleteResult(completion=Completion(values=[]))
        return CompleteResult(completion=_matching(pool(), params.argument.value))

    # The low-level registration MCPServer.completion() wraps, typed; it also advertises the capability.
    server._lowlevel_server.add_request_handler("completion/complete", CompleteRequestParams, complete)
