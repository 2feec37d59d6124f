"""One tool call made into what the client reads, the same wherever it runs: a worker thread or a worker process.

The answer is the text (the tool's own rendering, tools/<name>/text.py) and the structured
content (the result as JSON), both made where the call ran: off the event loop, and in a
compute worker (mcp/pool.py) in another interpreter, so that only JSON types cross back.
"""

from __future__ import annotations

from contextlib import nullcontext
from dataclasses import dataclass
from typing import Any

from vllm_quant_mcp.knowledge.progress import Sink, listening
from vllm_quant_mcp.server.mcp.errors import as_tool_errors
from vllm_quant_mcp.tools.context import ToolContext
from vllm_quant_mcp.tools.spec import ToolSpec

__all__ = ["Answer", "answer"]


@dataclass(frozen=True)
class Answer:
    text: str  # the content's one text block
    structured: dict[str, Any]  # the structured content, checked by the SDK against the output schema


def answer(spec: ToolSpec[Any, Any], ctx: ToolContext, arguments: dict[str, Any], sink: Sink | None) -> Answer:
    """Run the tool (its steps told to `sink`), our errors as tool errors (mcp/errors.py), and render the result."""
    with listening(sink) if sink else nullcontext(), as_tool_errors(spec.name, spec.query.model_fields):
        result = spec.run(ctx, arguments)
    return Answer(spec.renderer()(result), result.model_dump(mode="json", by_alias=True))
