"""The shapes `list_tags` takes and answers in."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["KnownTag", "ListTagsQuery", "TagList"]


class ListTagsQuery(BaseModel):
    """No parameters: the known tags are the server's state."""

    model_config = ConfigDict(extra="forbid")


class KnownTag(BaseModel):
    tag: str
    bundled: bool = Field(description="Its registry ships with the package.")
    refreshed: bool = Field(description="`refresh` derived its registry into the cache (used over the bundled one).")
    tree: bool = Field(description="Its source tree is cached: grep, read and symbol need no download.")


class TagList(BaseModel):
    tags: list[str]
    default_tag: str
    known: list[KnownTag] = Field(description="Per tag, oldest first: bundled, refreshed, source tree cached.")
