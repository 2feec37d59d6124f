"""Line-oriented regex search over a pack, with ripgrep's answers and bounded time.

A line matches when the pattern (Python's regex dialect, the `regex` module's reading)
matches inside it; no match crosses a newline, as with `rg`. Most patterns are translated
for a linear-time engine and found in one scan (scan.py); `regex` decides only the lines the
engine could read differently, and runs alone on patterns no linear engine can take
(`(?:abc){e<=1}`, `[[:alpha:]]`, `\\p{L}`), file by file, each call with its own time limit so
`(a+)+$` on a long line raises within 1.5 s instead of hanging.

Errors::

    InvalidInputError
    ├── InvalidPatternError   the pattern does not compile
    └── PatternTimeoutError   the `regex` part of a search ran past its time limit
"""

from __future__ import annotations

import bisect
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass

import regex

from vllm_quant_mcp.knowledge.echo import clip
from vllm_quant_mcp.knowledge.errors import InvalidInputError
from vllm_quant_mcp.knowledge.sources.pack import Pack
from vllm_quant_mcp.knowledge.sources.tree import MAX_LINE_CHARS

from .index import SearchIndex
from .scan import EngineRefused, Ranges, line_ends
from .translate import Translated, Untranslatable, translate

__all__ = ["CALL_LIMIT", "Found", "InvalidPatternError", "LineHit", "PatternTimeoutError", "files_containing", "search"]

CALL_LIMIT = 1.5  # seconds one regex call may take: past that it is backtracking, not searching
COUNT_LIMIT = 2.0  # seconds the count may go on once `keep` lines are found; past that the total is a lower bound
MAX_NESTING = 1_000_000  # product of nested repeat counts; `regex` took 5 s to compile 10 M


class InvalidPatternError(InvalidInputError):
    """The pattern is not a valid regular expression."""


class PatternTimeoutError(InvalidInputError):
    """The regex ran past its time limit (catastrophic backtracking, or far too broad)."""


@dataclass(frozen=True, slots=True)
class LineHit:
    file_id: int
    line: int  # 1-based
    start: int  # offset of the line's first byte in the pack
    end: int  # offset of its newline
    span: tuple[int, int] | None = None  # where the match sits in a long line's text, so it can be clipped around


@dataclass(frozen=True, slots=True)
class Found:
    hits: list[LineHit]  # the first `keep` matching lines, in path then line order
    total: int  # all matching lines, or a lower bound when counted_all is False
    files_searched: int
    counted_all: bool = True  # False: the count ran out of time after `keep` lines were found


class _Deadline:
    def __init__(self, seconds: float) -> None:
        self.at = time.monotonic() + seconds

    def call_limit(self) -> float:
        """The timeout for the next regex call: what is left of the search, at most CALL_LIMIT."""
        left = self.at - time.monotonic()
        if left <= 0:
            raise TimeoutError
        return min(left, CALL_LIMIT)

    def shorten(self, seconds: float) -> None:
        self.at = min(self.at, time.monotonic() + seconds)


def search(
    index: SearchIndex,
    pattern: str,
    *,
    fixed_string: bool = False,
    ignore_case: bool = False,
    path_glob: str | None = None,
    keep: int = 100,
    time_limit: float = 10.0,
    skip: int = 0,
) -> Found:
    """Matching lines: `hits` holds those from `skip` up to `keep`, so a page far into a result builds only its
    own lines; a `skip` past the total is the caller's to refuse (Found.total says how many there are)."""
    asked = (pattern, fixed_string, ignore_case, path_glob)
    with _lock:
        known = _refused.get(asked)
    if known is not None:
        raise known
    try:
        return _search(index, pattern, fixed_string, ignore_case, path_glob, keep, time_limit, skip)
    except (InvalidPatternError, PatternTimeoutError) as exc:
        with _lock:  # remembered: the same pattern costs nothing the second time
            _refused[asked] = exc
            while len(_refused) > 256:
                _refused.popitem(last=False)
        raise


_lock = threading.Lock()
_refused: OrderedDict[tuple[str, bool, bool, str | None], InvalidInputError] = OrderedDict()


