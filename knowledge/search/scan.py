"""The scan behind grep: one pass of a linear-time engine over the pack, `regex` only where it must decide.

A translated pattern P (translate.py) cannot match a newline, so `(?:P)[^\\n]*\\n` matches once
per matching line, ending at its newline: Hyperscan reports exactly one event per matching
line, and RE2 finds the lines one search each. Both run in time linear in the text, so no
pattern can backtrack without end. Hyperscan (x86-64) is used where installed, RE2 elsewhere
and for what Hyperscan refuses to compile. Lines that are not pure ASCII are decided by
`regex` when the engines could read them otherwise (see translate.py); so are all lines of a
pattern that is not `exact` (lookarounds, back-references) and, whole file by whole file,
patterns only `regex` reads.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import suppress
from types import ModuleType
from typing import Any, cast

import re2

from vllm_quant_mcp.knowledge.sources.pack import Pack

from .translate import Translated

hyperscan: ModuleType | None = None
with suppress(ImportError):  # Hyperscan has wheels for x86-64 only; RE2 answers the same elsewhere
    import hyperscan

__all__ = ["HYPERSCAN_NESTING", "Engine", "EngineRefused", "Ranges", "line_ends"]

Ranges = list[tuple[int, int]]
_LINE = "[^\\n]*\\n"


class EngineRefused(Exception):
    """Control flow, not an error: neither engine compiles the pattern (too large for their memory limits), so
    the search runs `regex` (grep.py catches it; it never leaves the search package)."""


HYPERSCAN_NESTING = 400  # nested repeat counts Hyperscan compiles in well under a second (400: 0.6 s; 2,000: 7 s)


class Engine:
    """Compiled line patterns of one pack, shared by all threads (each scan holds its database's lock).

    A pattern compiles outside the engine's lock, so a slow compile holds up only the callers of the same
    pattern, never a quick grep of the same tag.
    """

    def __init__(self, pack: Pack) -> None:
        self.pack = pack
        self._compiled: dict[tuple[str, ...], Callable[[Ranges], list[list[int]]]] = {}
        self._compiling: dict[tuple[str, ...], threading.Lock] = {}
        self._lock = threading.Lock()

    def scan(self, bodies: tuple[str, ...], ranges: Ranges, nesting: int = 1) -> list[list[int]]:
        """For each body, the sorted offsets just past the newline of every line in `ranges` it matches."""
        with self._lock:
            scan = self._compiled.get(bodies)
            compiling = self._compiling.setdefault(bodies, threading.Lock())
        if scan is None:
            with compiling:  # one compile per pattern however many ask at once
                with self._lock:
                    scan = self._compiled.get(bodies)
                if scan is None:
                    scan = self._compile(bodies, nesting)
                    with self._lock:
                        if len(self._compiled) >= 64:
                            self._compiled.pop(next(iter(self._compiled)))
                        self._compiled[bodies] = scan
                        self._compiling.pop(bodies, None)
        return [sorted(ends) for ends in scan(ranges)]

    def _compile(self, bodies: tuple[str, ...], nesting: int) -> Callable[[Ranges], list[list[int]]]:
        if hyperscan is not None and nesting <= HYPERSCAN_NESTING:
            try:
                return self._hyperscan(bodies)
            except hyperscan.error:
                pass  # e.g. "Pattern is too large": RE2 may still take it
        return self._re2(bodies)

    def _hyperscan(self, bodies: tuple[str, ...]) -> Callable[[Ranges], list[list[int]]]:
        assert hyperscan is not None
        database = hyperscan.Database()
        flags = hyperscan.HS_FLAG_UTF8 | hyperscan.HS_FLAG_MULTILINE
        database.compile(
            expressions=[f"(?:{b}){_LINE}".encode() for b in bodies],
            ids=list(range(len(bodies))),
            flags=[flags] * len(bodies),
        )
        lock = threading.Lock()  # a database's scratch space serves one scan at a time
        blob = self.pack.blob
        whole = (0, self.pack.size)

        def scan(ranges: Ranges) -> list[list[int]]:
            found: list[list[int]] = [[] for _ in bodies]
            with lock:
                for start, end in ranges:
                    data = blob if (start, end) == whole else memoryview(blob)[start:end]
                    database.scan(cast(bytes, data), match_event_handler=_collect, context=(found, start))
            return found

        return scan

    def _re2(self, bodies: tuple[str, ...]) -> Callable[[Ranges], list[list[int]]]:
        options = re2.Options()
        options.never_capture = True
        options.log_errors = False
        options.max_mem = 64 << 20
        try:
            compiled = [re2.compile(f"(?m)(?:{b})[^\\n]*", options) for b in bodies]
        except re2.error as exc:
            raise EngineRefused(str(exc)) from exc
        blob = self.pack.blob

        def scan(ranges: Ranges) -> list[list[int]]:
            found: list[list[int]] = []
            for rx in compiled:
                ends: list[int] = []
                for start, end in ranges:
                    pos = start
                    while pos < end:
                        m = rx.search(blob, pos, end)
                        if m is None or m.start() == end:
                            break
                        pos = m.end() + 1
                        ends.append(pos)
                found.append(ends)
            return found

        return scan


def _collect(expression: int, _start: int, end: int, _flags: int, context: Any) -> None:
    found, offset = context
    found[expression].append(offset + end)


def line_ends(engine: Engine, translated: Translated, ranges: Ranges) -> tuple[list[int], list[int]]:
    """Ends of the lines the narrow body matches, and (when sensitive) of those the wide superset matches."""
    if translated.wide is None or translated.wide == translated.body:
        narrow = engine.scan((translated.body,), ranges, translated.nesting)[0]
        return narrow, narrow
    narrow, wide = engine.scan((translated.body, translated.wide), ranges, translated.nesting)
    return narrow, wide
