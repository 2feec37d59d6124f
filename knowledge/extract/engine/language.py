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

__all__ = ["LANGUAGE", "QueryLoadError", "parser", "query", "query_source"]

LANGUAGE = tree_sitter.Language(tree_sitter_python.language())
# Queries sit beside the extractor that runs them, anywhere under knowledge/extract/.
_EXTRACT = "vllm_quant_mcp.knowledge.extract"


class QueryLoadError(InternalError):
    """A packaged .scm query is missing or does not compile against the grammar."""


def parser() -> tree_sitter.Parser:
    return tree_sitter.Parser(LANGUAGE)


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
