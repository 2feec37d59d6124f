"""Line-oriented regex search over an index, with ripgrep's answers and a hard time limit.

A line matches when the pattern matches inside it (no match crosses a newline), as
with `rg`. Candidate files come from the trigram plan; each is searched as one string
(fast). A match that spans lines, or a pattern with string anchors (`\\A`, `\\Z`), sends
the file to a line-by-line search; with lookarounds each line found is re-checked on its
own (a lookaround that inspects the newline itself is the one case left to the whole-text
reading). Every regex call has its own short limit, so `(a+)+$` on a long line raises within
1.5 s instead of hanging; the whole search has a longer one, so a broad but sound pattern over
thousands of files on a loaded machine still finishes.

Errors::

    ValueError
    ├── InvalidPatternError   the pattern does not compile
    └── PatternTimeoutError   the search ran past its time limit
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import regex

from vllm_quant_mcp.knowledge.errors import InvalidInputError

from .plan import plan
from .trigram import SourceIndex

__all__ = ["Found", "InvalidPatternError", "LineHit", "PatternTimeoutError", "search", "surrounding_lines"]

CALL_LIMIT = 1.5  # seconds one regex call may take: past that it is backtracking, not searching
_STRING_ANCHORS = ("\\A", "\\Z", "\\z", "\\G")
_LOOKAROUNDS = ("(?=", "(?!", "(?<")


class InvalidPatternError(InvalidInputError):
    """The pattern is not a valid regular expression."""


class PatternTimeoutError(InvalidInputError):
    """The regex ran past its time limit (catastrophic backtracking, or far too broad)."""


@dataclass(frozen=True, slots=True)
class LineHit:
    file_id: int
    line: int  # 1-based
    start: int  # offset of the line's first character in the file text
    end: int  # offset of its newline (or of the end of the text)


@dataclass(frozen=True, slots=True)
class Found:
    hits: list[LineHit]  # the first `keep` matching lines, in path then line order
    total: int  # all matching lines, or a lower bound when counted_all is False
    files_searched: int
    counted_all: bool = True  # False: the count ran out of time after `keep` lines were found


def search(
    index: SourceIndex,
    pattern: str,
    *,
    fixed_string: bool = False,
    ignore_case: bool = False,
    path_glob: str | None = None,
    keep: int = 100,
    time_limit: float = 10.0,
) -> Found:
    source = regex.escape(pattern) if fixed_string else pattern
    flags = regex.MULTILINE | (regex.IGNORECASE if ignore_case else 0)
    try:
        compiled = regex.compile(source, flags)
    except (regex.error, OverflowError, RecursionError) as exc:
        raise InvalidPatternError(
            f"invalid regular expression {pattern!r}: {exc}. "
            "Escape special characters, or pass fixed_string=true to search for the text literally."
        ) from exc
    by_line = not fixed_string and any(token in pattern for token in _STRING_ANCHORS)
    verify = not fixed_string and any(token in pattern for token in _LOOKAROUNDS)
    ids = index.candidates(plan(source, ignore_case), path_glob)
    deadline = time.monotonic() + time_limit
    hits: list[LineHit] = []
    total = searched = 0
    try:
        for file_id in ids:
            searched += 1
            text = index.texts[file_id]
            found = (
                _by_lines(compiled, text, file_id, deadline)
                if by_line
                else _whole(compiled, text, file_id, deadline, verify)
            )
            total += len(found)
            if len(hits) < keep:
                hits.extend(found[: keep - len(hits)])
    except TimeoutError as exc:
        if len(hits) >= keep:  # a broad pattern, not a runaway one: answer with what was found
            return Found(hits, total, searched, counted_all=False)
        raise PatternTimeoutError(
            f"the pattern {pattern!r} ran past its time limit ({CALL_LIMIT:g} s on one file, {time_limit:g} s in "
            "all; nested repetition such as (a+)+ backtracks without end). Simplify the pattern, anchor it on a "
            "literal, narrow with path_glob, or pass fixed_string=true."
        ) from exc
    return Found(hits, total, len(ids))


def _remaining(deadline: float) -> float:
    """The timeout for the next regex call: what is left of the search, at most CALL_LIMIT."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError
    return min(left, CALL_LIMIT)


def _whole(compiled: regex.Pattern[str], text: str, file_id: int, deadline: float, verify: bool) -> list[LineHit]:
    found: list[LineHit] = []
    size = len(text)
    pos = counted = 0
    line = 1
    while pos <= size:
        m = compiled.search(text, pos, timeout=_remaining(deadline))
        if m is None:
            break
        start = m.start()
        if start == size and (size == 0 or text[-1] == "\n"):
            break  # the empty "line" after a final newline is not a line
        if text.find("\n", start, m.end()) != -1:
            return _by_lines(compiled, text, file_id, deadline)
        line += text.count("\n", counted, start)
        counted = start
        end = text.find("\n", start)
        end = size if end == -1 else end
        begin = text.rfind("\n", 0, start) + 1
        if not verify or compiled.search(text[begin:end], timeout=_remaining(deadline)) is not None:
            found.append(LineHit(file_id, line, begin, end))
        pos = end + 1
    return found


def _by_lines(compiled: regex.Pattern[str], text: str, file_id: int, deadline: float) -> list[LineHit]:
    found: list[LineHit] = []
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    start = 0
    for number, line in enumerate(lines, 1):
        if compiled.search(line, timeout=_remaining(deadline)) is not None:
            found.append(LineHit(file_id, number, start, start + len(line)))
        start += len(line) + 1
    return found


def surrounding_lines(text: str, hit: LineHit, count: int) -> tuple[list[str], list[str]]:
    """Up to `count` lines before and after a hit's line."""
    before: list[str] = []
    start = hit.start
    while len(before) < count and start > 0:
        previous = text.rfind("\n", 0, start - 1) + 1
        before.append(text[previous : start - 1])
        start = previous
    before.reverse()
    after: list[str] = []
    end = hit.end
    while len(after) < count and end + 1 < len(text):
        following = text.find("\n", end + 1)
        following = len(text) if following == -1 else following
        after.append(text[end + 1 : following])
        end = following
    return before, after
