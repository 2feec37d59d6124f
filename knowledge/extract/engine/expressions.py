"""An expression's value: literals, containers, calls (builtins, source functions, `super()`, `isinstance`),
comparisons and and/or/not in three-valued logic, conditional expressions, subscripts, comprehensions.

Its own module because it is the one place that dispatches on the kinds of expression node the
interpreter reads; anything else is an Unknown that says which kind, and where. A call of a source
function runs through statements.py; a name or an attribute is resolved by names.py.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import tree_sitter

from vllm_quant_mcp.knowledge.extract.engine.signals import Raised
from vllm_quant_mcp.knowledge.extract.engine.statements import Statements
from vllm_quant_mcp.knowledge.extract.engine.syntax import NotLiteral, line, literal, text
from vllm_quant_mcp.knowledge.extract.engine.values import (
    Builtin,
    ClassValue,
    Function,
    Member,
    Reason,
    Record,
    Scope,
    Super,
    Unknown,
    arithmetic,
    compare,
    has_unknown,
    merge,
    same,
    truth,
    unknown,
)

__all__ = ["Expressions"]

_MISSING = object()
_FSTRING = object()  # in the literals cache: an f-string, whose value each frame makes anew
_TYPES: dict[str, type] = {
    "str": str,
    "int": int,
    "bool": bool,
    "float": float,
    "list": list,
    "tuple": tuple,
    "dict": dict,
    "set": set,
}
# Calls that read the run's configuration: with no config set (a plain `vllm serve` default), or the model's.
_RUN_CONFIG: dict[str, Callable[[str, tree_sitter.Node], Any]] = {
    "get_current_vllm_config_or_none": lambda path, node: None,
    "get_current_vllm_config": lambda path, node: unknown(
        "the model's config, read when the engine starts", path, node
    ),
}


class Expressions(Statements):
    """The evaluator: `_expr`, which names.py and statements.py call for every value they need."""

    def _expr(self, node: tree_sitter.Node, frame: Scope) -> Any:
        self._tick(node, frame)
        kind = node.type
        if kind in ("string", "concatenated_string", "integer", "float"):
            known = self.shared.literals.get(node.id, _MISSING)
            if known is _MISSING:
                try:
                    fstring = kind in ("string", "concatenated_string") and _interpolates(node)
                    known = _FSTRING if fstring else literal(node)
                except NotLiteral:
                    known = text(node)  # a string beyond a literal (bytes with escapes): its text stands in
                self.shared.literals[node.id] = known
            return self._fstring(node, frame) if known is _FSTRING else known
        if kind == "true":
            return True
        if kind == "false":
            return False
        if kind == "none":
            return None
        if kind == "identifier":
            return self._name(node, frame)
        if kind == "parenthesized_expression":  # a comment may open it: `(  # unquantized ...`
            return self._expr(next(c for c in node.named_children if c.type != "comment"), frame)
        if kind in ("list", "tuple", "set", "expression_list"):
            items: list[Any] = []
            for child in node.named_children:
                if child.type == "list_splat":
                    spread = self._expr(child.named_children[0], frame)
                    if isinstance(spread, Unknown):
                        return spread
                    items += list(spread)
                elif child.type != "comment":
                    items.append(self._expr(child, frame))
            return items if kind == "list" else tuple(items) if kind != "set" else set(items)
        if kind == "dictionary":
            return {
                self._expr(_field(p, "key", frame.path), frame): self._expr(_field(p, "value", frame.path), frame)
                for p in node.named_children
                if p.type == "pair"
            }
        if kind == "attribute":
            return self._attribute(node, frame)
        if kind == "call":
            return self._call_expr(node, frame)
        if kind == "comparison_operator":
            return self._compare(node, frame)
        if kind == "boolean_operator":
            return self._boolean(node, frame)
        if kind == "not_operator":
            value = truth(self._expr(_field(node, "argument", frame.path), frame))
            return value if isinstance(value, Unknown) else not value
        if kind == "conditional_expression":
            then, test, otherwise = node.named_children
            decided = truth(self._expr(test, frame))
            if isinstance(decided, Unknown):
                a, b = self._expr(then, frame), self._expr(otherwise, frame)
                return a if same(a, b) else merge(decided, a, b)
            return self._expr(then if decided else otherwise, frame)
        if kind == "binary_operator":
            operator = node.child_by_field_name("operator")
            left = self._expr(_field(node, "left", frame.path), frame)
            right = self._expr(_field(node, "right", frame.path), frame)
            return arithmetic(text(operator) if operator else "", left, right, frame.path, node)
        if kind == "unary_operator":
            value = self._expr(_field(node, "argument", frame.path), frame)
            return -value if isinstance(value, int) and text(node).startswith("-") else value
        if kind == "subscript":
            return self._subscript(node, frame)
        if kind in ("generator_expression", "list_comprehension"):
            return self._comprehension(node, frame)
        return unknown(f"a {kind} expression is beyond this reading of the source", frame.path, node)

    def _fstring(self, node: tree_sitter.Node, frame: Scope) -> str:
        """An f-string as the message it makes: each interpolation known as a string or number filled in, any
        other left as `{expression}`, so a refusal reads "kernel does not support current device
        {current_platform.device_name}" rather than the template it was built from."""
        parts: list[str] = []
        for piece in node.named_children if node.type == "concatenated_string" else [node]:
            for child in piece.children:
                expression = child.child_by_field_name("expression") if child.type == "interpolation" else None
                if child.type == "string_content":
                    parts.append(text(child))
                elif expression is not None:
                    value = self._expr(expression, frame)
                    known = isinstance(value, str | int | float) and not isinstance(value, bool)
                    as_repr = any(c.type == "type_conversion" and text(c) == "!r" for c in child.children)
                    parts.append((repr(value) if as_repr else str(value)) if known else f"{{{text(expression)}}}")
        return "".join(parts)

    def _call_expr(self, node: tree_sitter.Node, frame: Scope) -> Any:
        fn_node = node.child_by_field_name("function")
        arguments = node.child_by_field_name("arguments")
        called = text(fn_node) if fn_node is not None and fn_node.type == "identifier" else ""
        if called == "super":
            if frame.bound is None or frame.owner is None:
                return unknown("super() outside a method", frame.path, node)
            return Super(frame.bound, frame.owner)
        if called == "isinstance" and arguments is not None and len(arguments.named_children) == 2:
            return self._isinstance(arguments.named_children, frame, node)
        if called in _RUN_CONFIG:
            return _RUN_CONFIG[called](frame.path, node)
        if fn_node is None:
            return unknown("a call without a callee: unparsed source", frame.path, node)
        fn = self._expr(fn_node, frame)
        args: list[Any] = []
        kwargs: dict[str, Any] = {}
        if arguments is not None and arguments.type == "generator_expression":  # f(x for x in y)
            args.append(self._comprehension(arguments, frame))
            arguments = None
        for arg in arguments.named_children if arguments is not None else []:
            if arg.type == "keyword_argument":
                kwargs[text(_field(arg, "name", frame.path))] = self._expr(_field(arg, "value", frame.path), frame)
            elif arg.type in ("list_splat", "dictionary_splat"):
                return unknown("arguments spread at run time", frame.path, node)
            elif arg.type != "comment":
                args.append(
                    self._comprehension(arg, frame) if arg.type == "generator_expression" else self._expr(arg, frame)
                )
        if isinstance(fn, Unknown):
            if (frame.path, line(node)) in self.forced:
                return self.forced[(frame.path, line(node))]
            return unknown(f"{' '.join(text(node).split())[:100]} is decided at run time", frame.path, node)
        if isinstance(fn, Builtin):
            if has_unknown([*args, *kwargs.values()]):
                return merge(*args, *kwargs.values(), *(i for a in args if isinstance(a, list | tuple) for i in a))
            try:
                return fn.fn(*args, **kwargs)
            except (TypeError, ValueError, AttributeError, IndexError, KeyError):
                return unknown(f"{text(fn_node)[:60]}(...) with these values", frame.path, node)
        if isinstance(fn, Function):
            return self._call(fn, args, kwargs)
        known = not has_unknown([*args, *kwargs.values()])
        if isinstance(fn, ClassValue) and known and self.modules.is_named_tuple(fn.ref):
            fields = list(self.modules.fields(fn.ref))
            if len(args) + len(kwargs) == len(fields):
                return Record(what=fn.ref.name, ref=fn.ref, attrs=dict(zip(fields, args, strict=False)) | kwargs)
        if isinstance(fn, ClassValue):
            return unknown(f"an instance of {fn.ref.name} built at run time", frame.path, node)
        if (frame.path, line(node)) in self.forced:
            return self.forced[(frame.path, line(node))]
        return unknown(f"{text(fn_node)[:60]}(...) is decided at run time", frame.path, node)

    def _isinstance(self, args: list[tree_sitter.Node], frame: Scope, node: tree_sitter.Node) -> Any:
        value = self._expr(args[0], frame)
        names = [text(n) for n in (args[1].named_children if args[1].type == "tuple" else [args[1]])]
        types = [_TYPES.get(n) for n in names]
        if isinstance(value, Unknown) or any(t is None for t in types):
            return (
                value if isinstance(value, Unknown) else unknown(f"isinstance(..., {text(args[1])})", frame.path, node)
            )
        return isinstance(value, tuple(t for t in types if t is not None))

    def _compare(self, node: tree_sitter.Node, frame: Scope) -> Any:
        operands = [c for c in node.named_children if c.type != "comment"]
        operators = [text(op) for op in node.children_by_field_name("operators")]
        left = self._expr(operands[0], frame)
        result: Any = True
        for op, right_node in zip(operators, operands[1:], strict=False):
            right = self._expr(right_node, frame)
            step = compare(op, left, right, frame.path, node)
            if step is False:
                return False
            if isinstance(step, Unknown) or isinstance(left, Unknown) or isinstance(right, Unknown):
                result = merge(result, step, left, right)
            left = right
        return result

    def _boolean(self, node: tree_sitter.Node, frame: Scope) -> Any:
        operator = node.child_by_field_name("operator")
        is_and = operator is not None and operator.type == "and"  # a keyword token's type is its text
        left = self._expr(_field(node, "left", frame.path), frame)
        left_truth = truth(left)
        if not isinstance(left_truth, Unknown) and left_truth != is_and:
            return left  # `False and x` / `True or x`
        right = self._expr(_field(node, "right", frame.path), frame)
        if not isinstance(left_truth, Unknown):
            return right
        right_truth = truth(right)
        if not isinstance(right_truth, Unknown) and right_truth != is_and:
            return right  # `x and False` is False, `x or True` is True, whatever x is
        return merge(left, right)

    def _subscript(self, node: tree_sitter.Node, frame: Scope) -> Any:
        value = self._expr(_field(node, "value", frame.path), frame)
        keys = node.children_by_field_name("subscript")
        if isinstance(value, Unknown) or len(keys) != 1:
            return value if isinstance(value, Unknown) else unknown("a slice", frame.path, node)
        key = self._expr(keys[0], frame)
        if isinstance(value, ClassValue) and self._is_enum(value.ref) and isinstance(key, str):
            return Member(value.ref.name, key)
        try:
            return value[key]
        except (TypeError, KeyError, IndexError):
            return unknown("an index decided at run time", frame.path, node)

    def _comprehension(self, node: tree_sitter.Node, frame: Scope) -> Any:
        body = node.child_by_field_name("body")
        clauses = [c for c in node.named_children if c.type in ("for_in_clause", "if_clause")]
        if body is None or len(clauses) < 1 or clauses[0].type != "for_in_clause" or len(clauses) > 2:
            return unknown("a comprehension beyond one for and one if", frame.path, node)
        loop = clauses[0]
        target, iterable = loop.child_by_field_name("left"), loop.child_by_field_name("right")
        items = self._expr(iterable, frame) if iterable is not None else None
        if target is None or target.type != "identifier" or not isinstance(items, list | tuple | set):
            return items if isinstance(items, Unknown) else unknown("a loop over run-time values", frame.path, node)
        out = []
        for item in items:
            inner = Scope(
                frame.path, {**frame.locals, text(target): item}, frame.owner, frame.bound, frame.read, frame.marks
            )
            if len(clauses) == 2:
                keep = truth(self._expr(clauses[1].named_children[0], inner))
                if isinstance(keep, Unknown):
                    return keep
                if not keep:
                    continue
            out.append(self._expr(body, inner))
        return out


def _interpolates(node: tree_sitter.Node) -> bool:
    """An f-string, alone or among concatenated strings."""
    pieces = node.named_children if node.type == "concatenated_string" else [node]
    return any(child.type == "interpolation" for piece in pieces for child in piece.children)


def _field(node: tree_sitter.Node, name: str, path: str) -> tree_sitter.Node:
    """A field the grammar requires; a broken tree there is read as undecidable, not as a crash."""
    found = node.child_by_field_name(name)
    if found is None:
        raise Raised(Reason(f"{node.type} without its {name}: unparsed source", path, line(node)))
    return found
