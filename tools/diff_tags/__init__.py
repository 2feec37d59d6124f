"""`diff_tags`: what was added, removed or changed between two tags."""

from __future__ import annotations

from vllm_quant_mcp.tools.spec import ToolSpec

from .models import DiffTagsQuery, RegistryDiff

SPEC = ToolSpec(
    name="diff_tags",
    title="Diff two tags",
    description=(
        "What was added, removed or changed between two tags per registry kind (methods, KV dtypes, flags, "
        'env vars...). Example: diff_tags(from_tag="v0.27.1", to_tag="v0.32.0", kind="quantization_methods")'
    ),
    query=DiffTagsQuery,
    result=RegistryDiff,
    cli="diff",
    cli_help="what changed between two tags, kind by kind",
)
