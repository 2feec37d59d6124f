"""The shapes `list_tags` takes and answers in."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

__all__ = ["ListTagsQuery", "TagList"]


class ListTagsQuery(BaseModel):
    """No parameters: the known tags are the server's state."""

    model_config = ConfigDict(extra="forbid")


class TagList(BaseModel):
    tags: list[str]
    default_tag: str
