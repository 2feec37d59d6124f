"""Where names are defined in a Python file, read with tree-sitter (query: extract/symbols.scm).

A definition's qualified name follows its enclosing classes and functions
(`Fp8Config.get_min_capability`). Assigned names count only at module level, including
inside module-level `if`/`try`/`with` blocks (`if TYPE_CHECKING:` aliases).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from vllm_quant_mcp.knowledge.sources.tree import SourceTree

if TYPE_CHECKING:
    import tree_sitter

__all__ = ["Definition", "SymbolKind", "definitions"]

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
    from vllm_quant_mcp.knowledge.extract.nodes import line, matches, text

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
    from vllm_quant_mcp.knowledge.extract.nodes import text  # as in definitions()

    names: list[str] = []
    parent = node.parent
    while parent is not None:
        if parent.type in _SCOPES:
            name = parent.child_by_field_name("name")
            names.append(text(name) if name is not None else "?")
        parent = parent.parent
    return names[::-1]
