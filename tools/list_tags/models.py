"""The shapes `list_tags` takes and answers in."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["KnownTag", "ListTagsQuery", "TagList"]


class ListTagsQuery(BaseModel):
    """No parameters: the known tags are the server's state."""

    model_config = ConfigDict(extra="forbid")


class KnownTag(BaseModel):
    tag: str
    bundled: bool = Field(description="Shipped with the package.")
    refreshed: bool = Field(description="Refreshed into the cache (wins over bundled).")
    tree: bool = Field(description="Source tree cached: grep needs no download.")


class TagList(BaseModel):
    tags: list[str]
    default_tag: str
    known: list[KnownTag] = Field(description="Per tag, oldest first.")