def _search(
    index: SearchIndex,
    pattern: str,
    fixed_string: bool,
    ignore_case: bool,
    path_glob: str | None,
    keep: int,
    time_limit: float,
    skip: int,
) -> Found:
    try:
        translated: Translated | None = translate(pattern, ignore_case, fixed_string)
    except Untranslatable:
        translated = None
    if translated is not None and translated.nesting > MAX_NESTING:
        raise InvalidPatternError(
            f"the pattern {clip(pattern)} nests counted repeats {translated.nesting:,} deep (at most "
            f"{MAX_NESTING:,}); compiling it alone would take seconds. Use an open repeat (+, *) or a smaller count."
        )
    source = regex.escape(pattern) if fixed_string else pattern
    try:
        compiled = regex.compile(source, regex.MULTILINE | (regex.IGNORECASE if ignore_case else 0))
    except (regex.error, OverflowError, RecursionError) as exc:
        raise InvalidPatternError(
            f"invalid regular expression {clip(pattern)}: {exc}. "
            "Escape special characters, or pass fixed_string=true to search for the text literally."
        ) from exc
    files, ranges = index.scope(path_glob)
    deadline = _Deadline(time_limit)
    try:
        try:
            if translated is None:
                raise Untranslatable("read by the regex module alone")
            ends = _engine_ends(index, translated, ranges, compiled, deadline, keep)
        except (Untranslatable, EngineRefused):
            ends = _regex_ends(index.pack, files, compiled, deadline, keep)
    except _Partial as partial:
        return Found(
            _spans(index.pack, _hits(index.pack, partial.ends[skip:keep]), compiled),
            len(partial.ends),
            len(files),
            counted_all=False,
        )
    except TimeoutError as exc:
        raise PatternTimeoutError(
            f"the pattern {clip(pattern)} ran past its time limit ({CALL_LIMIT:g} s on one line or file, "
            f"{time_limit:g} s in all; nested repetition such as (a+)+ backtracks without end in the `regex` "
            "engine, which runs patterns RE2 cannot: lookarounds, back-references, fuzzy matching). Simplify the "
            "pattern, anchor it on a literal, narrow with path_glob, or pass fixed_string=true."
        ) from exc
    return Found(_spans(index.pack, _hits(index.pack, ends[skip:keep]), compiled), len(ends), len(files))


LONG_LINE = MAX_LINE_CHARS  # bytes (at least as many characters): such a line is shown around its match


SPAN_BUDGET = 2.0  # seconds, for every long line of one answer: past it, lines are shown from their start


def _spans(pack: Pack, hits: list[LineHit], compiled: regex.Pattern[str]) -> list[LineHit]:
    """Long lines (minified or vendored assets) get where their match is; a line too slow to re-search gets none."""
    spanned = []
    deadline = time.monotonic() + SPAN_BUDGET
    for hit in hits:
        left = deadline - time.monotonic()
        if hit.end - hit.start > LONG_LINE and left > 0:
            text = pack.blob[hit.start : hit.end].decode("utf-8", "replace")
            try:
                found = compiled.search(text, timeout=min(CALL_LIMIT, left))
            except TimeoutError:
                found = None
            if found is not None:
                hit = LineHit(hit.file_id, hit.line, hit.start, hit.end, found.span())
        spanned.append(hit)
    return spanned


class _Partial(Exception):
    """Control flow, not an error: time ran out after `keep` lines were found; search() answers with those,
    the count a lower bound."""

    def __init__(self, ends: list[int]) -> None:
        self.ends = ends


def _engine_ends(
    index: SearchIndex,
    translated: Translated,
    ranges: Ranges,
    compiled: regex.Pattern[str],
    deadline: _Deadline,
    keep: int,
) -> list[int]:
    narrow, wide = line_ends(index.engine, translated, ranges)
    pack = index.pack
    if not translated.sensitive:
        return narrow if translated.exact else _verified(pack, narrow, compiled, deadline, keep)
    nonascii = index.nonascii_ends()
    ascii_ends = [e for e in narrow if e not in nonascii]
    decide = [e for e in wide if e in nonascii]
    if translated.exact and not decide:
        return ascii_ends
    trusted = frozenset(ascii_ends) if translated.exact else frozenset()
    return _verified(pack, sorted(ascii_ends + decide), compiled, deadline, keep, trusted)


