"""Path globs with ripgrep's `-g` meaning, matched in linear time, so a filtered search agrees with `rg -g`.

`*` and `?` stay inside one path segment, `**` crosses segments, a glob without `/`
matches a file name at any depth (`*.py`), a glob matching a directory selects all
files below it (`vllm/config`), and a leading `!` excludes instead of selects.

A glob is a caller's input: it becomes one RE2 pattern (an automaton, no backtracking;
runs of `*` are merged first) matched in one pass over all paths joined by newlines, so
`'**' * 50 + 'X'` costs what `*X` costs. A malformed class (`[z-a]`) is an
InvalidGlobError naming the glob, never an engine error.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence

import re2

from vllm_quant_mcp.knowledge.echo import clip
from vllm_quant_mcp.knowledge.errors import InvalidInputError

__all__ = ["InvalidGlobError", "glob_regex", "select"]

_ANY_DEPTH = "(?:[^\\n]*/)?"
_ANYTHING = "[^\\n]*"
_IN_SEGMENT = "[^/\\n]"


class InvalidGlobError(InvalidInputError):
    """The path_glob is malformed (a reversed range, a class that never closes its range)."""


def _char(char: str) -> str:
    return char if char.isascii() and (char.isalnum() or char == "_") else f"\\x{{{ord(char):x}}}"


def _class(glob: str, inner: str) -> str:
    negate = inner[:1] in ("!", "^")
    inner = inner[1:] if negate else inner
    items: list[str] = []
    i = 0
    while i < len(inner):
        if i + 2 < len(inner) and inner[i + 1] == "-":
            low, high = inner[i], inner[i + 2]
            if low > high:
                raise InvalidGlobError(
                    f"path_glob {clip(glob)} has the reversed range [{low}-{high}]; write [{high}-{low}]."
                )
            items.append(_char(low) + "-" + _char(high))
            i += 3
        else:
            items.append(_char(inner[i]))
            i += 1
    return "[" + ("^/\\n" if negate else "") + "".join(items) + "]"


def _translate(glob: str, body: str) -> str:
    out: list[str] = []
    i, n = 0, len(body)
    while i < n:
        char = body[i]
        if char == "*":
            j = i
            while j < n and body[j] == "*":
                j += 1
            if j - i == 1:
                out.append(_IN_SEGMENT + "*")
            elif body.startswith("/", j):  # `**/`: zero or more whole segments
                if not out or out[-1] != _ANY_DEPTH:
                    out.append(_ANY_DEPTH)
                j += 1
            elif not out or out[-1] not in (_ANYTHING, _ANY_DEPTH):
                out.append(_ANYTHING)
            elif out[-1] == _ANY_DEPTH:  # `**/**`: anything at all
                out[-1] = _ANYTHING
            i = j
        elif char == "?":
            out.append(_IN_SEGMENT)
            i += 1
        elif char == "[" and (end := body.find("]", i + 2)) != -1:
            out.append(_class(glob, body[i + 1 : end]))
            i = end + 1
        else:
            out.append(_char(char))
            i += 1
    return "".join(out)


def glob_regex(glob: str) -> tuple[str, bool]:
    """The RE2 pattern (multi-line, one path a line) selecting what `glob` selects, and whether it negates."""
    negate = glob.startswith("!")
    body = glob[1:] if negate else glob
    anchored = "/" in body.rstrip("/")
    body = body.strip("/")
    prefix = "^" if anchored else "^" + _ANY_DEPTH
    return f"(?m){prefix}(?:{_translate(glob, body)})(?:/{_ANYTHING})?$", negate


def select(paths: Sequence[str], joined: bytes, offsets: Sequence[int], glob: str) -> list[int]:
    """Indices (ascending) of the paths `glob` selects; `joined` is the paths joined by newlines, UTF-8,
    and `offsets` where each starts in it."""
    pattern, negate = glob_regex(glob)
    options = re2.Options()
    options.never_capture = True
    options.log_errors = False
    try:
        compiled = re2.compile(pattern, options)
    except re2.error as exc:
        raise InvalidGlobError(f"path_glob {clip(glob)} is not a valid glob ({exc}).") from exc
    hit = sorted({bisect.bisect_right(offsets, m.start()) - 1 for m in compiled.finditer(joined)})
    if not negate:
        return hit
    chosen = set(hit)
    return [i for i in range(len(paths)) if i not in chosen]
