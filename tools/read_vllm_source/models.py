"""The shapes `read_vllm_source` takes and answers in."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, model_validator

from vllm_quant_mcp.tools.spec import Cli, Tag

__all__ = ["MAX_LINES", "ReadQuery", "ReadResult"]

MAX_LINES = 400


class ReadQuery(BaseModel):
    model_config = ConfigDict(extra="forbid")

    path: Annotated[
        str,
        Cli(positional=True),
        Field(min_length=1, max_length=1000, description="Repo-relative, e.g. vllm/envs.py."),
    ]
    tag: Tag = None
    start_line: Annotated[int, Field(ge=1)] = 1
    end_line: Annotated[int | None, Field(ge=1)] = None

    @model_validator(mode="after")
    def _ordered(self) -> ReadQuery:
        if self.end_line is not None and self.end_line < self.start_line:
            raise ValueError(f"end_line {self.end_line} is before start_line {self.start_line}; swap them.")
        return self


class ReadResult(BaseModel):
    tag: str
    path: str
    start_line: int
    end_line: int = Field(description="Last line included (start_line - 1 for an empty file).")
    total_lines: int
    text: str = Field(description="The lines start_line..end_line, newline-joined; very long lines are clipped.")
    next_start_line: int | None = Field(description="Where the next page starts; null when the file or range is done.")
    permalink: str
    note: str | None = Field(default=None, description="Set when the tree was fetched for this call.")
