"""Where names are defined in a Python file, read with tree-sitter (query: extract/symbols.scm).

A definition's qualified name follows its enclosing classes and functions
(`Fp8Config.get_min_capability`). Assigned names count only at module level, including
inside module-level `if`/`try`/`with` blocks (`if TYPE_CHECKING:` aliases).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Literal

from vllm_quant_mcp.knowledge.names import nearest
from vllm_quant_mcp.knowledge.sources.tree import SourceTree

from .index import SearchIndex

if TYPE_CHECKING:
    import tree_sitter

__all__ = ["Definition", "SymbolKind", "defined_names", "definitions", "nearest_names"]

SymbolKind = Literal["class", "function", "variable"]

_SCOPES = {"class_definition", "function_definition"}


@dataclass(frozen=True, slots=True)
class Definition:
    qualified_name: str
    kind: SymbolKind
    path: str
    line: int
    end_line: int
    first_line: str


def definitions(tree: SourceTree, relpath: str) -> list[Definition]:
    """Every class, function and module-level variable defined in one file, in source order."""
    # tree-sitter: loaded by the first lookup, not when the server starts
    from vllm_quant_mcp.knowledge.extract.engine.syntax import line, matches, text

    root = tree.parse(relpath).root_node
    found: list[Definition] = []
    for captures in matches("symbols", root):
        kind = next(k for k in captures if k.startswith("definition."))
        node, name = captures[kind][0], text(captures["name"][0])
        scopes = _enclosing(node)
        if kind == "definition.variable" and scopes:
            continue
        found.append(
            Definition(
                qualified_name=".".join([*scopes, name]),
                kind=kind.removeprefix("definition."),  # type: ignore[arg-type]
                path=relpath,
                line=line(node),
                end_line=node.end_point.row + 1,
                first_line=text(node).split("\n", 1)[0],
            )
        )
    found.sort(key=lambda d: d.line)
    return found


def _enclosing(node: tree_sitter.Node) -> list[str]:
    from vllm_quant_mcp.knowledge.extract.engine.syntax import text  # as in definitions()

    names: list[str] = []
    parent = node.parent
    while parent is not None:
        if parent.type in _SCOPES:
            name = parent.child_by_field_name("name")
            names.append(text(name) if name is not None else "?")
        parent = parent.parent
    return names[::-1]


_DEFINED = re.compile(rb"^[ \t]*(?:async[ \t]+)?(?:def|class)[ \t]+(\w+)|^(\w+)[ \t]*(?::[^=\n]*)?=[^=]", re.M)


def defined_names(index: SearchIndex, path_glob: str) -> tuple[str, ...]:
    """Names that look defined (def/class anywhere, assignments at column 0) in the glob's files, sorted: a
    vocabulary for suggestions only, read once per index with a byte regex over the pack's slices."""
    key = ("defined_names", path_glob)
    with index.pack.lock:
        known = index.pack.cached.get(key)
    if isinstance(known, tuple):
        return known
    names: set[bytes] = set()
    _files, ranges = index.scope(path_glob)
    blob = index.pack.blob
    for start, end in ranges:
        names.update(a or b for a, b in _DEFINED.findall(blob, start, end))
    found = tuple(sorted(n.decode("utf-8", "replace") for n in names))
    with index.pack.lock:
        index.pack.cached[key] = found
    return found


def nearest_names(name: str, names: tuple[str, ...], count: int = 8) -> list[str]:
    """`names.nearest` of `name`, looked for only among names sharing a trigram with it, so a miss costs
    milliseconds instead of a SequenceMatcher per defined name (50k of them in a release)."""
    grams = _trigrams(name.lower())
    if not grams:
        return nearest(name, names, limit=count)
    by_gram = _by_trigram(names)
    return nearest(name, (names[i] for i in {i for g in grams for i in by_gram.get(g, ())}), limit=count)


@lru_cache(maxsize=2)
def _by_trigram(names: tuple[str, ...]) -> dict[str, list[int]]:
    by_gram: dict[str, list[int]] = {}
    for i, name in enumerate(names):
        for gram in _trigrams(name.lower()):
            by_gram.setdefault(gram, []).append(i)
    return by_gram


def _trigrams(text: str) -> set[str]:
    return {text[i : i + 3] for i in range(len(text) - 2)}
