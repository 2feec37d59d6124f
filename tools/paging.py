"""Pages of a result that can grow: at most `limit` items and about PAGE_CHARS of JSON, and a cursor for the rest.

An agent reads a tool result in one turn, so no page may run past what it can take in
(~8k tokens) whatever the items hold: a page ends at `limit` items or when the items'
JSON would pass PAGE_CHARS, whichever comes first, and always holds at least one item.
The cursor is the offset of the next item plus a fingerprint of the other arguments,
so a cursor passed with a different question is refused instead of answering from the
middle of another result.

    window = Window.of(query, "get_registry", query.limit)   # the offset, the cursor checked
    shown = window.take(items)                # this page's items
    return Result(..., total=len(items), **window.fields(len(shown), len(items)))
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, Field

from vllm_quant_mcp.knowledge.echo import clip
from vllm_quant_mcp.knowledge.errors import InvalidInputError

__all__ = ["PAGE_CHARS", "Cursor", "Limit", "Page", "Window", "json_size", "more_line", "permalink_line"]

T = TypeVar("T")

PAGE_CHARS = 20_000  # the items' JSON per page: ~6k tokens, leaving room for the rest of the result

# The `next` of the previous page: MCP's own name for the thing (resources/list), so no description repeats it.
Cursor = Annotated[str | None, Field(max_length=24)]  # an offset of at most 9 digits, a dot, 8 hex digits


# The page size of a query: at most this many items (a page also ends at ~PAGE_CHARS). The schema shows
# the default and the maximum, so no description repeats them.
Limit = Annotated[int, Field(ge=1, le=500)]


class Page(BaseModel):
    """What a result that pages adds to its fields (its total is its own; the cursor holds the offset)."""

    next: str | None = Field(default=None, description="Pass as cursor for the next page; null on the last.")


def json_size(item: Any) -> int:
    """Characters of an item's JSON, the measure a page's budget is kept in."""
    if isinstance(item, BaseModel):
        return len(item.model_dump_json())
    return len(json.dumps(item, default=str))


def _fingerprint(query: BaseModel, ignore: tuple[str, ...]) -> str:
    asked = query.model_dump(mode="json", exclude={"cursor", *ignore})
    return hashlib.blake2b(json.dumps(asked, sort_keys=True).encode(), digest_size=4).hexdigest()


@dataclass(frozen=True)
class Window:
    """One page of a query: where it starts, how many items at most, and the fingerprint its cursors carry."""

    offset: int
    limit: int
    key: str
    budget: int = PAGE_CHARS

    @classmethod
    def of(cls, query: BaseModel, tool: str, limit: int, ignore: tuple[str, ...] = ("limit",)) -> Window:
        """The window a query asks for; `ignore` names the arguments a cursor carries over (the page size)."""
        key = _fingerprint(query, ignore)
        cursor: str | None = getattr(query, "cursor", None)
        if not cursor:
            return cls(0, limit, key)
        offset, _, mark = cursor.partition(".")
        if not (offset.isdigit() and len(offset) < 10 and len(mark) == len(key)):
            raise InvalidInputError(
                f"cursor {clip(cursor)} is not one {tool} gave; pass the `next` of the previous page, "
                "or omit cursor for the first page."
            )
        if mark != key:
            raise InvalidInputError(
                f"cursor {clip(cursor)} is from a {tool} call with other arguments; repeat that call's arguments "
                "with it, or omit cursor to start this question from its first page."
            )
        return cls(int(offset), limit, key)

    def check(self, total: int) -> None:
        """Refuse an offset past the result's real size: the fingerprint is no secret, so a client can forge a
        cursor (999999999.<hash>), and no page may cost more than the result it is a page of."""
        if self.offset and self.offset >= total:
            raise InvalidInputError(
                f"cursor offset {self.offset:,} is past the end of this result ({total:,} items); pass the "
                "`next` of the previous page, or omit cursor for the first page."
            )

    def take(self, items: Sequence[T], size: Callable[[T], int] = json_size, skipped: int = 0) -> list[T]:
        """This page's items: from the offset, at most `limit`, ending before the budget is passed. `skipped`:
        how many items before `items` the caller left out (they were never built)."""
        self.check(skipped + len(items))
        shown: list[T] = []
        spent = 0
        start = self.offset - skipped
        for item in items[start : start + self.limit]:
            spent += size(item)
            if shown and spent > self.budget:
                break
            shown.append(item)
        return shown

    def cursor_after(self, shown: int, total: int) -> str | None:
        after = self.offset + shown
        return f"{after}.{self.key}" if after < total else None

    def fields(self, shown: int, total: int) -> dict[str, Any]:
        """The Page fields of a result showing `shown` items of `total` from this window."""
        return {"next": self.cursor_after(shown, total)}


def more_line(page: Page, shown: int, total: int | None, what: str, at_least: bool = False) -> str:
    """The line that tells a reader how much of the whole this page holds and how to get the next one."""
    whole = "" if total is None else f" of {'at least ' if at_least else ''}{total}"
    if not shown:
        return f"no {what}" if total == 0 else f"no {what} on this page{whole}; omit cursor for the first page."
    if total == shown and page.next is None:
        return f"{total} {what}, all on this page"
    span = f"{shown}{whole} {what} on this page"
    return f"{span}; next page: cursor={json.dumps(page.next)}" if page.next else span


def permalink_line(permalink: str, path: str, line: int) -> str:
    """One line that says how each `path:line` of a text listing becomes its permalink (the text omits them)."""
    base = permalink.removesuffix(f"{path}#L{line}")
    return f"permalink of path:line = {base}<path>#L<line>" if base != permalink else f"e.g. {permalink}"
