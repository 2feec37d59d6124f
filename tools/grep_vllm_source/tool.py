"""grep_vllm_source: regex search over the vLLM tree at one tag, one linear-time scan of its pack.

Semantics are ripgrep's (`rg --no-ignore --hidden`): one result per matching line,
binary files skipped, `path_glob` as in `rg -g`. Results are capped at `max_results`
and say so (`truncated`, `total_matches`, a hint to narrow the search).
"""

from __future__ import annotations

from vllm_quant_mcp.knowledge.search.grep import LineHit, search
from vllm_quant_mcp.knowledge.search.index import SearchIndex, index_for
from vllm_quant_mcp.knowledge.sources.tree import SourceTree, clip_line
from vllm_quant_mcp.tools.context import ToolContext

from .models import GrepMatch, GrepQuery, GrepResult

__all__ = ["grep_tree", "grep_vllm_source"]


def grep_vllm_source(ctx: ToolContext, query: GrepQuery) -> GrepResult:
    """Fetch the tree of the tag into the cache once, then scan its pack."""
    tree, note = ctx.tree(query.tag)
    return grep_tree(tree, index_for(tree), query).model_copy(update={"note": note})


def grep_tree(tree: SourceTree, index: SearchIndex, query: GrepQuery) -> GrepResult:
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
        path = index.paths[hit.file_id]
        before, after = surrounding_lines(index, hit, query.context)
        matches.append(
            GrepMatch(
                path=path,
                line=hit.line,
                text=clip_line(_decode(index.pack.blob[hit.start : hit.end])),
                before=[clip_line(b) for b in before],
                after=[clip_line(a) for a in after],
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
        counted_all=found.counted_all,
        files_searched=found.files_searched,
        truncated=truncated,
        hint=hint,
    )


def _decode(data: bytes) -> str:
    return data.decode("utf-8", "replace")


def surrounding_lines(index: SearchIndex, hit: LineHit, count: int) -> tuple[list[str], list[str]]:
    """Up to `count` lines before and after a hit's line, within its file."""
    if count == 0:
        return [], []
    blob = index.pack.blob
    first, last = index.pack.starts[hit.file_id], index.pack.ends[hit.file_id]
    before: list[str] = []
    start = hit.start
    while len(before) < count and start > first:
        previous = max(blob.rfind(b"\n", first, start - 1) + 1, first)
        before.append(_decode(blob[previous : start - 1]))
        start = previous
    before.reverse()
    after: list[str] = []
    end = hit.end
    while len(after) < count and end + 1 < last:
        following = blob.find(b"\n", end + 1, last)
        after.append(_decode(blob[end + 1 : following]))
        end = following
    return before, after
