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

import bisect
import re
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Literal

import tree_sitter

from vllm_quant_mcp.knowledge.sources.tree import SourceTree

__all__ = ["Statement", "class_members", "module_statements", "roots_around", "statements_of"]

_CONTINUED = re.compile(rb"(?:else|elif|except|finally)\b")
_DEFINITION = re.compile(rb"(?:async[ \t]+)?(def|class)[ \t]+(\w+)")
_TRIPLE_QUOTES = (b'"' * 3, b"'" * 3)
_INDENTED = re.compile(rb"^([ \t]+)[^ \t\r\n#]", re.M)  # a class body's first line, and its indent


@dataclass(frozen=True)
class Statement:
    """One statement of a module or of a class body: its bytes, and the name it defines if it is a function or a
    class."""

    start: int
    end: int
    kind: Literal["function", "class", "other"]
    name: str | None = None


@cache
def _line_start(indent: bytes) -> re.Pattern[bytes]:
    """A line opening, at exactly `indent`, with anything but a blank, a comment, a closing bracket or a clause
    continuing the statement before (a literal newline first: a pattern anchored with ^ under re.M took four
    times as long over 7 MB)."""
    return re.compile(rb"\n" + re.escape(indent) + rb"(?=[^ \t\r\n#)\]}])(?!" + _CONTINUED.pattern + rb")")


class _Quotes:
    """Where a file's triple quotes stand, each kind apart: most lines hold none, and asking `bytes.count` for
    every line and statement of 3,000 files was a tenth of the scan."""

    def __init__(self, data: bytes) -> None:
        self._kinds = tuple((q, [m.start() for m in re.finditer(re.escape(q), data)]) for q in _TRIPLE_QUOTES)
        self.any = sorted(self._kinds[0][1] + self._kinds[1][1])

    def odd(self, begin: int, end: int) -> bytes | None:
        """The kind of triple quote [begin, end) holds an odd number of, if any."""
        first = bisect.bisect_left(self.any, begin)
        if first == len(self.any) or self.any[first] > end - 3:
            return None  # none at all: the common case, one lookup
        for quotes, where in self._kinds:  # a docstring: both kinds counted, without a generator per statement
            if (bisect.bisect_right(where, end - 3) - bisect.bisect_left(where, begin)) % 2:
                return quotes
        return None


@lru_cache(maxsize=4)
def _quotes(data: bytes) -> _Quotes:
    """A file's quotes, found once for its module statements and each of its classes' members."""
    return _Quotes(data)


def _starts(data: bytes, quotes: _Quotes, begin: int, end: int, indent: bytes) -> list[int]:
    """Where the statements at `indent` between begin and end start (each at its line's start). A triple-quoted
    string opened on such a line and left open there (a docstring, `TEMPLATE = (three quotes)`) runs to its
    closing quotes: the lines it holds start nothing. Only the lines holding a triple quote are looked at one
    by one; the starts between them are taken as the regex found them."""
    found = [m.start() + 1 for m in _line_start(indent).finditer(data, max(begin - 1, 0), end)]
    if not indent and begin == 0 and not _CONTINUED.match(data, 0):
        found.insert(0, 0)
    starts: list[int] = []
    i = 0
    while i < len(found):
        quote = bisect.bisect_left(quotes.any, found[i])
        if quote == len(quotes.any) or quotes.any[quote] >= end:
            starts += found[i:]
            break
        j = bisect.bisect_right(found, quotes.any[quote], i)  # found[j - 1]'s statement holds that quote
        starts += found[i:j]
        eol = data.find(b"\n", found[j - 1], end)
        opened = quotes.odd(found[j - 1], end if eol == -1 else eol)
        i = j
        if opened is not None:
            closing = data.find(opened, end if eol == -1 else eol)
            i = bisect.bisect_left(found, len(data) if closing == -1 else closing + 3, j)
    return starts


def _statements(data: bytes, quotes: _Quotes, begin: int, end: int, indent: bytes) -> list[Statement] | None:
    starts = _starts(data, quotes, begin, end, indent)
    starts.append(end)
    last, skip = len(starts) - 1, len(indent)
    found: list[Statement] = []
    at = 0
    while at < last:
        first = starts[at]
        while at < last - 1 and data.startswith(b"@", starts[at] + skip):  # up to what it decorates
            at += 1
        head, stop = starts[at], starts[at + 1]
        at += 1
        if quotes.odd(first, stop) is not None:
            return None
        named = _DEFINITION.match(data, head + skip)
        if named is None:
            found.append(Statement(first, stop, "other"))
        else:
            kind: Literal["function", "class"] = "function" if named[1] == b"def" else "class"
            found.append(Statement(first, stop, kind, named[2].decode()))
    return found


def module_statements(data: bytes) -> list[Statement] | None:
    """Every module-level statement in order, a decorated one from its first decorator; None where a triple-quoted
    string spans a line that looks like a statement start (the ranges would cut it)."""
    return _statements(data, _quotes(data), 0, len(data), b"")


def statements_of(tree: SourceTree, path: str) -> list[Statement] | None:
    """`module_statements` of a file of the tree, read once for every reader (the module index, the message sites)."""
    return tree.memo(f"module statements of {path}", lambda: module_statements(tree.source(path)))


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
    members = _statements(data, _quotes(data), eol + 1, statement.end, body[1])
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


def roots_around(tree: SourceTree, path: str, offsets: list[int]) -> list[tuple[tree_sitter.Node, list[int]]]:
    """Trees to read the syntax at `offsets` from, each with the offsets it holds, in order: the file's tree where
    a reader parsed it whole; else each module-level statement holding one, parsed on its own (of a class not
    parsed whole already, only its header and the members holding them: a class of thirty methods with one
    `raise` is parsed for that one), sharing the trees the module index parses; the whole file where that
    cannot be done."""
    whole = tree.parsed_tree(path)
    statements = statements_of(tree, path) if whole is None else None
    if statements is not None:
        starts = [s.start for s in statements]
        held: dict[int, list[int]] = {}
        for offset in offsets:
            held.setdefault(bisect.bisect_right(starts, offset) - 1, []).append(offset)
        data = tree.source(path)
        parts = [(_part(tree, path, data, statements[i], found), found) for i, found in held.items()]
        if all(part is not None for part, _ in parts):
            return [(part.root_node, found) for part, found in parts if part is not None]
    return [((whole or tree.parse(path)).root_node, offsets)]


def _part(
    tree: SourceTree, path: str, data: bytes, statement: Statement, offsets: list[int]
) -> tree_sitter.Tree | None:
    whole = (statement.start, statement.end)
    split = class_members(data, statement) if statement.kind == "class" else None
    if split is None or tree.parsed_part(path, (whole,)) is not None:
        return tree.parse_part(path, (whole,))
    header, members = split
    kept = [(m.start, m.end) for m in members if any(m.start <= o < m.end for o in offsets)]
    return tree.parse_part(path, (header, *kept)) or tree.parse_part(path, (whole,))
