"""The default source: try each source in turn (git, then the package index) and say which one answered."""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path

from vllm_quant_mcp.knowledge.errors import (
    NetworkError,
    NotFoundError,
    ReleaseNotFoundError,
    SourceError,
    UnavailableError,
)

from .base import Source, SourceInfo

__all__ = ["FallbackSource"]


class FallbackSource:
    kind = "auto"

    def __init__(self, sources: Sequence[Source]) -> None:
        self.sources = list(sources)
        self.notes: list[str] = []

    def fetch(self, tag: str, dest: Path) -> SourceInfo:
        failures: list[UnavailableError | NotFoundError] = []
        for source in self.sources:
            try:
                info = source.fetch(tag, dest)
            except (UnavailableError, NotFoundError) as exc:  # bad input is not retried elsewhere
                failures.append(exc)
                self.notes.append(f"{source.kind} source failed ({exc}); trying the next source.")
                _empty(dest)
                continue
            self.notes.append(f"Tree of {tag} obtained from the {info.kind} source ({info.origin}).")
            return info
        raise _combined(tag, failures)


def _empty(folder: Path) -> None:
    shutil.rmtree(folder)
    folder.mkdir()


def _combined(tag: str, failures: list[UnavailableError | NotFoundError]) -> UnavailableError | NotFoundError:
    message = f"No source could provide {tag}: " + " | ".join(str(f) for f in failures)
    if failures and all(isinstance(f, ReleaseNotFoundError) for f in failures):
        suggestions = [s for f in failures if isinstance(f, ReleaseNotFoundError) for s in f.suggestions]
        return ReleaseNotFoundError(message, suggestions=list(dict.fromkeys(suggestions))[:3])
    if any(isinstance(f, NetworkError) for f in failures):
        return NetworkError(message)
    return SourceError(message)
