"""Which trigrams a line must contain for a regex to match it: the index prefilter.

The plan is read from Python's own regex parser (`re._parser`), so it follows the
pattern's real structure: literal runs are required, alternations become OR, optional
parts require nothing. A plan only ever under-approximates (a file it keeps may still
not match; a file it drops cannot match), which is what makes the prefilter safe.
`None` means "no trigram is required": the caller scans every file.

The search itself runs the `regex` module, which reads a few forms differently from
`re`: a `{...}` that is no plain quantifier (`(?:abc){e<=1}` is fuzzy matching there, a
literal to `re`) and a `[` inside a class (`[[:alpha:]]` is a POSIX class there, to `re`
a class and a literal `]`). A pattern with either gets no plan, so every file is
scanned; forms `re` cannot parse at all (`\\p{L}`, `(?V1)`, `\\L<name>`) get none either.

Characters that are left out of runs, so a fold mismatch can never drop a real match:
non-ASCII characters (the index folds case the SQLite way, the regex the Python way),
and under ignore-case `i`, `k`, `s`, which also match non-ASCII letters (dotted capital I, the Kelvin sign, long s).
"""

from __future__ import annotations

import re
from re import _constants as sre  # type: ignore[attr-defined]  # private, untyped: the parser re itself uses
from re import _parser as sre_parse  # type: ignore[attr-defined]
from typing import Any

__all__ = ["Plan", "fts_query", "plan"]

# A trigram, or ("and"|"or", children).
Plan = str | tuple[str, list["Plan"]]

_MAX_TRIGRAMS_PER_RUN = 24
_FOLDS_OUTSIDE_ASCII = frozenset("iks")
_REPEATS = (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT)
_QUANTIFIER = re.compile(r"\{(?:\d+|\d+,\d*|,\d+)\}")


def plan(pattern: str, ignore_case: bool) -> Plan | None:
    """Trigrams (lower-case) that every matching line contains, or None when nothing is required."""
    if _read_differently_by_regex(pattern):
        return None
    try:
        parsed = sre_parse.parse(pattern, re.IGNORECASE if ignore_case else 0)
    except (re.error, RecursionError, OverflowError):
        return None  # valid for the `regex` module only: scan everything
    return _sequence(list(parsed), bool(parsed.state.flags & re.IGNORECASE))


def _read_differently_by_regex(pattern: str) -> bool:
    """Whether the pattern holds a `{` that is no plain quantifier or a `[` inside a class (see the module doc).

    Errs towards True (a `{` in a comment or after `\\N`, say): that costs a full scan, never a missed match.
    """
    in_class = False
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            i += 2
            continue
        if in_class:
            if char == "[":
                return True
            if char == "]":
                in_class = False
        elif char == "[":
            in_class = True
            i += 1 + pattern.startswith("^", i + 1)
            i += pattern.startswith("]", i)  # a `]` first in a class is a literal
            continue
        elif char == "{" and not _QUANTIFIER.match(pattern, i):
            return True
        i += 1
    return False


def fts_query(p: Plan) -> str:
    """The plan as an SQLite FTS5 MATCH expression."""
    if isinstance(p, str):
        return '"' + p.replace('"', '""') + '"'
    op, children = p
    return "(" + f" {op.upper()} ".join(fts_query(c) for c in children) + ")"


def _sequence(items: list[tuple[Any, Any]], icase: bool) -> Plan | None:
    required: list[Plan] = []
    run: list[str] = []

    def flush() -> None:
        required.extend(_run_trigrams("".join(run)))
        run.clear()

    for op, av in items:
        if op is sre.LITERAL and _indexable(chr(av), icase):
            run.append(chr(av).lower())
        elif op is sre.AT:
            continue  # anchors consume nothing: the run goes on
        else:
            flush()
            sub = _item(op, av, icase)
            if sub is not None:
                required.append(sub)
    flush()
    return _combine("and", required)


def _item(op: Any, av: Any, icase: bool) -> Plan | None:
    if op is sre.SUBPATTERN:
        _group, add_flags, del_flags, sub = av
        inner = (icase or bool(add_flags & re.IGNORECASE)) and not del_flags & re.IGNORECASE
        return _sequence(list(sub), inner)
    if op is sre.ATOMIC_GROUP:
        return _sequence(list(av), icase)
    if op in _REPEATS:
        low, _high, sub = av
        return _sequence(list(sub), icase) if low >= 1 else None
    if op is sre.BRANCH:
        branches = [_sequence(list(b), icase) for b in av[1]]
        if any(b is None for b in branches):
            return None
        return _combine("or", [b for b in branches if b is not None])
    return None  # classes, `.`, back-references, lookarounds, conditionals: nothing required


def _indexable(char: str, icase: bool) -> bool:
    return char.isascii() and char != "\n" and not (icase and char.lower() in _FOLDS_OUTSIDE_ASCII)


def _run_trigrams(run: str) -> list[Plan]:
    grams = list(dict.fromkeys(run[i : i + 3] for i in range(len(run) - 2)))
    if len(grams) > _MAX_TRIGRAMS_PER_RUN:  # a long literal: a spread-out subset filters as well
        step = len(grams) / _MAX_TRIGRAMS_PER_RUN
        grams = [grams[int(i * step)] for i in range(_MAX_TRIGRAMS_PER_RUN)]
    return list(grams)


def _combine(op: str, parts: list[Plan]) -> Plan | None:
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else (op, parts)
