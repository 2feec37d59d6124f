"""Build the ToolContext: the store and the default tag.

Default tag, first that applies: `--tag`, VLLM_QUANT_MCP_TAG, the vLLM installed
in this environment (read from its metadata, never imported) when the store
knows it, the newest known tag.
"""

from __future__ import annotations

import os
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from vllm_quant_mcp.knowledge.errors import NotFoundError
from vllm_quant_mcp.knowledge.tags import InvalidTagError, nearest_tags, normalize_tag, tag_key
from vllm_quant_mcp.tools.context import Fetches, ToolContext

__all__ = ["FETCH_QUOTA", "default_tag", "make_context", "serve_fetches", "worker_context", "writable"]


def installed_vllm_tag() -> str | None:
    try:
        return normalize_tag(version("vllm"))
    except (PackageNotFoundError, InvalidTagError):  # dev builds like 0.33.1.dev5+g... are not release tags
        return None


def pinned_tag(explicit: str | None) -> str | None:
    """The tag pinned by --tag or VLLM_QUANT_MCP_TAG, validated; errors name where the bad value came from."""
    source, pinned = ("--tag", explicit) if explicit else ("VLLM_QUANT_MCP_TAG", os.environ.get("VLLM_QUANT_MCP_TAG"))
    if not pinned:
        return None
    try:
        return normalize_tag(pinned)
    except InvalidTagError as exc:
        raise InvalidTagError(f"{source}: {exc}") from exc


def default_tag(explicit: str | None, known: list[str]) -> str:
    pinned = pinned_tag(explicit)
    if pinned:
        if pinned not in known:
            source = "--tag" if explicit else "VLLM_QUANT_MCP_TAG"
            raise NotFoundError(
                f"{source} pins {pinned}, which is neither bundled nor refreshed; "
                f"run `vllm-quant-mcp refresh --tag {pinned}` or pin one of: {', '.join(nearest_tags(pinned, known))}."
            )
        return pinned
    installed = installed_vllm_tag()
    if installed is not None and installed in known:
        return installed
    if not known:
        raise NotFoundError("No vLLM registry is bundled or cached; run `vllm-quant-mcp refresh --tag v0.33.0`.")
    return max(known, key=tag_key)


def make_context(
    tag: str | None, local_models: bool = True, fetches: Fetches | None = None, local_paths: bool = True
) -> ToolContext:
    from vllm_quant_mcp.knowledge.registry.store import default_store

    store = default_store()
    return ToolContext(
        store=store,
        default_tag=default_tag(tag, store.known_tags()),
        local_models=local_models,
        fetches=fetches or Fetches(),
        local_paths=local_paths,
    )


def worker_context(tag: str | None, local_models: bool, local_paths: bool) -> ToolContext:
    """A compute worker's context (mcp/pool.py): the server's settings, made in the worker from these picklable
    values. It never fetches: the compute tools read registries, not trees, and the fetch quota is the server's."""
    return make_context(
        tag,
        local_models=local_models,
        fetches=Fetches("tree fetches are the server process's, not a compute worker's"),
        local_paths=local_paths,
    )


def serve_fetches(no_fetch: bool, cache_dir: Path) -> Fetches:
    """What a server may fetch: nothing with --no-fetch or a cache it cannot write, else FETCH_QUOTA trees."""
    if no_fetch:
        return Fetches("this server runs with --no-fetch")
    if not writable(cache_dir):
        return Fetches(f"the cache {cache_dir} is read-only (which implies --no-fetch)")
    return Fetches(quota=FETCH_QUOTA)


FETCH_QUOTA = 4  # trees a server fetches for its clients (~85 MB each); the operator refreshes the rest


def writable(path: Path) -> bool:
    """Whether this process can create files at `path` (or, while it does not exist, in its nearest parent)."""
    while not path.exists() and path.parent != path:
        path = path.parent
    return os.access(path, os.W_OK)
