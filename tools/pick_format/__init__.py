"""`pick_format`: ranked quantization formats for a model on a GPU at a tag."""

from __future__ import annotations

from vllm_quant_mcp.tools.spec import ToolSpec

from .models import PickFormatQuery, PickFormatResult

SPEC = ToolSpec(
    name="pick_format",
    title="Pick a quantization format",
    description=(
        "Ranked quantization options for a model on a GPU at a tag (quantization/kv_cache_dtype: judge only that "
        "one): values with provenance, native/fallback support, how to get the checkpoint, memory per GPU and "
        "tokens that fit, caveats; each candidate dropped says why."
    ),
    query=PickFormatQuery,
    result=PickFormatResult,
    cli="pick",
    cli_help="ranked quantization options for a model on a GPU",
    open_world=True,
    cost="compute",  # ranks over the knowledge base; its one hub lookup is cached and bounded by timeouts
)
