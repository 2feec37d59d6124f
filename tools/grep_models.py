"""The shapes `grep_vllm_source` takes and answers in.

Apart from the search, which loads the regex engine and the index, so registering the
tool loads neither.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field, model_validator

__all__ = ["MAX_LINE_CHARS", "GrepMatch", "GrepQuery", "GrepResult", "clip_line"]

MAX_LINE_CHARS = 1000
_NEWLINE_ESCAPE = re.compile(r"(?<!\\)(?:\\\\)*\\n")  # \n after an even number of backslashes


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

    @model_validator(mode="after")
    def _one_line(self) -> GrepQuery:
        # Matches never cross a line (as with rg), and the trigram index cannot hold a NUL.
        if "\x00" in self.pattern:
            raise ValueError("the pattern holds a NUL character; source files hold none, so it cannot match")
        if "\n" in self.pattern or (not self.fixed_string and _NEWLINE_ESCAPE.search(self.pattern)):
            raise ValueError("matches are within one line; search for one line's text (no newline, no \\n)")
        return self


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
    counted_all: bool = Field(default=True, description="False: total_matches is a lower bound (time ran out).")
    files_searched: int = Field(description="Files the regex ran over after the index prefilter.")
    truncated: bool
    hint: str | None = None
    note: str | None = Field(default=None, description="Set when the tree was fetched for this call.")


def clip_line(line: str) -> str:
    """A line as tools show it: minified assets run to megabytes on one line, which no agent should be sent."""
    if len(line) <= MAX_LINE_CHARS:
        return line
    return f"{line[:MAX_LINE_CHARS]}… [line continues for {len(line) - MAX_LINE_CHARS} more characters]"
