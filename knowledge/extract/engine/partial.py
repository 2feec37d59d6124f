"""A file read for its statements: where each module-level statement (and each member of a class) starts, from
its bytes, so that only the ones a reader needs are handed to tree-sitter (language.parse_ranges).

Most of what a kind parses it never reads: resolving one import of `vllm/_custom_ops.py` needs one function
of its 140 kB, and a message site needs the method around its `raise`. A statement starts on a line whose
first character (after the block's indent) is not blank, a comment, a closing bracket or a clause that
continues the statement before (`else`, `except`...); decorators belong to what they decorate, and a
triple-quoted string opened on a start line runs to its closing quotes. The ranges parse with every node at
its place in the file, so lines and byte offsets read as in a whole parse. A line inside a string can still
look like a start: a range then holds an odd number of triple quotes (refused here) or cuts a string open
(the parse has an error), and the reader parses the whole file instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import Literal

__all__ = ["Statement", "class_members", "module_statements"]

_CONTINUED = re.compile(rb"(?:else|elif|except|finally)\b")
_DEFINITION = re.compile(rb"(?:async[ \t]+)?(def|class)[ \t]+(\w+)")
_TRIPLE_QUOTES = (b'"' * 3, b"'" * 3)
_INDENTED = re.compile(rb"^([ \t]+)[^ \t\r\n#]", re.M)  # a class body's first line, and its indent


@dataclass(frozen=True)
class Statement:
    """One module-level statement: its bytes, and the name it defines if it is a function or a class."""

    start: int
    end: int
    kind: Literal["function", "class", "other"]
    name: str | None = None


@cache
def _line_start(indent: bytes) -> re.Pattern[bytes]:
    """A line opening, at exactly `indent`, with anything but a blank, a comment or a closing bracket (a literal
    newline first: a pattern anchored with ^ under re.M took four times as long over 7 MB)."""
    return re.compile(rb"\n" + re.escape(indent) + rb"(?=[^ \t\r\n#)\]}])")


def _starts(data: bytes, begin: int, end: int, indent: bytes) -> list[int]:
    """Where the statements at `indent` between begin and end start (each at its line's start). A triple-quoted
    string opened on such a line and left open there (a docstring, `TEMPLATE = (three quotes)`) runs to its
    closing quotes: the lines it holds start nothing."""
    starts: list[int] = []
    open_until = 0
    lines = (m.start() + 1 for m in _line_start(indent).finditer(data, max(begin - 1, 0), end))
    for at in (begin, *lines) if not indent and begin == 0 else lines:
        if at < open_until or _CONTINUED.match(data, at + len(indent)):
            continue
        starts.append(at)
        eol = data.find(b"\n", at, end)
        eol = end if eol == -1 else eol
        for quotes in _TRIPLE_QUOTES:
            if data.count(quotes, at, eol) % 2:
                closing = data.find(quotes, eol)
                open_until = len(data) if closing == -1 else closing + 3
                break
    return starts


def _statements(data: bytes, begin: int, end: int, indent: bytes) -> list[Statement] | None:
    starts = [*_starts(data, begin, end, indent), end]
    found: list[Statement] = []
    at = 0
    while at < len(starts) - 1:
        first = starts[at]
        while data.startswith(b"@", starts[at] + len(indent)) and at < len(starts) - 2:  # up to what it decorates
            at += 1
        head, stop = starts[at], starts[at + 1]
        at += 1
        if any(data.count(quotes, first, stop) % 2 for quotes in _TRIPLE_QUOTES):
            return None
        named = _DEFINITION.match(data, head + len(indent))
        if named is None:
            found.append(Statement(first, stop, "other"))
        else:
            kind: Literal["function", "class"] = "function" if named[1] == b"def" else "class"
            found.append(Statement(first, stop, kind, named[2].decode()))
    return found


def module_statements(data: bytes) -> list[Statement] | None:
    """Every module-level statement in order, a decorated one from its first decorator; None where a triple-quoted
    string spans a line that looks like a statement start (the ranges would cut it)."""
    return _statements(data, 0, len(data), b"")


def class_members(data: bytes, statement: Statement) -> tuple[tuple[int, int], list[Statement]] | None:
    """A module-level class's header (its decorators and `class X(...):` line) and the statements of its body;
    None where the header does not end its line or the body's lines cannot be told apart from its bytes."""
    colon = _header_colon(data, statement)
    eol = data.find(b"\n", colon) if colon is not None else -1
    if colon is None or eol == -1 or data[colon + 1 : eol].strip(b" \t\r"):
        return None
    body = _INDENTED.search(data, eol + 1, statement.end)
    if body is None:
        return None
    members = _statements(data, eol + 1, statement.end, body[1])
    return ((statement.start, eol + 1), members) if members else None


def _header_colon(data: bytes, statement: Statement) -> int | None:
    """The `:` ending `class X(Base, metaclass=M):`, past its brackets."""
    named = _DEFINITION.search(data, statement.start, statement.end)
    depth = 0
    for at in range(named.end() if named is not None else statement.end, statement.end):
        char = data[at]
        if char in b"([{":
            depth += 1
        elif char in b")]}":
            depth -= 1
        elif char == ord(":") and depth == 0:
            return at
        elif char in b"\"'#":
            return None  # a string or a comment in the header: not read here
    return None
