"""grep_vllm_source: regex search over the vLLM tree at one tag, answered from the trigram index.

Semantics are ripgrep's (`rg --no-ignore --hidden`): one result per matching line,
binary files skipped, `path_glob` as in `rg -g`. Results are capped at `max_results`
and say so (`truncated`, `total_matches`, a hint to narrow the search).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from vllm_quant_mcp.knowledge.index import SourceIndex, search, surrounding_lines
from vllm_quant_mcp.knowledge.tree import SourceTree

__all__ = ["MAX_LINE_CHARS", "GrepMatch", "GrepQuery", "GrepResult", "grep_vllm_source"]

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


def grep_vllm_source(tree: SourceTree, index: SourceIndex, query: GrepQuery) -> GrepResult:
    """Matching lines of the tree at its tag; raises InvalidPatternError or PatternTimeoutError (ValueErrors)."""
    found = search(
        index,
        query.pattern,
        fixed_string=query.fixed_string,
        ignore_case=query.ignore_case,
        path_glob=query.path_glob,
        keep=query.max_results,
    )
    matches = []
    for hit in found.hits:
        text = index.texts[hit.file_id]
        path = index.paths[hit.file_id]
        before, after = surrounding_lines(text, hit, query.context)
        matches.append(
            GrepMatch(
                path=path,
                line=hit.line,
                text=_clip(text[hit.start : hit.end]),
                before=[_clip(b) for b in before],
                after=[_clip(a) for a in after],
                permalink=tree.permalink(path, hit.line),
            )
        )
    truncated = found.total > len(matches)
    hint = None
    if truncated:
        hint = (
            f"showing {len(matches)} of {found.total} matching lines; narrow with path_glob "
            "(e.g. 'vllm/model_executor/layers/quantization/**'), a more specific pattern, "
            "or raise max_results (<= 500)."
        )
    return GrepResult(
        tag=tree.tag,
        pattern=query.pattern,
        matches=matches,
        total_matches=found.total,
        files_searched=found.files_searched,
        truncated=truncated,
        hint=hint,
    )


def _clip(line: str) -> str:
    if len(line) <= MAX_LINE_CHARS:
        return line
    return f"{line[:MAX_LINE_CHARS]}… [line continues for {len(line) - MAX_LINE_CHARS} more characters]"
