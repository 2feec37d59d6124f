"""`--json` without `--limit` or `--cursor`: the whole result, not the first page.

Pages exist for an agent's context (tools/paging.py); a script that reads `entries` of one page
would read a fifth of a registry and never know. So for the tools whose whole answer is one call
away (each computes it before taking a page), the CLI prints that whole answer; given `--limit` or
`--cursor`, it prints the page asked for. Whatever still stops short of the whole (a page asked
for, or a tool that pages a remote service or a search) says so on stderr with the cursor to go on.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

from vllm_quant_mcp.tools.context import ToolContext

__all__ = ["WHOLE", "cut_note", "wants_whole"]


def _registry_kind(ctx: ToolContext, query: Any) -> BaseModel:
    from vllm_quant_mcp.tools.get_registry.tool import kind_view

    return kind_view(ctx.registry(query.tag), query.kind, query.contains)


def _diff(ctx: ToolContext, query: Any) -> BaseModel:
    from vllm_quant_mcp.knowledge.registry.diff import diff_registries
    from vllm_quant_mcp.tools.diff_tags.models import DiffPage

    whole = diff_registries(
        ctx.registry(query.from_tag), ctx.registry(query.to_tag), [query.kind] if query.kind else None
    )
    return DiffPage(**whole.model_dump(), total=whole.size)


def _gates(ctx: ToolContext, query: Any) -> BaseModel:
    from vllm_quant_mcp.tools.check_gates.tool import gates_report

    return gates_report(ctx, query)


# Tool -> its whole answer. Tools that page and are not here: grep and find_symbol (max_results caps a search
# by choice), search_issues (each page is a request to GitHub).
WHOLE: dict[str, Callable[[ToolContext, Any], BaseModel]] = {
    "get_registry": _registry_kind,
    "diff_tags": _diff,
    "check_gates": _gates,
}


def wants_whole(name: str, args: argparse.Namespace) -> bool:
    return (
        bool(args.json) and name in WHOLE and getattr(args, "limit", None) is None and not getattr(args, "cursor", None)
    )


def cut_note(result: BaseModel, prog: str) -> None:
    """On stderr, when the result printed is one page of more: how much, and how to get the rest."""
    following = getattr(result, "next", None)
    if following is None:
        return
    total = getattr(result, "total", None)
    whole = f" of {total}" if isinstance(total, int) else ""
    print(
        f"{prog}: note: this is one page{whole} (a page ends at --limit items or about 20,000 characters); "
        f"--cursor {following} gives the next",
        file=sys.stderr,
    )
