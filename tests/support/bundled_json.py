"""The bundled registry files read as plain JSON, so tests get expected values without the code under test."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

__all__ = ["names", "raw"]


@cache
def raw(tag: str) -> dict[str, Any]:
    """The bundled registry file of `tag`, parsed."""
    folder = resources.files("vllm_quant_mcp.knowledge.registry.bundled")
    data: dict[str, Any] = json.loads((folder / f"{tag}.json").read_text(encoding="utf-8"))
    return data


def names(tag: str, kind: str) -> set[str]:
    """The names of every entry of one registry kind (e.g. "cli_flags") at `tag`."""
    return {e["name"] for e in raw(tag)[kind]}
