"""read_vllm_source: a file, or a line range of it, at one tag, paged so nothing is cut silently.

Paths go through SourceTree.resolve, which refuses `..`, absolute paths and links out of
the tree. A page holds at most MAX_LINES lines; `next_start_line` says where the next one starts.
"""

from __future__ import annotations

import difflib

from pydantic import BaseModel, ConfigDict, Field, model_validator

from vllm_quant_mcp.knowledge.tree import SourceTree

from .grep_models import clip_line

__all__ = ["MAX_LINES", "ReadQuery", "ReadResult", "SourceFileNotFoundError", "read_vllm_source"]

MAX_LINES = 400


class SourceFileNotFoundError(ValueError):
    """No such file in the tree at this tag."""


class ReadQuery(BaseModel):
    model_config = ConfigDict(extra="forbid")

    path: str = Field(min_length=1, max_length=1000, description="Repository-relative path, e.g. 'vllm/envs.py'.")
    start_line: int = Field(default=1, ge=1, description="First line to return (1-based).")
    end_line: int | None = Field(
        default=None, ge=1, description=f"Last line to return; default and cap: start_line + {MAX_LINES - 1}."
    )

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


def read_vllm_source(tree: SourceTree, query: ReadQuery) -> ReadResult:
    """Lines of one file at the tree's tag; raises PathOutsideTreeError or SourceFileNotFoundError."""
    file = tree.resolve(query.path)
    if not file.is_file():
        raise SourceFileNotFoundError(_not_found(tree, query.path))
    data = tree.read_bytes(query.path)
    if b"\0" in data:
        raise ValueError(f"{query.path} is a binary file at {tree.tag}; read_vllm_source returns text only.")
    lines = data.decode("utf-8", errors="replace").split("\n")
    if lines[-1] == "":
        lines.pop()
    total = len(lines)
    if query.start_line > max(total, 1):
        raise ValueError(f"start_line {query.start_line} is past the end of {query.path} ({total} lines).")
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
    return f"no file {path!r} in the vLLM tree at {tree.tag}.{hint}"
