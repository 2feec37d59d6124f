"""A file parsed only where it matters: the module-level statements that hold some byte offsets, as one tree.

The message sites need the syntax around each `raise` and log call (the call, the `if`s above it, the
function and class it is in), and nothing else of the file; for two hundred files no other kind reads,
parsing the whole of each was a quarter of deriving a registry. A module-level statement starts on a line
whose first character is not blank, a comment, a closing bracket or a clause that continues the statement
before (`else`, `except`...). Tree-sitter parses just those ranges, with every node at its place in the
file, so lines and byte offsets read as in a whole parse. A line inside a multi-line string can look like a
statement start too: the ranges then cut a string open, the tree has an error, and the caller is told
to parse the whole file instead.
"""

from __future__ import annotations

import bisect
import re

import tree_sitter

from vllm_quant_mcp.knowledge.extract.engine.language import parser

__all__ = ["parse_statements", "statement_ranges"]

# A line opening with anything but a blank, a comment or a closing bracket (a literal newline first: a pattern
# anchored with ^ under re.M took four times as long over the message sites' 7 MB).
_LINE_START = re.compile(rb"\n(?=[^ \t\r\n#)\]}])")
_CONTINUED = re.compile(rb"(?:else|elif|except|finally)\b")


def statement_ranges(data: bytes, offsets: list[int]) -> list[tuple[int, int]]:
    """(start, end) of each module-level statement holding one of `offsets`, in order, adjacent ones joined."""
    starts = [0, *(m.end() for m in _LINE_START.finditer(data) if not _CONTINUED.match(data, m.end()))]
    ranges: list[tuple[int, int]] = []
    for offset in sorted(offsets):
        at = bisect.bisect_right(starts, offset) - 1
        start = starts[at] if at >= 0 else 0
        end = starts[at + 1] if at + 1 < len(starts) else len(data)
        if ranges and start <= ranges[-1][1]:
            ranges[-1] = (ranges[-1][0], max(end, ranges[-1][1]))
        else:
            ranges.append((start, end))
    return ranges


def parse_statements(data: bytes, ranges: list[tuple[int, int]]) -> tree_sitter.Tree | None:
    """One tree of the ranges (each starting a line), or None where they do not parse cleanly on their own."""
    if not ranges:
        return None
    included = []
    row = 0
    counted = 0
    for start, end in ranges:
        row += data.count(b"\n", counted, start)
        end_row = row + data.count(b"\n", start, end)
        end_column = end - (data.rfind(b"\n", 0, end) + 1)
        included.append(tree_sitter.Range((row, 0), (end_row, end_column), start, end))
        row, counted = end_row, end
    partial = parser()
    partial.included_ranges = included
    tree = partial.parse(data)
    return None if tree.root_node.has_error else tree
