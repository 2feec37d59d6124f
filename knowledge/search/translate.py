"""A Python regex, read by Python's own parser, rewritten for a linear-time engine (Hyperscan, RE2) on lines.

Matches never cross a line, which makes a few rewrites exact: every class, `.` and negated
class leaves out the newline, a literal newline can never match, `^`/`\\A` become the start of
the line and `$`/`\\Z` its end, as ripgrep reads them. Character classes get their ASCII
meaning spelled out as the `regex` module reads them, so on a line of pure ASCII the answer
is the tool's documented dialect's.

What a linear engine lacks is replaced by something that matches more, and the result is
marked `exact=False`, so each line it finds is checked again with the `regex` module:
lookarounds are dropped, a back-reference becomes "anything", atomic groups and possessive
repeats become plain ones, counts above 1000 become open-ended.

A pattern whose reading depends on non-ASCII text (`\\w`, `\\b`, classes with non-ASCII
members, ignore-case, where Python folds the Kelvin sign to `k`) is `sensitive`: its lines
that are not pure ASCII (a few thousand of 2.5 million in a release, listed in the pack) are
found with a `wide` superset pattern and decided by `regex`.

Patterns the `regex` module reads differently from `re` (`{e<=1}` fuzzy matching, `[[:alpha:]]`)
or that `re` cannot parse (`\\p{L}`, `(?V1)`) raise Untranslatable: those run on `regex` alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from re import _constants as sre  # type: ignore[attr-defined]  # private, untyped: the parser re itself uses
from re import _parser as sre_parse  # type: ignore[attr-defined]
from typing import Any

__all__ = ["Translated", "Untranslatable", "translate"]

MAX_COUNT = 1000
_QUANTIFIER = re.compile(r"\{(?:\d+|\d+,\d*|,\d+)\}")
_ANY_BUT_NEWLINE = "[^\\n]"
_IMPOSSIBLE = "[^\\x00-\\x{10ffff}]"
_NONASCII = "\\x{80}-\\x{10ffff}"
# ASCII meaning of Python's str categories, the newline left out (a line never holds one).
_CATEGORY = {
    sre.CATEGORY_DIGIT: "0-9",
    sre.CATEGORY_NOT_DIGIT: "\\x00-\\x09\\x0b-/:-\\x{10ffff}",
    sre.CATEGORY_WORD: "0-9A-Za-z_",
    sre.CATEGORY_NOT_WORD: "\\x00-\\x09\\x0b-/:-@\\x5b-\\x5e\\x60\\x7b-\\x{10ffff}",
    sre.CATEGORY_SPACE: "\\x09\\x0b-\\x0d\\x20",  # the `regex` module's (and rg's): no \\x1c-\\x1f
    sre.CATEGORY_NOT_SPACE: "\\x00-\\x08\\x0e-\\x1f\\x21-\\x{10ffff}",
}
# In a superset pattern for non-ASCII lines, any non-ASCII character may belong to a category.
_WIDE_CATEGORY = {
    sre.CATEGORY_DIGIT: "0-9" + _NONASCII,
    sre.CATEGORY_WORD: "0-9A-Za-z_" + _NONASCII,
    sre.CATEGORY_SPACE: "\\x09\\x0b-\\x0d\\x20" + _NONASCII,
}
# The only non-ASCII characters Python's IGNORECASE matches to ASCII letters: U+0130 ~ i, U+017F ~ s, U+212A ~ k.
_FOLDS_TO_ASCII = {"i": "\\x{130}", "s": "\\x{17f}", "k": "\\x{212a}"}
_REPEATS = (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT)


class Untranslatable(Exception):
    """Control flow, not an error: a pattern only the `regex` module can run (grep.py catches it; it never leaves
    the search package)."""


@dataclass(frozen=True, slots=True)
class Translated:
    body: str  # for the engine; exact on ASCII lines (or on all lines when not sensitive) when `exact`
    exact: bool
    sensitive: bool
    wide: str | None  # when sensitive: a superset pattern for non-ASCII lines, decided by `regex`
    nesting: int = 1  # the largest product of the counts of repeats nested in one another (1 when none nest)


def read_differently_by_regex(pattern: str) -> bool:
    """A `{` that is no plain quantifier, or a `[` inside a class: `regex` reads these otherwise than `re`.

    Errs towards True (a `{` after `\\N`, say): that only sends the pattern to the slower engine.
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