def _line(pack: Pack, end: int) -> str:
    """The text of the line whose newline is at end - 1."""
    start = pack.blob.rfind(b"\n", 0, end - 1) + 1
    return pack.blob[start : end - 1].decode("utf-8", "replace")


def _verified(
    pack: Pack,
    ends: list[int],
    compiled: regex.Pattern[str],
    deadline: _Deadline,
    keep: int,
    trusted: frozenset[int] = frozenset(),
) -> list[int]:
    """The lines of `ends` the pattern matches (`trusted` ones unchecked), in order; once `keep` are found the
    count gets COUNT_LIMIT more, so a broad back-reference answers with its first page instead of timing out."""
    found: list[int] = []
    try:
        for e in ends:
            if e in trusted or compiled.search(_line(pack, e), timeout=deadline.call_limit()) is not None:
                found.append(e)
                if len(found) == keep:
                    deadline.shorten(COUNT_LIMIT)
    except TimeoutError:
        if len(found) >= keep:
            raise _Partial(found) from None
        raise
    return found


def _regex_ends(
    pack: Pack, files: list[int], compiled: regex.Pattern[str], deadline: _Deadline, keep: int
) -> list[int]:
    """Line ends of matches found by `regex` alone, each file searched as one string (fast), line by line only
    when a match spans lines."""
    ends: list[int] = []
    try:
        for file_id in files:
            text = pack.text_bytes(file_id).decode("utf-8")  # the pack holds valid UTF-8 only
            chars, ascii_text = 0, text.isascii()
            byte_offset = pack.starts[file_id]
            for stop in _matching_lines(compiled, text, deadline):
                byte_offset += stop - chars if ascii_text else len(text[chars:stop].encode("utf-8"))
                chars = stop
                ends.append(byte_offset + 1)
                if len(ends) == keep:
                    deadline.shorten(COUNT_LIMIT)
    except TimeoutError:
        if len(ends) >= keep:  # a broad pattern, not a runaway one: answer with what was found
            raise _Partial(ends) from None
        raise
    return ends


def _matching_lines(compiled: regex.Pattern[str], text: str, deadline: _Deadline) -> list[int]:
    """The newline offset of each line of `text` (which ends in a newline) that the pattern matches."""
    found: list[int] = []
    pos, size = 0, len(text)
    while pos < size:
        m = compiled.search(text, pos, timeout=deadline.call_limit())
        if m is None or m.start() == size:
            break
        if text.find("\n", m.start(), m.end()) != -1:
            return _by_lines(compiled, text, deadline)
        begin = text.rfind("\n", 0, m.start()) + 1
        stop = text.find("\n", m.start())
        if compiled.search(text[begin:stop], timeout=deadline.call_limit()) is not None:
            found.append(stop)  # re-checked alone: a lookaround may have looked past the line
        pos = stop + 1
    return found


def _by_lines(compiled: regex.Pattern[str], text: str, deadline: _Deadline) -> list[int]:
    found: list[int] = []
    stop = -1
    for line in text.split("\n")[:-1]:
        stop += len(line) + 1
        if compiled.search(line, timeout=deadline.call_limit()) is not None:
            found.append(stop)
    return found


def _hits(pack: Pack, ends: list[int]) -> list[LineHit]:
    hits: list[LineHit] = []
    blob = pack.blob
    current, counted_to, line = -1, 0, 0
    for end in ends:
        start = blob.rfind(b"\n", 0, end - 1) + 1
        file_id = bisect.bisect_right(pack.starts, start) - 1
        if file_id != current:
            current, counted_to, line = file_id, pack.starts[file_id], 1
        line += blob[counted_to:start].count(b"\n")
        counted_to = start
        hits.append(LineHit(file_id, line, start, end - 1))
    return hits


def files_containing(index: SearchIndex, literal: str, path_glob: str | None) -> list[int]:
    """Ids (ascending) of the files in the glob's scope holding `literal` on one line: a cheap prefilter."""
    _files, ranges = index.scope(path_glob)
    translated = translate(literal, fixed_string=True)
    ends = line_ends(index.engine, translated, ranges)[0]
    starts = index.pack.starts
    return sorted({bisect.bisect_right(starts, end - 1) - 1 for end in ends})
