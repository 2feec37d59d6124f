"""vLLM release tags: validation at the edge, ordering, and "did you mean" hints.

A tag is user input that ends up in git commands, file names and URLs, so it is
checked against a strict pattern before anything else sees it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from vllm_quant_mcp.knowledge.echo import clip
from vllm_quant_mcp.knowledge.errors import InvalidInputError, NotFoundError

__all__ = [
    "MAX_TAG_CHARS",
    "InvalidTagError",
    "UnknownTagError",
    "nearest_tags",
    "normalize_tag",
    "pypi_version",
    "tag_key",
]

MAX_TAG_CHARS = 32  # the longest real tag, v0.6.1.post2, is 12: room for padding, none for a payload

# v0.32.0, v0.9.0.1, v0.6.1.post2, v0.4.0rc1 — never a leading dash, never a path. ASCII digits only: `\d`
# would also take Arabic-Indic digits, and `v\u0663.\u0662.\u0661` would reach a lock file's name and git's refspec.
_TAG_RE = re.compile(r"^v?([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})(\.[0-9]{1,3})?(\.?post[0-9]{1,3}|rc[0-9]{1,3})?$")


class InvalidTagError(InvalidInputError):
    """The text is not shaped like a vLLM release tag."""


class UnknownTagError(NotFoundError):
    """The tag is well formed but no release with it is known here."""

    def __init__(self, tag: str, suggestions: list[str]) -> None:
        self.tag = tag
        self.suggestions = suggestions
        hint = f" Nearest known tags: {', '.join(suggestions)}." if suggestions else ""
        super().__init__(
            f"Unknown vLLM tag {tag!r}.{hint} `vllm-quant-mcp tags` lists the known ones; "
            f"`vllm-quant-mcp refresh --tag {tag}` adds a release that exists upstream."
        )


def normalize_tag(text: str) -> str:
    """Return the canonical `vX.Y.Z[...]` form, or raise InvalidTagError naming the fix."""
    candidate = text.strip()
    if len(candidate) > MAX_TAG_CHARS or not _TAG_RE.fullmatch(candidate):
        raise InvalidTagError(
            f"{clip(text)} is not a vLLM release tag; expected the form v0.32.0 (or 0.32.0, v0.6.1.post2)."
        )
    return candidate if candidate.startswith("v") else f"v{candidate}"


def pypi_version(tag: str) -> str:
    """The package-index version for a tag: v0.32.0 -> 0.32.0."""
    return normalize_tag(tag)[1:]


def tag_key(tag: str) -> tuple[int, ...]:
    """Sort key that orders releases the way vLLM numbers them (post releases after, rc before)."""
    match = _TAG_RE.fullmatch(tag)
    if match is None:
        raise InvalidTagError(f"{clip(tag)} is not a vLLM release tag; expected the form v0.32.0.")
    major, minor, patch, fourth, suffix = match.groups()
    base = [int(major), int(minor), int(patch), int(fourth[1:]) if fourth else 0]
    if suffix is None:
        return (*base, 0, 0)
    number = int(re.sub(r"[^0-9]", "", suffix))
    return (*base, 1, number) if "post" in suffix else (*base, -1, number)


def nearest_tags(tag: str, known: Iterable[str], limit: int = 3) -> list[str]:
    """Known tags closest to `tag` by release number, for error messages an agent can act on."""
    pool = sorted(set(known), key=tag_key)
    if not pool:
        return []
    try:
        target = tag_key(normalize_tag(tag))
    except InvalidTagError:
        return pool[-limit:][::-1]

    def distance(candidate: str) -> tuple[int, ...]:
        key = tag_key(candidate)
        return tuple(abs(a - b) for a, b in zip(key, target, strict=True))

    return sorted(pool, key=distance)[:limit]
