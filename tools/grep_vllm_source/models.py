"""The shapes `grep_vllm_source` takes and answers in.

Apart from the search, which loads the regex engine and the index, so registering the
tool loads neither.
"""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, model_validator

from vllm_quant_mcp.knowledge.sources.tree import MAX_LINE_CHARS
from vllm_quant_mcp.tools.paging import Cursor, Limit, Page
from vllm_quant_mcp.tools.spec import Cli, Tag

__all__ = ["GrepMatch", "GrepQuery", "GrepResult"]

_NEWLINE_ESCAPE = re.compile(r"(?<!\\)(?:\\\\)*\\n")  # \n after an even number of backslashes


class GrepQuery(BaseModel):
    model_config = ConfigDict(extra="forbid")

    pattern: Annotated[
        str,
        Cli(positional=True),
        Field(min_length=1, max_length=1000, description="Python regex, one line at a time."),
    ]
    tag: Tag = None
    path_glob: Annotated[
        str | None, Field(max_length=300, description="e.g. 'vllm/model_executor/**', '!tests/**'.")
    ] = None
    fixed_string: Annotated[bool, Cli(flags=("-F", "--fixed-string"))] = False
    ignore_case: Annotated[bool, Cli(flags=("-i", "--ignore-case"))] = False
    context: Annotated[
        int, Cli(flags=("-C", "--context")), Field(ge=0, le=10, description="Lines before/after each match.")
    ] = 0
    max_results: Limit = 100
    cursor: Cursor = None

    @model_validator(mode="after")
    def _one_line(self) -> GrepQuery:
        # Matches never cross a line (as with rg), and no searched file holds a NUL.
        if "\x00" in self.pattern:
            raise ValueError("the pattern holds a NUL character; source files hold none, so it cannot match")
        if "\n" in self.pattern or (not self.fixed_string and _NEWLINE_ESCAPE.search(self.pattern)):
            raise ValueError("matches are within one line; search for one line's text (no newline, no \\n)")
        return self


class GrepMatch(BaseModel):
    path: str
    line: int
    text: str = Field(description=f"The matching line; past {MAX_LINE_CHARS} characters, clipped around the match.")
    before: list[str] = Field(default_factory=list)
    after: list[str] = Field(default_factory=list)
    permalink: str


class GrepResult(Page):
    tag: str
    pattern: str
    matches: list[GrepMatch]
    total_matches: int = Field(description="All matching lines, on every page.")
    counted_all: bool = Field(default=True, description="False: total_matches is a lower bound (time ran out).")
    files_searched: int = Field(description="Files the regex ran over after the index prefilter.")
    truncated: bool = Field(description="More matches follow this page.")
    hint: str | None = None
    note: str | None = Field(default=None, description="Set when the tree was fetched for this call.")
