"""Reading Python syntax: literals, fields of a node, a function's parameters, string keys, query matches.

Literal values are evaluated with `ast.literal_eval` on the node's own text:
vLLM source is data to us, and literal_eval never executes it. A plain string
(no escapes, no prefix but r/u) is read straight from its node instead, and a tuple,
list or dict from its elements, which gives the same value without compiling
thousands of one-line snippets per release.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

import tree_sitter

from vllm_quant_mcp.knowledge.errors import InternalError
from vllm_quant_mcp.knowledge.extract.engine.language import query

__all__ = [
    "NotLiteral",
    "definition",
    "if_clauses",
    "is_static",
    "line",
    "literal",
    "matches",
    "maybe_literal_str",
    "message",
    "module_assignments",
    "parameters",
    "required",
    "span_of",
    "string_items",
    "string_key",
    "text",
]


class NotLiteral(InternalError):
    """The node is an expression we will not guess at (a call, a name, an f-string)."""


def text(node: tree_sitter.Node) -> str:
    return (node.text or b"").decode("utf-8", "replace")  # positional: a keyword is parsed anew on every call


def line(node: tree_sitter.Node) -> int:
    """1-based line of the node's first character."""
    return node.start_point.row + 1


def if_clauses(stmt: tree_sitter.Node) -> list[tuple[tree_sitter.Node | None, tree_sitter.Node | None]]:
    """An `if` statement's (condition, body) pairs in order; the else is (None, body), and an `if` without one
    ends in (None, None): falling past every clause is a path too, and each walker must see it."""
    clauses: list[tuple[tree_sitter.Node | None, tree_sitter.Node | None]] = [
        (stmt.child_by_field_name("condition"), stmt.child_by_field_name("consequence"))
    ]
    for alternative in stmt.children_by_field_name("alternative"):
        body = alternative.child_by_field_name("consequence" if alternative.type == "elif_clause" else "body")
        clauses.append((alternative.child_by_field_name("condition"), body))
    if clauses[-1][0] is not None:
        clauses.append((None, None))
    return clauses


def literal(node: tree_sitter.Node) -> object:
    """The Python value of a literal node, or NotLiteral."""
    if node.type == "string" and (plain := _plain_string(node)) is not None:
        return plain
    if node.type in _CONSTANTS:
        return _CONSTANTS[node.type]
    if node.type == "integer" and _DECIMAL.fullmatch(node.text or b""):  # what literal_eval would compile to say
        return int(node.text or b"")
    if node.type in _CONTAINERS:
        return _container(node)
    if node.type in _NEVER_LITERAL or (node.type == "call" and not (node.text or b"").startswith(b"set(")):
        raise NotLiteral(f"not a literal at line {line(node)}: {text(node)[:80]!r}")  # as literal_eval would say
    if _is_f_string(node):  # literal_eval would compile it only to refuse it
        raise NotLiteral(f"an f-string at line {line(node)}")
    return _evaluated(node)


def _container(node: tree_sitter.Node) -> object:
    """A tuple, list or dict, or strings written side by side, from its elements' values: what literal_eval gives
    without compiling the text (vLLM's registries of models are hundreds of such tuples). A part that is no
    literal refuses the whole, in the words literal_eval's refusal would have."""
    if node.has_error:  # a broken tree's parts are not the text's: literal_eval reads the text
        return _evaluated(node)
    parts = [child for child in node.named_children if child.type != "comment"]
    try:
        if node.type == "dictionary":
            if any(part.type != "pair" for part in parts):  # `**spread`, or a comprehension
                raise NotLiteral(f"not a plain dict at line {line(node)}")
            return {literal(required(pair, "key")): literal(required(pair, "value")) for pair in parts}
        values = [literal(part) for part in parts]
        if node.type == "concatenated_string":
            return _joined(values, node)
    except (NotLiteral, TypeError, RecursionError) as exc:  # TypeError: an unhashable key
        raise NotLiteral(f"not a literal at line {line(node)}: {text(node)[:80]!r}") from exc
    return tuple(values) if node.type == "tuple" else values


def _joined(values: list[object], node: tree_sitter.Node) -> str | bytes:
    strings = [value for value in values if isinstance(value, str)]
    if len(strings) == len(values):
        return "".join(strings)
    data = [value for value in values if isinstance(value, bytes)]
    if len(data) == len(values):
        return b"".join(data)
    raise NotLiteral(f"bytes and str side by side at line {line(node)}")


def _evaluated(node: tree_sitter.Node) -> object:
    try:
        return ast.literal_eval(text(node))
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError) as exc:
        raise NotLiteral(f"not a literal at line {line(node)}: {text(node)[:80]!r}") from exc


_CONTAINERS = {"tuple", "list", "dictionary", "concatenated_string"}
# Expressions literal_eval refuses whatever they hold (of calls it takes `set()` only): a name, `EngineArgs.x`.
_NEVER_LITERAL = {
    "identifier", "attribute", "subscript", "lambda", "comparison_operator", "boolean_operator", "not_operator",
    "conditional_expression", "list_comprehension", "dictionary_comprehension", "set_comprehension",
    "generator_expression", "await", "named_expression",
}  # fmt: skip
_CONSTANTS: dict[str, object] = {"true": True, "false": False, "none": None}
_DECIMAL = re.compile(rb"0|[1-9][0-9]*")
_PLAIN_PREFIXES = {b"", b"r", b"R", b"u", b"U"}
_PREFIX = re.compile(rb"[rRbBuUfF]*")  # the letters before a string's opening quote
_QUOTES = {b'"', b"'", b'"""', b"'''"}
# Bytes that make literal_eval's value differ from the raw text, or make it fail.
_NOT_PLAIN = re.compile(rb"[\\\r\x00]")


