"""read_vllm_source: a file, or a line range of it, at one tag, paged so nothing is cut silently.

Paths go through SourceTree.exists (and resolve), which refuses `..`, absolute paths and links out of
the tree. A page holds at most MAX_LINES lines; `next_start_line` says where the next one starts.
"""

from __future__ import annotations

import difflib

from vllm_quant_mcp.knowledge.echo import clip
from vllm_quant_mcp.knowledge.errors import InvalidInputError, NotFoundError
from vllm_quant_mcp.knowledge.sources.pack import BinaryFileError
from vllm_quant_mcp.knowledge.sources.tree import SourceTree, clip_line
from vllm_quant_mcp.tools.context import ToolContext

from .models import MAX_LINES, ReadQuery, ReadResult

__all__ = ["SourceFileNotFoundError", "read_tree", "read_vllm_source"]


class SourceFileNotFoundError(NotFoundError):
    """No such file in the tree at this tag."""


def read_vllm_source(ctx: ToolContext, query: ReadQuery) -> ReadResult:
    """Fetch the tree of the tag into the cache once, then read the file."""
    tree, note = ctx.tree(query.tag)
    return read_tree(tree, query).model_copy(update={"note": note})


def read_tree(tree: SourceTree, query: ReadQuery) -> ReadResult:
    """Lines of one file at the tree's tag; raises PathOutsideTreeError or SourceFileNotFoundError."""
    if not tree.exists(query.path):
        raise SourceFileNotFoundError(_not_found(tree, query.path))
    try:
        data = tree.read_bytes(query.path)
    except BinaryFileError:  # a packed tree keeps only the names of binary files
        data = b"\0"
    if b"\0" in data:
        raise InvalidInputError(f"{query.path} is a binary file at {tree.tag}; read_vllm_source returns text only.")
    lines = data.decode("utf-8", errors="replace").split("\n")
    if lines[-1] == "":
        lines.pop()
    total = len(lines)
    if query.start_line > max(total, 1):
        raise InvalidInputError(f"start_line {query.start_line} is past the end of {query.path} ({total} lines).")
    wanted_end = min(query.end_line or total, total)
    end = min(wanted_end, query.start_line + MAX_LINES - 1)
    anchor = f"L{query.start_line}" + (f"-L{end}" if end > query.start_line else "")
    return ReadResult(
        tag=tree.tag,
        path=query.path,
        start_line=query.start_line,
        end_line=end,
        total_lines=total,
        text="\n".join(clip_line(line) for line in lines[query.start_line - 1 : end]),
        next_start_line=end + 1 if end < wanted_end else None,
        permalink=tree.permalink(query.path, query.start_line).rsplit("#", 1)[0] + "#" + anchor,
    )


def _not_found(tree: SourceTree, path: str) -> str:
    known = tree.glob("**/*")
    near = difflib.get_close_matches(path, known, n=5, cutoff=0.6)
    hint = f" Nearest paths: {', '.join(near)}." if near else " Use grep_vllm_source or find_symbol to locate it."
    return f"no file {clip(path)} in the vLLM tree at {tree.tag}.{hint}"
