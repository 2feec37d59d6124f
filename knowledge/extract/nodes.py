"""Small helpers over tree-sitter nodes shared by the extractors.

Literal values are evaluated with `ast.literal_eval` on the node's own text:
vLLM source is data to us, and literal_eval never executes it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

import tree_sitter

from .language import query

__all__ = ["NotLiteral", "text", "line", "literal", "string_items", "matches", "find_assignment"]


class NotLiteral(ValueError):
    """The node is an expression we will not guess at (a call, a name, an f-string)."""


def text(node: tree_sitter.Node) -> str:
    return (node.text or b"").decode("utf-8", errors="replace")


def line(node: tree_sitter.Node) -> int:
    """1-based line of the node's first character."""
    return node.start_point.row + 1


def literal(node: tree_sitter.Node) -> object:
    """The Python value of a literal node, or NotLiteral."""
    try:
        return ast.literal_eval(text(node))
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError) as exc:
        raise NotLiteral(f"not a literal at line {line(node)}: {text(node)[:80]!r}") from exc


def string_items(node: tree_sitter.Node) -> list[tuple[str, tree_sitter.Node]]:
    """The string elements of a list/tuple/set/Literal[...] node, each with its own node.

    Non-string elements (comments, names, calls) are skipped, so a list that mixes
    literals with computed names yields the literal part only.
    """
    if node.type == "subscript":  # Literal["a", "b"]
        children = [c for c in node.children_by_field_name("subscript")]
        if len(children) == 1 and children[0].type in {"tuple", "list"}:
            children = list(children[0].named_children)
    elif node.type in {"list", "tuple", "set", "expression_list"}:
        children = list(node.named_children)
    else:
        raise NotLiteral(f"expected a list or Literal[...] at line {line(node)}, found {node.type}")
    items: list[tuple[str, tree_sitter.Node]] = []
    for child in children:
        if child.type in {"string", "concatenated_string"}:
            value = literal(child)
            if isinstance(value, str):
                items.append((value, child))
    return items


def matches(query_name: str, node: tree_sitter.Node) -> Iterator[dict[str, list[tree_sitter.Node]]]:
    """Captures of each match of a packaged query under `node`."""
    cursor = tree_sitter.QueryCursor(query(query_name))
    for _, captures in cursor.matches(node):
        yield captures


def find_assignment(root: tree_sitter.Node, name: str) -> tree_sitter.Node | None:
    """Right-hand side of the first module-level `name = ...` / `name: T = ...`."""
    for child in root.named_children:
        stmt = child.named_children[0] if child.type == "expression_statement" and child.named_children else None
        if stmt is not None and stmt.type == "assignment":
            left = stmt.child_by_field_name("left")
            right = stmt.child_by_field_name("right")
            if left is not None and right is not None and text(left) == name:
                return right
    return None
