"""find_symbol: where a class, function/method or module-level name is defined at one tag.

Only files that hold the bare name (one literal scan of the pack) are parsed with tree-sitter,
and parsing stops once max_results definitions are found, so a lookup costs a few parses,
not 2.6k, even for names like `forward`. A miss lists the nearest defined names, so an
agent can correct itself; their vocabulary is read once per tree, in a fraction of a second.
"""

from __future__ import annotations

import time

from vllm_quant_mcp.knowledge.errors import InvalidInputError, NotFoundError
from vllm_quant_mcp.knowledge.search.grep import files_containing
from vllm_quant_mcp.knowledge.search.index import SearchIndex
from vllm_quant_mcp.knowledge.search.loading import index_for
from vllm_quant_mcp.knowledge.search.symbols import Definition, SymbolKind, defined_names, definitions, nearest_names
from vllm_quant_mcp.knowledge.sources.tree import SourceTree
from vllm_quant_mcp.tools.context import ToolContext
from vllm_quant_mcp.tools.paging import Window

from .models import SymbolLocation, SymbolQuery, SymbolResult

__all__ = [
    "PARSE_LIMIT",
    "PYTHON_GLOB",
    "SymbolLookupTimeoutError",
    "UnknownSymbolError",
    "find_in_tree",
    "find_symbol",
]

PYTHON_GLOB = "vllm/**/*.py"
PARSE_LIMIT = 3.0  # seconds of parsing a lookup may spend before its first definition (all 2.6k files: ~9 s)


class UnknownSymbolError(NotFoundError):
    """No definition of that name (and kind) in vllm/ at this tag."""


class SymbolLookupTimeoutError(InvalidInputError):
    """The name is so common that parsing ran past its time limit before finding a definition."""


def find_symbol(ctx: ToolContext, query: SymbolQuery) -> SymbolResult:
    """Fetch the tree of the tag into the cache once, then look the name up in its pack, a page at a time.

    The total is not known: parsing stops one definition past the page, so `truncated` (and `next`) say
    whether more follow.
    """
    window = Window.of(query, "find_symbol", query.max_results, ignore=("max_results",))
    tree, note = ctx.tree(query.tag)
    upto = query.model_copy(update={"max_results": window.offset + window.limit})
    found = find_in_tree(tree, index_for(tree), upto)
    shown = window.take(found.definitions)
    more = found.truncated or window.offset + len(shown) < len(found.definitions)
    after = window.cursor_after(len(shown), window.offset + len(shown) + more)
    return found.model_copy(update={"definitions": shown, "truncated": more, "note": note, "next": after})


def find_in_tree(tree: SourceTree, index: SearchIndex, query: SymbolQuery) -> SymbolResult:
    """All definitions of the name under vllm/ at the tree's tag; raises UnknownSymbolError when none."""
    bare = query.name.rsplit(".", 1)[-1]
    suffix = "." + query.name
    found: list[Definition] = []
    chosen: list[Definition] = []
    candidates = _candidates(index, query.name)
    truncated_by_time = False
    stop = time.monotonic() + PARSE_LIMIT
    for parsed, file_id in enumerate(candidates):
        if time.monotonic() > stop and chosen:
            truncated_by_time = True  # a forged cursor far into `forward` costs PARSE_LIMIT, not every file
            break
        if time.monotonic() > stop:
            raise SymbolLookupTimeoutError(
                f"{bare!r} appears in {len(candidates):,} files under vllm/ at {tree.tag}; {parsed:,} were parsed "
                f"in {PARSE_LIMIT:g} s without a definition of {query.name!r}. Qualify the name (Class.method) "
                "or find it with grep_vllm_source."
            )
        for d in definitions(tree, index.paths[file_id]):
            if d.qualified_name == query.name or d.qualified_name.endswith(suffix):
                found.append(d)
                if query.kind is None or d.kind == query.kind:
                    chosen.append(d)
        if len(chosen) > query.max_results:  # common names (forward, __init__) have thousands: stop parsing
            break
    if not chosen:
        raise UnknownSymbolError(_miss(tree, index, query, {d.kind for d in found}))
    truncated = truncated_by_time or len(chosen) > query.max_results
    chosen = chosen[: query.max_results]
    return SymbolResult(
        tag=tree.tag,
        name=query.name,
        truncated=truncated,
        definitions=[
            SymbolLocation(
                qualified_name=d.qualified_name,
                kind=d.kind,
                path=d.path,
                line=d.line,
                end_line=d.end_line,
                first_line=d.first_line,
                permalink=tree.permalink(d.path, d.line),
            )
            for d in chosen
        ],
    )


def _candidates(index: SearchIndex, name: str) -> list[int]:
    """Files holding every part of the qualified name (each scope's name is in the file that defines it), so
    `Zzz.self` parses the files naming Zzz, not the 2.6k naming self."""
    files: set[int] | None = None
    for part in reversed(name.split(".")):
        holding = set(files_containing(index, part, PYTHON_GLOB))
        files = holding if files is None else files & holding
        if not files:
            break
    return sorted(files or ())


def _miss(tree: SourceTree, index: SearchIndex, query: SymbolQuery, other_kinds: set[SymbolKind]) -> str:
    if other_kinds:
        kinds = ", ".join(sorted(other_kinds))
        return f"{query.name!r} is defined at {tree.tag} only as {kinds}, not as {query.kind}; drop kind or change it."
    bare = query.name.rsplit(".", 1)[-1]
    near = nearest_names(bare, defined_names(index, PYTHON_GLOB))
    hint = f" Nearest defined names: {', '.join(near)}." if near else " Try grep_vllm_source with part of the name."
    return f"no definition of {query.name!r} under vllm/ at {tree.tag}.{hint}"
