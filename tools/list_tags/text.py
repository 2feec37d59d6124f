"""`list_tags` for people: one tag a line, where its registry comes from, the default marked."""

from __future__ import annotations

from .models import KnownTag, TagList

__all__ = ["render"]


def _origin(known: KnownTag) -> str:
    parts = [name for name, present in (("bundled", known.bundled), ("refreshed", known.refreshed)) if present]
    return " + ".join(parts) + (", tree cached" if known.tree else "")


def render(result: TagList) -> str:
    return "\n".join(
        f"{k.tag}  {_origin(k)}{'  (default)' if k.tag == result.default_tag else ''}" for k in result.known
    )
