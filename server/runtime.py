"""Build the ToolContext: the store and the default tag.

Default tag, first that applies: `--tag`, VLLM_QUANT_MCP_TAG, the vLLM installed
in this environment (read from its metadata, never imported) when the store
knows it, the newest known tag.
"""

from __future__ import annotations

import os
from importlib.metadata import PackageNotFoundError, version

from vllm_quant_mcp.knowledge.tags import InvalidTagError, normalize_tag, tag_key
from vllm_quant_mcp.tools.context import ToolContext

__all__ = ["default_tag", "make_context"]


def installed_vllm_tag() -> str | None:
    try:
        return normalize_tag(version("vllm"))
    except (PackageNotFoundError, InvalidTagError):  # dev builds like 0.33.1.dev5+g... are not release tags
        return None


def default_tag(explicit: str | None, known: list[str]) -> str:
    pinned = explicit or os.environ.get("VLLM_QUANT_MCP_TAG")
    if pinned:
        return normalize_tag(pinned)
    installed = installed_vllm_tag()
    if installed is not None and installed in known:
        return installed
    if not known:
        raise LookupError("No vLLM registry is bundled or cached; run `vllm-quant-mcp refresh --tag v0.33.0`.")
    return max(known, key=tag_key)


def make_context(tag: str | None) -> ToolContext:
    from vllm_quant_mcp.knowledge.store import default_store

    store = default_store()
    return ToolContext(store=store, default_tag=default_tag(tag, store.known_tags()))
