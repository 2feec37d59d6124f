"""Derive the whole Registry of one tag from its source tree."""

from __future__ import annotations

from typing import Any

from .extract.backends import extract_backends
from .extract.cli_flags import extract_cli_flags
from .extract.env_vars import extract_env_vars
from .extract.kv_cache import extract_kv_cache_dtypes
from .extract.online import extract_online_quantization
from .extract.platforms import extract_platforms
from .extract.quantization import extract_quantization_methods
from .extract.result import Extracted
from .extract.version import extractor_version
from .registry import Registry, SourceInfo
from .tree import SourceTree

__all__ = ["derive_registry"]


def derive_registry(tree: SourceTree, source: SourceInfo) -> Registry:
    """Run every extractor over `tree`; a kind that finds nothing (or finds something odd) says so in `notes`."""
    results: dict[str, Extracted[Any]] = {
        "quantization_methods": extract_quantization_methods(tree),
        "kv_cache_dtypes": extract_kv_cache_dtypes(tree),
        "online_quantization": extract_online_quantization(tree),
        "backends": extract_backends(tree),
        "cli_flags": extract_cli_flags(tree),
        "env_vars": extract_env_vars(tree),
        "platforms": extract_platforms(tree),
    }
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
