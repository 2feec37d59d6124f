"""A message vLLM printed, matched against the format strings of the message sites that could have printed it.

What an operator pastes is filled in (`Unknown quantization method: 'fp9'`), wrapped (`ValueError: ...`,
pydantic's `Value error, ... [type=value_error, ...]`, a log line's `WARNING 12-01 10:00:00 [nvfp4.py:101]`
prefix) and sometimes vLLM's own tuple (`('... %s ...', 'fbgemm_fp8')`: an exception built with a second
argument, so the placeholder was never filled). Unwrapping is done once (`unwrap`); each site's format
string becomes a pattern whose literal pieces must appear in order, its placeholders standing for whatever
vLLM filled in (or `%s` itself, when it filled nothing). A site whose literal text is too short to tell
it from another is never matched on its placeholders alone.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from vllm_quant_mcp.knowledge.registry.model import MessageSite, MessageStyle

__all__ = ["MAX_INPUT_CHARS", "Hit", "Said", "base_message", "match_sites", "nearest_sites", "unwrap"]

MAX_INPUT_CHARS = 8_000
MIN_LITERAL_CHARS = 12
MAX_LINES = 80
Match = Literal["exact", "contains", "fragment"]

_LOG_PREFIX = re.compile(
    r"^(?:\(\w+ pid=\d+\)\s*)?(?:DEBUG|INFO|WARNING|ERROR|CRITICAL)\s+\d\d-\d\d\s+[\d:.]+\s+(?:\[[^\]]*\]\s*)+"
)
_EXCEPTION = re.compile(r"^(?:[A-Za-z_][\w.]*\.)?(?P<cls>[A-Z]\w*(?:Error|Exception|Warning))\s*:\s*")
_PYDANTIC = re.compile(r"^(?:Value|Assertion) error,\s*")
_PYDANTIC_TAIL = re.compile(r"\s*\[type=\w+, input_value=.*$", re.DOTALL)
_TUPLE = re.compile(r"""^\(\s*(?P<q>['"])(?P<message>.*?)(?P=q)\s*,\s*(?P<args>.*?),?\s*\)$""", re.DOTALL)
_PERCENT = re.compile(r"%(?:\([^)]*\))?[#0\- +]*(?:\d+|\*)?(?:\.\d+)?[sdirfFgGeExXoca]")
_BRACES = re.compile(r"\{[^{}]*\}")


@dataclass(frozen=True)
class Said:
    """One candidate line of what was pasted, unwrapped: the message, the exception named, unfilled arguments."""

    message: str
    raised: str | None
    unfilled: str | None  # the arguments of vLLM's tuple, `'fbgemm_fp8'`


@dataclass(frozen=True)
class Hit:
    site: MessageSite
    said: Said
    match: Match
    filled: tuple[tuple[str, str], ...]  # placeholder as written -> what vLLM put there


def unwrap(pasted: str) -> list[Said]:
    """Each line worth matching (a traceback's last lines first), and the whole paste joined as one line."""
    lines = [ln.strip() for ln in pasted[:MAX_INPUT_CHARS].splitlines() if ln.strip()]
    candidates = list(reversed(lines[-MAX_LINES:]))
    if len(lines) > 1:
        candidates.append(" ".join(lines))
    found: list[Said] = []
    for candidate in candidates:
        said = _unwrap_line(candidate)
        if said.message and said not in found:
            found.append(said)
    return found


def _unwrap_line(text: str) -> Said:
    text = _LOG_PREFIX.sub("", text)
    raised = None
    if exception := _EXCEPTION.match(text):
        raised, text = exception.group("cls"), text[exception.end() :]
    text = _PYDANTIC_TAIL.sub("", _PYDANTIC.sub("", text))
    unfilled = None
    if as_tuple := _TUPLE.match(text.strip()):
        text, unfilled = as_tuple.group("message"), as_tuple.group("args").strip()
    return Said(" ".join(text.split()), raised, unfilled)


def _pieces(template: str, style: MessageStyle) -> tuple[list[str], list[str]]:
    """The literal pieces of a format string and the placeholders between them (one fewer)."""
    if style in {"percent", "unfilled"}:
        marks = list(_PERCENT.finditer(template.replace("%%", "\0")))
        literal = template.replace("%%", "\0")
    elif style in {"f-string", "format"}:
        literal = template.replace("{{", "\1").replace("}}", "\2")
        marks = list(_BRACES.finditer(literal))
    else:
        return [template], []
    pieces, holders, at = [], [], 0
    for mark in marks:
        pieces.append(_restore(literal[at : mark.start()]))
        holders.append(mark.group())
        at = mark.end()
    pieces.append(_restore(literal[at:]))
    return pieces, holders


def _restore(piece: str) -> str:
    return piece.replace("\0", "%").replace("\1", "{").replace("\2", "}")


@lru_cache(maxsize=65_536)
def _compiled(template: str, style: MessageStyle) -> tuple[re.Pattern[str], tuple[str, ...], str] | None:
    """The site's pattern, its placeholders, and its longest literal piece (tested first, as a plain substring)."""
    pieces, holders = _pieces(template, style)
    if sum(len(p.strip()) for p in pieces) < MIN_LITERAL_CHARS:
        return None
    body = "(.*?)".join(r"\s*".join(re.escape(w) for w in p.split(" ")) for p in pieces)
    return re.compile(body, re.DOTALL | re.IGNORECASE), tuple(holders), max(pieces, key=len).strip().lower()


def match_sites(sites: list[MessageSite], pasted: list[Said]) -> list[Hit]:
    """The sites whose message is what was pasted (exact), inside it (contains), or holds it (fragment)."""
    hits: list[Hit] = []
    for site in sites:
        template = base_message(site.name)
        compiled = _compiled(template, site.style)
        if compiled is None:
            continue
        pattern, holders, longest = compiled
        for said in pasted:
            lowered = said.message.lower()
            if longest and longest not in lowered:
                if len(lowered) >= MIN_LITERAL_CHARS * 2 and lowered in template.lower():
                    hits.append(Hit(site, said, "fragment", ()))
                    break
                continue
            found = pattern.fullmatch(said.message) or pattern.search(said.message)
            if found is None:
                continue
            how: Match = "exact" if found.span() == (0, len(said.message)) else "contains"
            filled = tuple(zip(holders, (g.strip() for g in found.groups()), strict=True))
            hits.append(Hit(site, said, how, filled))
            break
    order = {"exact": 0, "contains": 1, "fragment": 2}
    return sorted(hits, key=lambda h: (order[h.match], -_literal_chars(h.site), h.site.provenance.path))


def nearest_sites(sites: list[MessageSite], pasted: list[Said], limit: int) -> list[tuple[MessageSite, float]]:
    """The messages most like what was pasted, for a paste that matches none: candidates, never a verdict."""
    scored: dict[str, tuple[MessageSite, float]] = {}
    for said in pasted[:3]:
        words = set(_words(said.message))
        if not words:
            continue
        for site in sites:
            overlap = len(words & set(_words(site.name))) / len(words)
            if overlap < 0.3:
                continue
            ratio = difflib.SequenceMatcher(None, said.message.lower(), base_message(site.name).lower()).ratio()
            score = round(max(ratio, overlap * 0.9), 2)
            said_as = base_message(site.name)  # a second site saying the same is no second candidate
            if score > scored.get(said_as, (site, 0.0))[1]:
                scored[said_as] = (site, score)
    return sorted(scored.values(), key=lambda s: -s[1])[:limit]


def base_message(name: str) -> str:
    """A site's message without the ` #2` that tells a second site saying the same apart."""
    head, sep, tail = name.rpartition(" #")
    return head if sep and tail.isdigit() else name


def _literal_chars(site: MessageSite) -> int:
    return sum(len(p) for p in _pieces(base_message(site.name), site.style)[0])


def _words(text: str) -> list[str]:
    return [w for w in re.findall(r"[a-z][a-z0-9_]{3,}", text.lower())]