def _plain_string(node: tree_sitter.Node) -> str | None:
    """The value of a string whose text is its value (quotes aside); None when literal_eval must decide."""
    raw = node.text or b""
    opening = 0 if raw[:1] in _QUOTES else 1  # the prefixes read here are one letter
    quote = raw[opening : opening + 3]
    if quote not in _QUOTES:
        quote = raw[opening : opening + 1]
    if quote not in _QUOTES or raw[:opening] not in _PLAIN_PREFIXES or node.has_error:
        return None
    body = raw[opening + len(quote) : len(raw) - len(quote)]
    if len(raw) < opening + 2 * len(quote) or not raw.endswith(quote) or _NOT_PLAIN.search(body):
        return None
    if len(quote) == 1 and b"\n" in body:
        return None
    return body.decode("utf-8", errors="replace")


# The closing quote is the opening one: `f"""a"""` reads `a`, not `a""` (a greedy body would end at the last `"`).
_QUOTED = re.compile(r"""^[rRbBuUfF]*(?P<quote>'''|\"\"\"|'|")(?P<body>.*)(?P=quote)$""", re.DOTALL)


def message(node: tree_sitter.Node) -> str:
    """A string (or implicitly joined strings) as a reader sees it: pieces joined, f-string fields as
    written, whitespace collapsed. For messages shown to people, never for values compared."""
    pieces = node.named_children if node.type == "concatenated_string" else [node]
    out = []
    for piece in pieces:
        try:  # an f-string is read as written without asking literal() first: refusing it costs an exception
            value = _written(piece) if _is_f_string(piece) else literal(piece)
        except NotLiteral:
            value = _written(piece)
        out.append(str(value))
    return " ".join("".join(out).split())


def _is_f_string(node: tree_sitter.Node) -> bool:
    prefix = _PREFIX.match(node.text or b"") if node.type == "string" else None
    return prefix is not None and b"f" in prefix[0].lower()


def _written(piece: tree_sitter.Node) -> str:
    """A string's text between its quotes, as written."""
    quoted = _QUOTED.match(text(piece))
    return quoted.group("body") if quoted else text(piece)


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


def matches(
    query_name: str,
    node: tree_sitter.Node,
    max_start_depth: int | None = None,
    span: tuple[int, int] | None = None,
) -> Iterator[dict[str, list[tree_sitter.Node]]]:
    """Captures of each match of a packaged query under `node`.

    `max_start_depth=0` is for queries whose every pattern is rooted at the node itself (`(module ...)`):
    the cursor then tries patterns at that node only instead of at every node of the file.
    `span` (from `span_of`) is for queries whose every match holds one of a few words: the cursor then visits
    only the nodes over those bytes, not the whole file (0.7 ms to 0.03 ms for a flag of arg_utils.py).
    """
    cursor = tree_sitter.QueryCursor(query(query_name))
    if max_start_depth is not None:
        cursor.set_max_start_depth(max_start_depth)
    if span is not None:
        cursor.set_byte_range(*span)
    for _, captures in cursor.matches(node):
        yield captures


def span_of(data: bytes, words: tuple[bytes, ...]) -> tuple[int, int] | None:
    """The bytes from the first occurrence of any of `words` to the end of the last; None if none occurs."""
    starts = [at for word in words if (at := data.find(word)) != -1]
    ends = [at + len(word) for word in words if (at := data.rfind(word)) != -1]
    return (min(starts), max(ends)) if starts else None


def module_assignments(root: tree_sitter.Node) -> dict[str, tree_sitter.Node]:
    """Right-hand side of each module-level `name = ...` / `name: T = ...`, the first one per name."""
    found: dict[str, tree_sitter.Node] = {}
    for child in root.named_children:
        stmt = child.named_children[0] if child.type == "expression_statement" and child.named_children else None
        if stmt is not None and stmt.type == "assignment":
            left = stmt.child_by_field_name("left")
            right = stmt.child_by_field_name("right")
            if left is not None and right is not None:
                found.setdefault(text(left), right)
    return found


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


def parameters(function: tree_sitter.Node) -> list[tuple[str, tree_sitter.Node | None]]:
    """Each parameter a caller binds by position or name, in order (self/cls included), with its default's node.

    `*args` and `**kwargs` are left out, typed or not: no caller binds them by name.
    """
    params = definition(function).child_by_field_name("parameters")
    found: list[tuple[str, tree_sitter.Node | None]] = []
    for param in params.named_children if params is not None else []:
        if param.type == "identifier":
            found.append((text(param), None))
        elif param.type in {"typed_parameter", "default_parameter", "typed_default_parameter"}:
            name = param.child_by_field_name("name") or (param.named_children[0] if param.named_children else None)
            if name is not None and name.type == "identifier":
                found.append((text(name), param.child_by_field_name("value")))
    return found


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