def translate(pattern: str, ignore_case: bool = False, fixed_string: bool = False) -> Translated:
    if fixed_string:
        items: list[Any] = [(sre.LITERAL, ord(c)) for c in pattern]
        icase = ignore_case
    else:
        if read_differently_by_regex(pattern):
            raise Untranslatable("read differently by the regex module")
        try:
            parsed = sre_parse.parse(pattern, re.IGNORECASE if ignore_case else 0)
        except (re.error, RecursionError, OverflowError) as exc:
            raise Untranslatable(str(exc)) from exc
        items = list(parsed)
        icase = bool(parsed.state.flags & re.IGNORECASE)
    narrow = _Emitter(wide=False)
    body = narrow.seq(items, icase)
    wide = _Emitter(wide=True).seq(items, icase) if narrow.sensitive else None
    if icase:
        body = "(?i:" + body + ")"
        wide = None if wide is None else "(?i:" + wide + ")"
    return Translated(body, narrow.exact, narrow.sensitive, wide, nesting(items))


def nesting(items: list[Any]) -> int:
    """The largest product of counts along repeats nested in one another; a lone repeat counts 1.

    What compiling costs grows with it (Hyperscan: 400 took 0.6 s, 2,000 took 7 s, 20,000 over a minute),
    so it decides which engines are asked, before any is.
    """
    return max((_nested(av[2], _count(av), False) for op, av in _walk(items)), default=1)


def _count(av: Any) -> int:
    low, high, _sub = av
    return max(1, int(low if high is sre.MAXREPEAT else high))


def _nested(items: Any, outer: int, inside: bool) -> int:
    inner = [_nested(av[2], outer * _count(av), True) for _op, av in _walk(list(items))]
    return max(inner, default=outer if inside else 1)


def _walk(items: list[Any]) -> list[tuple[Any, Any]]:
    """The nodes of `items` down to (not into) the first repeats: groups and branches are looked through."""
    found: list[tuple[Any, Any]] = []
    for op, av in items:
        if op in _REPEATS:
            found.append((op, av))
        elif op is sre.SUBPATTERN:
            found.extend(_walk(list(av[3])))
        elif op is sre.ATOMIC_GROUP or op in (sre.ASSERT, sre.ASSERT_NOT):
            found.extend(_walk(list(av if op is sre.ATOMIC_GROUP else av[1])))
        elif op is sre.BRANCH:
            for branch in av[1]:
                found.extend(_walk(list(branch)))
        elif op is sre.GROUPREF_EXISTS:
            found.extend(_walk(list(av[1])) + (_walk(list(av[2])) if av[2] else []))
    return found


def _char(code: int) -> str:
    char = chr(code)
    if char.isascii() and (char.isalnum() or char == "_"):
        return char
    return f"\\x{{{code:x}}}"


