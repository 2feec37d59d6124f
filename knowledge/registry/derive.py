"""Derive the whole Registry of one tag from its source tree: every kind's extractor, run once."""

from __future__ import annotations

import importlib
from typing import Any

from vllm_quant_mcp.knowledge.extract.result import Extracted
from vllm_quant_mcp.knowledge.extract.version import extractor_version
from vllm_quant_mcp.knowledge.progress import report
from vllm_quant_mcp.knowledge.sources.base import SourceInfo
from vllm_quant_mcp.knowledge.sources.tree import SourceTree

from .collector import collecting_less
from .kinds import EXTRACTED_FIELDS
from .model import Registry

__all__ = ["derive_registry"]


def derive_registry(tree: SourceTree, source: SourceInfo) -> Registry:
    """Run every extractor over `tree`; a kind that finds nothing (or finds something odd) says so in `notes`."""
    with collecting_less():
        return _derived(tree, source)


def _derived(tree: SourceTree, source: SourceInfo) -> Registry:
    results: dict[str, Extracted[Any]] = {}
    # The message sites parse a file whole only where another kind has (a partial parse otherwise): they go last.
    order = sorted(EXTRACTED_FIELDS.items(), key=lambda item: item[0] == "message_sites")
    for done, (field, marker) in enumerate(order):
        report("derive", done, len(EXTRACTED_FIELDS), f"{field} of {tree.tag}")
        module = importlib.import_module(f"vllm_quant_mcp.knowledge.extract.{marker.module}")
        results[field] = getattr(module, marker.function)(tree)
    report("derive", len(EXTRACTED_FIELDS), len(EXTRACTED_FIELDS), f"registry of {tree.tag}")
    notes = {
        kind: " ".join([*([result.note] if result.note else []), *result.warnings])
        for kind, result in results.items()
        if result.note or result.warnings
    }
    return Registry(
        extractor_version=extractor_version(),
        tag=tree.tag,
        source=source,
        notes=notes,
        **{kind: result.entries for kind, result in results.items()},
    )
