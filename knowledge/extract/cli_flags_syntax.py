"""Reading Python syntax the flag walker meets: fields of a node, a function's parameters, string keys."""

from __future__ import annotations

import tree_sitter

from .nodes import NotLiteral, line, literal, text

__all__ = ["definition", "is_static", "maybe_literal_str", "parameters", "required", "string_key"]


def required(node: tree_sitter.Node, name: str) -> tree_sitter.Node:
    """The field `name` of a node whose grammar requires it; NotLiteral if the tree is broken there."""
    found = node.child_by_field_name(name)
    if found is None:
        raise NotLiteral(f"{node.type} at line {line(node)} has no {name}")
    return found


def definition(node: tree_sitter.Node) -> tree_sitter.Node:
    """The function or class under a decorated definition (the node itself otherwise)."""
    return node.child_by_field_name("definition") or node if node.type == "decorated_definition" else node


def is_static(function: tree_sitter.Node) -> bool:
    return function.type == "decorated_definition" and any(
        text(d).strip() == "@staticmethod" for d in function.named_children if d.type == "decorator"
    )


def parameters(function: tree_sitter.Node) -> list[str]:
    """Parameter names in order (self/cls included), typed or defaulted ones too."""
    params = definition(function).child_by_field_name("parameters")
    names: list[str] = []
    for param in params.named_children if params is not None else []:
        if param.type == "identifier":
            names.append(text(param))
        elif param.type in {"typed_parameter", "default_parameter", "typed_default_parameter"}:
            name = param.child_by_field_name("name") or (param.named_children[0] if param.named_children else None)
            if name is not None and name.type == "identifier":
                names.append(text(name))
    return names


def string_key(subscript: tree_sitter.Node) -> str | None:
    """ "choices" in `kw["choices"]`; None for a computed key."""
    key = subscript.child_by_field_name("subscript")
    return maybe_literal_str(key) if key is not None else None


def maybe_literal_str(node: tree_sitter.Node) -> str | None:
    if node.type not in {"string", "concatenated_string"}:
        return None
    try:
        value = literal(node)
    except NotLiteral:
        return None
    return value if isinstance(value, str) else None
