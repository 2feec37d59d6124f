"""A download progress line on stderr, drawn only when stderr is a terminal (never into a pipe or the MCP stream)."""

from __future__ import annotations

import sys
from types import TracebackType
from typing import TextIO

__all__ = ["Progress"]


class Progress:
    def __init__(self, label: str, total: int, stream: TextIO | None = None) -> None:
        self.label = label
        self.total = total
        self.done = 0
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = self.stream.isatty()
        self._shown = -1

    def advance(self, count: int) -> None:
        self.done += count
        if not self.enabled:
            return
        percent = self.done * 100 // self.total if self.total else 0
        if percent != self._shown:
            self._shown = percent
            size = f"{self.done / 1e6:.1f}/{self.total / 1e6:.1f} MB" if self.total else f"{self.done / 1e6:.1f} MB"
            bar = "#" * (percent // 5)
            self.stream.write(f"\r{self.label} [{bar:<20}] {percent:3d}% {size}")
            self.stream.flush()

    def __enter__(self) -> Progress:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self.enabled and self._shown >= 0:
            self.stream.write("\n")
            self.stream.flush()
