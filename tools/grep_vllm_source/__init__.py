"""`grep_vllm_source`: indexed regex search over the vLLM tree at a tag."""

from __future__ import annotations

from vllm_quant_mcp.tools.spec import ToolSpec

from .models import GrepQuery, GrepResult

SPEC = ToolSpec(
    name="grep_vllm_source",
    title="Grep vLLM source at a tag",
    description=("Regex search of the vLLM tree at a tag: path, line, text and permalink per match, a page at a time."),
    query=GrepQuery,
    result=GrepResult,
    cli="grep",
    cli_help="regex search over the vLLM tree at a tag",
    # A tag whose tree is not cached yet is fetched (git, then PyPI) on first use: the network.
    open_world=True,
    cost="source",
)
