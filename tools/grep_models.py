"""The shapes `grep_vllm_source` takes and answers in.

Apart from the search, which loads the regex engine and the index, so the MCP server
can build its schemas at start-up without either.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["MAX_LINE_CHARS", "GrepMatch", "GrepQuery", "GrepResult"]

MAX_LINE_CHARS = 1000


class GrepQuery(BaseModel):
    model_config = ConfigDict(extra="forbid")

    pattern: str = Field(
        min_length=1,
        max_length=1000,
        description="Regular expression (Python syntax), matched within single lines, e.g. 'def get_min_capability'.",
    )
    path_glob: str | None = Field(
        default=None,
        max_length=300,
        description="Only search paths matching this glob, as `rg -g`: 'vllm/model_executor/**', '*.py', '!tests/**'.",
    )
    fixed_string: bool = Field(default=False, description="Treat the pattern as literal text, not a regex.")
    ignore_case: bool = Field(default=False, description="Match letters in either case.")
    context: int = Field(default=0, ge=0, le=10, description="Lines of context before and after each match.")
    max_results: int = Field(default=100, ge=1, le=500, description="Most matching lines to return.")


class GrepMatch(BaseModel):
    path: str
    line: int
    text: str = Field(description=f"The matching line; lines over {MAX_LINE_CHARS} characters end with a note.")
    before: list[str] = Field(default_factory=list)
    after: list[str] = Field(default_factory=list)
    permalink: str


class GrepResult(BaseModel):
    tag: str
    pattern: str
    matches: list[GrepMatch]
    total_matches: int = Field(description="All matching lines, including those past max_results.")
    files_searched: int = Field(description="Files the regex ran over after the index prefilter.")
    truncated: bool
    hint: str | None = None
    note: str | None = Field(default=None, description="Set when the tree was fetched for this call.")
