"""A small symbolic walk over the functions that build the `vllm serve` parser.

vLLM does not list its flags anywhere: they are the `add_argument` calls reached from
`make_arg_parser`, through `AsyncEngineArgs.add_cli_args`, `FrontendArgs.add_cli_args`
(a loop over a dataclass's fields), `get_kwargs(SomeConfig)["field"]` splats and the
edits made to those kwargs dicts before use (`kw["choices"].remove(...)`, `kw["flags"]`).
The walk follows exactly those shapes, takes every branch of an `if` (a flag defined
under a condition still exists), and records anything it cannot read as a warning
rather than guessing. keywords.py turns each add_argument it reaches into a Flag.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import tree_sitter

from vllm_quant_mcp.knowledge.extract.cli_flags.field_types import KwargsRules
from vllm_quant_mcp.knowledge.extract.cli_flags.keywords import KeywordReader
from vllm_quant_mcp.knowledge.extract.cli_flags.values import ChoicesOf, ConfigKwargs, FieldKwargs, Flag, Str
from vllm_quant_mcp.knowledge.extract.engine import ClassRef, Modules
from vllm_quant_mcp.knowledge.extract.engine.syntax import (
    NotLiteral,
    definition,
    is_static,
    line,
    literal,
    parameters,
    required,
    string_key,
    text,
)

__all__ = ["Walker"]

_MAX_DEPTH = 8
# Methods of a named class that add flags: add_cli_args, add_cli_args_for_vlm (0.5.0), _add_...
_ADDS_ARGUMENTS = re.compile(r"^_?add_|cli_args")
_FSTRING_PART = re.compile(r"""^(\w+)(?:\.replace\((['"])_\2,\s*(['"])-\3\))?$""")


@dataclass
class _Frame:
    path: str
    env: dict[str, object]
    owner: ClassRef | None = None
    receivers: frozenset[str] | None = None


class Walker:
    def __init__(self, modules: Modules, rules: KwargsRules) -> None:
        self.modules = modules
        self.keywords = KeywordReader(modules, rules)
        self.flags: list[Flag] = []
        self.warnings: list[str] = []
        self._stack: list[tuple[str, int]] = []

    def walk_function(
        self, path: str, function: tree_sitter.Node, args: dict[str, object], receivers: frozenset[str] | None = None
    ) -> object:
        return self._run(function, _Frame(path, dict(args), receivers=receivers))

    def _run(self, function: tree_sitter.Node, frame: _Frame) -> object:
        """The function's body in `frame`, unless it is already running (recursion) or the walk is too deep."""
        body = definition(function).child_by_field_name("body")
        key = (frame.path, function.start_byte)
        if body is None or key in self._stack or len(self._stack) >= _MAX_DEPTH:
            return None
        self._stack.append(key)
        try:
            return self._block(body, frame)
        finally:
            self._stack.pop()

    # statements

    def _block(self, block: tree_sitter.Node, frame: _Frame) -> object:
        returned: object = None
        for statement in block.named_children:
            value = self._statement(statement, frame)
            if returned is None:
                returned = value
        return returned

    def _statement(self, node: tree_sitter.Node, frame: _Frame) -> object:
        if node.type == "expression_statement":
            for child in node.named_children:
                self._expression_statement(child, frame)
        elif node.type == "return_statement":
            return self._eval(node.named_children[0], frame) if node.named_children else None
        elif node.type == "for_statement":
            self._for(node, frame)
        elif node.type in {"if_statement", "with_statement", "try_statement", "while_statement"}:
            returned: object = None
            for child in node.named_children:
                blocks = [child] if child.type == "block" else [c for c in child.named_children if c.type == "block"]
                for block in blocks if child.type == "block" or child.type.endswith("_clause") else []:
                    value = self._block(block, frame)
                    returned = returned if returned is not None else value
            return returned
        return None

    def _expression_statement(self, node: tree_sitter.Node, frame: _Frame) -> None:
        if node.type == "augmented_assignment":
            self._extend(node, frame)
            return
        if node.type != "assignment":
            self._eval(node, frame)
            return
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is None or right is None:
            return
        if left.type == "identifier":
            frame.env[text(left)] = self._eval(right, frame)
        elif left.type == "subscript":
            target = self._eval(required(left, "value"), frame)
            key = string_key(left)
            if isinstance(target, FieldKwargs) and key is not None:
                target.overrides[key] = self._keyword(key, right, frame)

    def _extend(self, node: tree_sitter.Node, frame: _Frame) -> None:
        """`kw["choices"] += [...]`: the values appended, or no choices at all when they are computed."""
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is None or right is None or left.type != "subscript" or string_key(left) != "choices":
            return
        target = self._eval(required(left, "value"), frame)
        if not isinstance(target, FieldKwargs):
            return
        current = target.overrides["choices"] if "choices" in target.overrides else self.keywords.kind(target).choices
        added = self.keywords.extra_choices(right, frame.path)
        fits = isinstance(current, list) and added is not None
        target.overrides["choices"] = [*current, *added] if fits else None  # type: ignore[misc]

    def _for(self, node: tree_sitter.Node, frame: _Frame) -> None:
        target, iterable, body = (node.child_by_field_name(n) for n in ("left", "right", "body"))
        if target is None or iterable is None or body is None:
            return
        names = [text(c) for c in target.named_children] if target.type != "identifier" else [text(target)]
        values = self._eval(iterable, frame)
        rows: list[list[object]] = []
        if isinstance(values, ConfigKwargs):
            for key, field_def in values.fields.items():
                rows.append([Str(key, field_def.path, line(field_def.node)), values.get(key)])
        elif isinstance(values, list):
            rows = [item if isinstance(item, list) and len(names) > 1 else [item] for item in values]
        else:
            rows = [[]]
        for row in rows:
            frame.env.update(zip(names, row, strict=False))
            self._block(body, frame)

    # expressions

    def _eval(self, node: tree_sitter.Node, frame: _Frame) -> object:
        kind = node.type
        if kind == "identifier":
            return frame.env.get(text(node))
        if kind in {"string", "concatenated_string"}:
            return self._string(node, frame)
        if kind == "parenthesized_expression" and node.named_children:
            return self._eval(node.named_children[0], frame)
        if kind in {"list", "tuple"}:
            return [self._eval(child, frame) for child in node.named_children if child.type != "comment"]
        if kind == "subscript":
            return self._subscript(node, frame)
        if kind == "dictionary":
            return self._dictionary(node, frame)
        if kind == "call":
            return self._call(node, frame)
        return None

    def _string(self, node: tree_sitter.Node, frame: _Frame) -> Str | None:
        interpolations = [c for c in node.named_children if c.type == "interpolation"]
        if not interpolations:
            try:
                value = literal(node)
            except NotLiteral:
                return None
            return Str(value, frame.path, line(node)) if isinstance(value, str) else None
        # f"--{key.replace('_', '-')}": the name comes from the loop variable, and so does its provenance.
        out, origin = [], Str("", frame.path, line(node))
        for child in node.named_children:
            if child.type == "string_content":
                out.append(text(child))
            elif child.type == "interpolation":
                expression = child.named_children[0] if child.named_children else None
                found = _FSTRING_PART.match(text(expression)) if expression is not None else None
                bound = frame.env.get(found.group(1)) if found else None
                if found is None or not isinstance(bound, Str):
                    return None
                out.append(bound.value.replace("_", "-") if found.group(2) else bound.value)
                origin = bound
        return Str("".join(out), origin.path, origin.line)

    def _subscript(self, node: tree_sitter.Node, frame: _Frame) -> object:
        base = self._eval(required(node, "value"), frame)
        key = string_key(node)
        if key is None:
            return None
        if isinstance(base, ConfigKwargs):
            return base.get(key)
        if isinstance(base, FieldKwargs):
            return ChoicesOf(base) if key == "choices" else base.overrides.get(key)
        return None

    def _dictionary(self, node: tree_sitter.Node, frame: _Frame) -> FieldKwargs | None:
        result: FieldKwargs | None = None
        for child in node.named_children:
            if child.type == "dictionary_splat" and child.named_children:
                splat = self._eval(child.named_children[0], frame)
                if isinstance(splat, FieldKwargs):
                    result = splat.copy()
            elif child.type == "pair" and result is not None:
                key, value = child.child_by_field_name("key"), child.child_by_field_name("value")
                if key is not None and value is not None and key.type == "string":
                    name = literal(key)
                    if isinstance(name, str):
                        result.overrides[name] = self._keyword(name, value, frame)
        return result

    def _call(self, node: tree_sitter.Node, frame: _Frame) -> object:
        function = required(node, "function")
        arguments = [a for a in required(node, "arguments").named_children if a.type != "comment"]
        if function.type == "identifier" and text(function) == "get_kwargs" and arguments:
            cls = self._class(arguments[0], frame)
            return ConfigKwargs(self.modules.fields(cls)) if cls is not None else None
        if function.type != "attribute":
            return None
        target, method = required(function, "object"), text(required(function, "attribute"))
        if method == "add_argument":
            if frame.receivers is None or text(target) in frame.receivers:
                self._add_argument(node, arguments, frame)
            return None
        if method == "items":
            return self._eval(target, frame)
        value = self._eval(target, frame) if target.type != "call" else None
        if method == "pop" and isinstance(value, FieldKwargs) and arguments:
            key = literal(arguments[0]) if arguments[0].type == "string" else None
            default = self._eval(arguments[1], frame) if len(arguments) > 1 else None
            return value.overrides.pop(key, default) if isinstance(key, str) else default
        if method == "remove" and isinstance(value, ChoicesOf) and arguments:
            if not self.keywords.remove_choice(value.kwargs, arguments[0], frame.path):
                self.warnings.append(f"{frame.path}:{line(arguments[0])}: removes a computed choice; choices dropped")
            return None
        return self._dispatch(target, method, node, frame)

    def _dispatch(self, target: tree_sitter.Node, method: str, call: tree_sitter.Node, frame: _Frame) -> object:
        """`X.add_cli_args(parser)`, `cls._customize...(kw)` and `super().m(...)` run the method's body."""
        if target.type == "call" and text(required(target, "function")) == "super":
            start = frame.owner
            found = (
                next((m for b in self.modules.bases(start) if (m := self.modules.method(b, method))), None)
                if start
                else None
            )
            dispatch = frame.env.get("cls") if isinstance(frame.env.get("cls"), ClassRef) else start
        elif target.type == "identifier" and (_ADDS_ARGUMENTS.match(method) or text(target) == "cls"):
            cls = self._class(target, frame)
            found = self.modules.method(cls, method) if cls is not None else None
            dispatch = cls
        else:
            return None
        if found is None or dispatch is None:
            return None
        owner, function = found
        params = [name for name, _ in parameters(function)]
        positional = [
            a for a in required(call, "arguments").named_children if a.type not in {"keyword_argument", "comment"}
        ]
        env: dict[str, object] = {}
        if params and params[0] in {"cls", "self"} and not is_static(function):
            env[params[0]] = dispatch if params[0] == "cls" else None
            params = params[1:]
        env.update(zip(params, (self._eval(a, frame) for a in positional), strict=False))
        for keyword in required(call, "arguments").named_children:
            if keyword.type == "keyword_argument":
                env[text(required(keyword, "name"))] = self._eval(required(keyword, "value"), frame)
        return self._run(function, _Frame(owner.path, env, owner))

    def _class(self, node: tree_sitter.Node, frame: _Frame) -> ClassRef | None:
        if node.type != "identifier":
            return None
        bound = frame.env.get(text(node))
        if isinstance(bound, ClassRef):
            return bound
        return self.modules.find_class(text(node), frame.path)

    # flags

    def _add_argument(self, call: tree_sitter.Node, arguments: list[tree_sitter.Node], frame: _Frame) -> None:
        names: list[Str] = []
        explicit: dict[str, object] = {}
        base: FieldKwargs | None = None
        unread = False
        for argument in arguments:
            if argument.type == "keyword_argument":
                key = text(required(argument, "name"))
                explicit[key] = self._keyword(key, required(argument, "value"), frame)
            elif argument.type == "dictionary_splat" and argument.named_children:
                splat = self._eval(argument.named_children[0], frame)
                base = splat if isinstance(splat, FieldKwargs) else base
                unread = unread or not isinstance(splat, FieldKwargs)
            elif argument.type == "list_splat" and argument.named_children:
                splat = self._eval(argument.named_children[0], frame)
                names.extend(s for s in splat if isinstance(s, Str)) if isinstance(splat, list) else None
            else:
                value = self._eval(argument, frame)
                names.append(value) if isinstance(value, Str) else None
                unread = unread or not isinstance(value, Str)
        options = [n for n in names if n.value.startswith("-")]
        where = f"{frame.path}:{line(call)}"
        if not options:
            if unread:
                self.warnings.append(f"add_argument at {where}: the flag name is computed; skipped")
            return
        if unread:
            self.warnings.append(f"add_argument at {where}: some kwargs are computed; choices may be missing")
        self.flags.append(self.keywords.flag(options, base, explicit))

    def _keyword(self, key: str, node: tree_sitter.Node, frame: _Frame) -> object:
        return self._eval(node, frame) if key == "flags" else self.keywords.value(key, node, frame.path)
