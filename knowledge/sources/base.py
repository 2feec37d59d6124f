"""The one interface every source implements: put the tree at a tag into an empty directory."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal, Protocol

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from ..echo import redact

__all__ = ["Source", "SourceInfo"]


class SourceInfo(BaseModel):
    """How a tree was obtained: recorded beside it and in every registry derived from it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Literal["git", "pypi", "wheel", "dir"]
    # Credentials in a remote or mirror URL are stripped here, once, so no stored record, registry or note holds them.
    origin: Annotated[str, AfterValidator(redact)] = Field(
        description="Remote URL, index URL of the file, or directory the tree came from."
    )
    commit: str | None = None
    sha256: str | None = None


class Source(Protocol):
    """Where a vLLM tree at a tag comes from (git, package index sdist or wheel, a directory)."""

    kind: str

    def fetch(self, tag: str, dest: Path) -> SourceInfo:
        """Fill the empty directory `dest` with the tree at `tag` (vllm/ at its top) and say where it came from.

        On failure `dest` may hold a partial tree; the caller owns it and throws it away.
        """
        ...
