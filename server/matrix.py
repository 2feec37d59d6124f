"""The support-matrix page of one tag, or of two as a diff, for the CLI (`matrix`) and the HTTP route alike.

The page model and its renderings are knowledge/support/matrix_page/; this resolves the tags
through the same store the tools read, so the page answers from the registries they answer from.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from vllm_quant_mcp.tools.context import ToolContext

__all__ = ["Format", "matrix_document"]

Format = Literal["html", "markdown"]


def matrix_document(ctx: ToolContext, tags: Sequence[str | None], fmt: Format) -> str:
    """`tags`: one tag (None for the pinned default), or old and new for a diff page."""
    from vllm_quant_mcp.knowledge.facts.knowledge_base import load_knowledge
    from vllm_quant_mcp.knowledge.support.matrix_page.html import render_html
    from vllm_quant_mcp.knowledge.support.matrix_page.markdown import render_markdown
    from vllm_quant_mcp.knowledge.support.matrix_page.model import diff_page, page

    kb = load_knowledge()
    registries = [ctx.registry(t) for t in tags]
    built = page(kb, registries[0]) if len(registries) == 1 else diff_page(kb, registries[0], registries[1])
    return render_html(built) if fmt == "html" else render_markdown(built)
