"""Where in a deployment file a finding's flag, value or variable is written: line and columns, for annotations.

A finding names what the command wrote (`--kv-cache-dtype fp9`, `-q fp8`, `VLLM_USE_V1`) and the
line its invocation starts on; an annotation on that first line of a ten-line `vllm serve \\` sends
the reader hunting. The flag is looked for from the invocation's line on (the first time it is
written there), the value after its flag, a variable where the file sets it (`export NAME=`,
`NAME=`, a manifest's `name: NAME`). What cannot be found as written (a value the file builds from
variables) keeps the invocation's line, without columns.
"""

from __future__ import annotations

import re
from typing import NamedTuple

__all__ = ["Span", "locate"]

_ENV = re.compile(r"^[A-Z_][A-Z0-9_]*$")


class Span(NamedTuple):
    """1-based line, and 1-based columns [start, end) on it."""

    line: int
    start: int
    end: int


def _span(text: str, offset: int, length: int) -> Span:
    line_start = text.rfind("\n", 0, offset) + 1
    column = offset - line_start + 1
    return Span(text.count("\n", 0, offset) + 1, column, column + length)


def _line_offset(text: str, line: int) -> int:
    offset = 0
    for _ in range(line - 1):
        found = text.find("\n", offset)
        if found < 0:
            return len(text)
        offset = found + 1
    return offset


def locate(text: str, line: int, written: str, subject: str) -> Span | None:
    """The span of what `written` is about (the value when `subject` names it, else the flag), at or after `line`."""
    words = written.replace("=", " ", 1).split() if written.startswith("-") else written.split()
    if not words:
        return None
    if _ENV.match(words[0]):
        return _variable(text, words[0])
    flag = re.compile(rf"(?<![\w-]){re.escape(words[0])}(?=[\s=\"']|$)")
    found = flag.search(text, _line_offset(text, line))
    if found is None:
        return None
    value = " ".join(words[1:])
    if value and (subject == value or subject.endswith(f" {value}")):  # a value finding: `--quantization bnb`
        quoted = re.compile(rf"[\s=][\"']?({re.escape(value)})(?![\w.-])")
        at = quoted.match(text, found.end()) or quoted.search(text, found.end(), found.end() + 200)
        if at is not None:
            return _span(text, at.start(1), len(value))
    return _span(text, found.start(), len(words[0]))


def _variable(text: str, name: str) -> Span | None:
    for pattern in (rf"^\s*export\s+({name})=", rf"^\s*({name})=", rf"name:\s*[\"']?({name})\b", rf"^\s*({name}):"):
        found = re.search(pattern, text, re.M)
        if found is not None:
            return _span(text, found.start(1), len(name))
    return None
