"""The tree-sitter Python language and compiled queries, loaded from `.scm` files.

A query that fails to compile raises at load: a broken extractor must never read
as "vLLM has no such flag".
"""

from __future__ import annotations

from functools import cache
from importlib import resources

import tree_sitter
import tree_sitter_python

from vllm_quant_mcp.knowledge.errors import InternalError

__all__ = ["LANGUAGE", "QueryLoadError", "parse_ranges", "parser", "query", "query_source"]

LANGUAGE = tree_sitter.Language(tree_sitter_python.language())
# Queries sit beside the extractor that runs them, anywhere under knowledge/extract/.
_EXTRACT = "vllm_quant_mcp.knowledge.extract"


class QueryLoadError(InternalError):
    """A packaged .scm query is missing or does not compile against the grammar."""


def parser() -> tree_sitter.Parser:
    return tree_sitter.Parser(LANGUAGE)


def parse_ranges(data: bytes, ranges: list[tuple[int, int]]) -> tree_sitter.Tree | None:
    """One tree of only those byte ranges of `data` (each starting a line), every node at its place in the file;
    None where they do not parse cleanly on their own (engine/partial.py says which ranges to ask for)."""
    if not ranges:
        return None
    included = []
    row = 0
    counted = 0
    for start, end in ranges:
        row += data.count(b"\n", counted, start)
        end_row = row + data.count(b"\n", start, end)
        end_column = end - (data.rfind(b"\n", 0, end) + 1)
        included.append(tree_sitter.Range((row, 0), (end_row, end_column), start, end))
        row, counted = end_row, end
    partial = parser()
    partial.included_ranges = included
    tree = partial.parse(data)
    return None if tree.root_node.has_error else tree


def query_source(name: str) -> str:
    """Text of the packaged query `name`: its path under knowledge/extract/ without .scm ("cli_flags/serve")."""
    try:
        return resources.files(_EXTRACT).joinpath(f"{name}.scm").read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise QueryLoadError(f"query file {name}.scm is missing from the package") from exc


@cache
def query(name: str) -> tree_sitter.Query:
    try:
        return tree_sitter.Query(LANGUAGE, query_source(name))
    except tree_sitter.QueryError as exc:
        raise QueryLoadError(f"query {name}.scm does not compile: {exc}") from exc