class _Emitter:
    """wide=False: exact on ASCII lines. wide=True: a superset of Python's matches on any line."""

    def __init__(self, wide: bool) -> None:
        self.wide = wide
        self.exact = True
        self.sensitive = False

    def seq(self, items: list[Any], icase: bool) -> str:
        return "".join(self.item(op, av, icase) for op, av in items)

    def item(self, op: Any, av: Any, icase: bool) -> str:
        if icase:
            self.sensitive = True
        if op is sre.LITERAL:
            return self.literal(av, icase)
        if op is sre.NOT_LITERAL:
            return "[^" + _char(av) + "\\n]"
        if op is sre.ANY:
            return _ANY_BUT_NEWLINE
        if op is sre.IN:
            return self.klass(av, icase)
        if op is sre.BRANCH:
            return "(?:" + "|".join(self.seq(list(b), icase) for b in av[1]) + ")"
        if op is sre.SUBPATTERN:
            _group, add, remove, sub = av
            inner = (icase or bool(add & re.IGNORECASE)) and not remove & re.IGNORECASE
            body = self.seq(list(sub), inner)
            if inner != icase:
                self.sensitive = self.sensitive or inner
                return ("(?i:" if inner else "(?-i:") + body + ")"
            return "(?:" + body + ")"
        if op is sre.ATOMIC_GROUP:
            self.exact = False
            return "(?:" + self.seq(list(av), icase) + ")"
        if op in _REPEATS:
            return self.repeat(op, av, icase)
        if op is sre.AT:
            return self.anchor(av)
        if op in (sre.ASSERT, sre.ASSERT_NOT):
            self.exact = False
            return ""
        if op is sre.GROUPREF:
            self.exact = False
            return _ANY_BUT_NEWLINE + "*"
        if op is sre.GROUPREF_EXISTS:
            self.exact = False
            _group, yes, no = av
            return "(?:" + self.seq(list(yes), icase) + "|" + (self.seq(list(no), icase) if no else "") + ")"
        raise Untranslatable(f"node {op}")

    def literal(self, code: int, icase: bool) -> str:
        if code == 10:
            return _IMPOSSIBLE
        if icase and code > 127:  # may fold to an ASCII letter (the Kelvin sign to k): any character, re-checked
            self.exact = False
            return _ANY_BUT_NEWLINE
        if icase and self.wide and chr(code).lower() in _FOLDS_TO_ASCII:
            return "[" + _char(code) + _FOLDS_TO_ASCII[chr(code).lower()] + "]"
        return _char(code)

    def repeat(self, op: Any, av: Any, icase: bool) -> str:
        low, high, sub = av
        if op is sre.POSSESSIVE_REPEAT:
            self.exact = False
        body = "(?:" + self.seq(list(sub), icase) + ")"
        if low > MAX_COUNT or (high is not sre.MAXREPEAT and high > MAX_COUNT):
            self.exact = False
            low, high = min(low, MAX_COUNT), sre.MAXREPEAT
        if high is sre.MAXREPEAT:
            quantifier = "*" if low == 0 else "+" if low == 1 else f"{{{low},}}"
        elif low == high:
            quantifier = f"{{{low}}}"
        else:
            quantifier = f"{{{low},{high}}}"
        return body + quantifier + ("?" if op is sre.MIN_REPEAT else "")

    def anchor(self, at: Any) -> str:
        if at in (sre.AT_BEGINNING, sre.AT_BEGINNING_STRING, sre.AT_BEGINNING_LINE):
            return "^"
        if at in (sre.AT_END, sre.AT_END_STRING, sre.AT_END_LINE):
            return "$"
        if at in (sre.AT_BOUNDARY, sre.AT_NON_BOUNDARY):
            self.sensitive = True
            if self.wide:
                return ""
            return "\\b" if at is sre.AT_BOUNDARY else "\\B"
        raise Untranslatable(f"anchor {at}")

    def klass(self, items: list[Any], icase: bool) -> str:
        negate = any(op is sre.NEGATE for op, _ in items)
        if self.wide and negate and any(op is sre.CATEGORY for op, _ in items):
            self.sensitive = True
            return _ANY_BUT_NEWLINE
        parts: list[str] = []
        for op, av in items:
            if op is sre.NEGATE:
                continue
            if op is sre.LITERAL:
                self.sensitive = self.sensitive or av > 127
                if av != 10:
                    parts.append(_char(av))
            elif op is sre.RANGE:
                low, high = av
                self.sensitive = self.sensitive or high > 127
                parts.extend(_range_without_newline(low, high))
            elif op is sre.CATEGORY:
                self.sensitive = True
                parts.append((_WIDE_CATEGORY.get(av) if self.wide else None) or _CATEGORY[av])
            else:
                raise Untranslatable(f"class member {op}")
        if negate:
            return "[^" + "".join(parts) + "\\n]"
        if not parts:
            return _IMPOSSIBLE
        klass = "[" + "".join(parts) + "]"
        if icase and self.wide:
            if any((op is sre.LITERAL and a > 127) or (op is sre.RANGE and a[1] > 127) for op, a in items):
                return _ANY_BUT_NEWLINE
            return "(?:" + klass + "|[" + "".join(_FOLDS_TO_ASCII.values()) + "])"
        return klass


def _range_without_newline(low: int, high: int) -> list[str]:
    if not low <= 10 <= high:
        return [_char(low) + "-" + _char(high)]
    parts = []
    if low < 10:
        parts.append(_char(low) + "-" + _char(9))
    if high > 10:
        parts.append(_char(11) + "-" + _char(high))
    return parts
