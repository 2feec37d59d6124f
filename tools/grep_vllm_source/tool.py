"""grep_vllm_source: regex search over the vLLM tree at one tag, one linear-time scan of its pack.

Semantics are ripgrep's (`rg --no-ignore --hidden`): one result per matching line,
binary files skipped, `path_glob` as in `rg -g`. Results are capped at `max_results`
and say so (`truncated`, `total_matches`, a hint to narrow the search).
"""

from __future__ import annotations

from vllm_quant_mcp.knowledge.search.grep import search
from vllm_quant_mcp.knowledge.search.index import SearchIndex
from vllm_quant_mcp.knowledge.search.lines import surrounding_lines
from vllm_quant_mcp.knowledge.search.loading import index_for
from vllm_quant_mcp.knowledge.sources.tree import SourceTree, clip_line
from vllm_quant_mcp.tools.context import ToolContext
from vllm_quant_mcp.tools.paging import Window

from .models import GrepMatch, GrepQuery, GrepResult

__all__ = ["grep_tree", "grep_vllm_source"]


def grep_vllm_source(ctx: ToolContext, query: GrepQuery) -> GrepResult:
    """Fetch the tree of the tag into the cache once, then scan its pack for the page the cursor asks for."""
    window = Window.of(query, "grep_vllm_source", query.max_results, ignore=("max_results",))
    tree, note = ctx.tree(query.tag)
    upto = query.model_copy(update={"max_results": window.offset + window.limit})
    found = grep_tree(tree, index_for(tree), upto, skip=window.offset)
    window.check(found.total_matches)
    shown = window.take(found.matches, skipped=window.offset)
    page = window.fields(len(shown), found.total_matches)
    hint = None
    if page["next"]:
        hint = (
            "narrow with path_glob (e.g. 'vllm/model_executor/layers/quantization/**') or a more specific pattern, "
            "or page on with cursor."
        )
    more = bool(page["next"])
    return found.model_copy(update={"matches": shown, "truncated": more, "hint": hint, "note": note, **page})


def grep_tree(tree: SourceTree, index: SearchIndex, query: GrepQuery, skip: int = 0) -> GrepResult:
    """Matching lines of the tree at its tag, those before `skip` left out (a later page builds only its own);
    raises InvalidPatternError or PatternTimeoutError (ValueErrors)."""
    found = search(
        index,
        query.pattern,
        fixed_string=query.fixed_string,
        ignore_case=query.ignore_case,
        path_glob=query.path_glob,
        keep=query.max_results,
        skip=skip,
    )
    matches = []
    for hit in found.hits:
        path = index.paths[hit.file_id]
        before, after = surrounding_lines(index, hit, query.context)
        matches.append(
            GrepMatch(
                path=path,
                line=hit.line,
                text=clip_line(index.pack.blob[hit.start : hit.end].decode("utf-8", "replace"), hit.span),
                before=[clip_line(b) for b in before],
                after=[clip_line(a) for a in after],
                permalink=tree.permalink(path, hit.line),
            )
        )
    truncated = found.total > skip + len(matches)
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
