"""The registries shipped inside the package: the server answers offline right after install.

Kept apart from the store so that listing them (MCP resources at start-up) imports
nothing but the standard library and the registry models.
"""

from __future__ import annotations

from functools import cache
from importlib import resources

from vllm_quant_mcp.knowledge.tags import InvalidTagError, normalize_tag, tag_key

from .model import Registry

__all__ = ["bundled_tags", "read_bundled"]

_PACKAGE = f"{__package__}.bundled"


def bundled_tags() -> list[str]:
    """Tags with a bundled registry, oldest release first."""
    tags = []
    for item in resources.files(_PACKAGE).iterdir():
        stem = item.name.removesuffix(".json")
        if item.name.endswith(".json"):
            try:
                tags.append(normalize_tag(stem))
            except InvalidTagError:
                continue
    return sorted(set(tags), key=tag_key)


def read_bundled(tag: str) -> Registry | None:
    """The registry shipped for `tag`, parsed once per process.

    The package's files do not change under a running process, and a registry is a frozen model, so every
    store shares one copy: a question asked across releases (check_gates, "which tags have this flag") reads
    every bundled tag, ~80 ms each for the newest, which fresh stores (each CLI context, each test) paid again.
    All 30 parsed hold ~160 MB.
    """
    return _parsed(normalize_tag(tag))


@cache
def _parsed(tag: str) -> Registry | None:
    item = resources.files(_PACKAGE) / f"{tag}.json"
    if not item.is_file():
        return None
    return Registry.model_validate_json(item.read_bytes())
