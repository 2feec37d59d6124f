"""MCP wiring of the deployment tools: pick_format (and render_serve_cmd)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Literal

from mcp.server import MCPServer
from pydantic import Field

from vllm_quant_mcp.knowledge.models.facts import ExplicitModel
from vllm_quant_mcp.tools.context import ToolContext
from vllm_quant_mcp.tools.pick_models import PickFormatResult

from .app import READ_ONLY, anticipated
from .mcp_registry_tools import TagArg


def register(server: MCPServer, ctx: Callable[[], ToolContext]) -> None:
    @server.tool(annotations=READ_ONLY("Pick a quantization format"))
    @anticipated
    def pick_format(
        gpu: Annotated[str, Field(max_length=100, description="e.g. h200, 'H200 SXM', sm90, b200, mi300x.")],
        model: Annotated[
            str | None, Field(max_length=300, description="Hugging Face repo id or local model directory.")
        ] = None,
        model_figures: Annotated[
            ExplicitModel | None, Field(description="Instead of model: the size and shape, for private models.")
        ] = None,
        num_gpus: Annotated[int, Field(ge=1, le=1024, description="GPUs for tensor parallelism.")] = 1,
        tag: TagArg = None,
        priority: Literal["throughput", "latency", "accuracy", "memory"] = "throughput",
        context_len: Annotated[int | None, Field(ge=1)] = None,
        concurrency: Annotated[int | None, Field(ge=1)] = None,
        checkpoint: Annotated[
            Literal["any", "as_is", "online", "offline"] | None,
            Field(description="as_is: serve the checkpoint's own format; online: quantize at load."),
        ] = None,
    ) -> PickFormatResult:
        """Ranked quantization options for a model on a GPU at a tag: --quantization and --kv-cache-dtype values
        with provenance, native/fallback support with evidence, how to get the checkpoint, memory per GPU and
        tokens that fit, caveats; what the tag or GPU cannot run is listed with the reason.
        Example: pick_format(gpu="h200", model="meta-llama/Llama-3.1-70B-Instruct", num_gpus=2)
        """
        from vllm_quant_mcp.tools import pick_format as pick  # the knowledge base and hub client load on the first call

        if (model is None) == (model_figures is None):
            raise ValueError("Give exactly one of model (a repo id or directory) and model_figures.")
        chosen: str | ExplicitModel = model if model is not None else model_figures  # type: ignore[assignment]
        return pick.pick_format(ctx(), gpu, chosen, num_gpus, tag, priority, context_len, concurrency, checkpoint)
