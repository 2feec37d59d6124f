"""A small symbolic walk over the functions that build the `vllm serve` parser.

vLLM does not list its flags anywhere: they are the `add_argument` calls reached from
`make_arg_parser`, through `AsyncEngineArgs.add_cli_args`, `FrontendArgs.add_cli_args`
(a loop over a dataclass's fields), `get_kwargs(SomeConfig)["field"]` splats and the
edits made to those kwargs dicts before use (`kw["choices"].remove(...)`, `kw["flags"]`).
The walk follows exactly those shapes, takes every branch of an `if` (a flag defined
under a condition still exists), and records anything it cannot read as a warning
rather than guessing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import tree_sitter

from .cli_flags_modules import ClassRef, FieldDef, Modules
from .cli_flags_types import FieldKind, KwargsRules, field_kind, literal_alias
from .nodes import NotLiteral, line, literal, text

__all__ = ["Flag", "Str", "Walker"]

_MAX_DEPTH = 8
_DEPRECATED = re.compile(
    r"\[deprecated\]|\(deprecated\b|^\W*deprecated\b|\b(?:is|are|has been|now) deprecated\b", re.IGNORECASE
)
# Methods of a named class that add flags: add_cli_args, add_cli_args_for_vlm (0.5.0), _add_...
_ADDS_ARGUMENTS = re.compile(r"^_?add_|cli_args")
_FSTRING_PART = re.compile(r"""^(\w+)(?:\.replace\((['"])_\2,\s*(['"])-\3\))?$""")


@dataclass(frozen=True)
class Str:
    """A string value with the place that wrote it (the flag's provenance when it names one)."""

    value: str
    path: str
    line: int


@dataclass
class FieldKwargs:
    """`get_kwargs(Config)["field"]`: argparse kwargs derived from a field, plus edits made to them."""

    definition: FieldDef | None
    overrides: dict[str, object] = field(default_factory=dict)

    def copy(self) -> FieldKwargs:
        return FieldKwargs(self.definition, dict(self.overrides))


@dataclass
class ConfigKwargs:
    """`get_kwargs(Config)`: one FieldKwargs per dataclass field, created on first use."""

    fields: dict[str, FieldDef]
    made: dict[str, FieldKwargs] = field(default_factory=dict)

    def get(self, key: str) -> FieldKwargs:
        if key not in self.made:
            self.made[key] = FieldKwargs(self.fields.get(key))
        return self.made[key]


@dataclass(frozen=True)
class ChoicesOf:
    """`kw["choices"]`, so that `.remove(x)` can edit the choices of `kw`."""

    kwargs: FieldKwargs


@dataclass(frozen=True)
class Flag:
    name: Str
    aliases: list[str]
    dest: str
    choices: list[str] | None
    boolean: bool
    deprecated: bool


@dataclass
class _Frame:
    path: str
    env: dict[str, object]
    owner: ClassRef | None = None
    receivers: frozenset[str] | None = None


class Walker:
    def __init__(self, modules: Modules, rules: KwargsRules) -> None:
        self.modules = modules
        self.rules = rules
        self.flags: list[Flag] = []
        self.warnings: list[str] = []
        self._stack: list[tuple[str, int]] = []

    def walk_function(
        self, path: str, function: tree_sitter.Node, args: dict[str, object], receivers: frozenset[str] | None = None
    ) -> object:
        body = _definition(function).child_by_field_name("body")
        if body is None or len(self._stack) >= _MAX_DEPTH or (path, function.start_byte) in self._stack:
            return None
        self._stack.append((path, function.start_byte))
        try:
            return self._block(body, _Frame(path, dict(args), receivers=receivers))
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
        if node.type != "assignment":
            self._eval(node, frame)
            return
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is None or right is None:
            return
        if left.type == "identifier":
            frame.env[text(left)] = self._eval(right, frame)
        elif left.type == "subscript":
            target = self._eval(_field(left, "value"), frame)
            key = _string_key(left)
            if isinstance(target, FieldKwargs) and key is not None:
                target.overrides[key] = self._keyword(key, right, frame)

    def _for(self, node: tree_sitter.Node, frame: _Frame) -> None:
        target, iterable, body = (node.child_by_field_name(n) for n in ("left", "right", "body"))
        if target is None or iterable is None or body is None:
            return
        names = [text(c) for c in target.named_children] if target.type != "identifier" else [text(target)]
        values = self._eval(iterable, frame)
        rows: list[list[object]] = []
        if isinstance(values, ConfigKwargs):
            for key, definition in values.fields.items():
                rows.append([Str(key, definition.path, line(definition.node)), values.get(key)])
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
        base = self._eval(_field(node, "value"), frame)
        key = _string_key(node)
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
        function = _field(node, "function")
        arguments = [a for a in _field(node, "arguments").named_children if a.type != "comment"]
        if function.type == "identifier" and text(function) == "get_kwargs" and arguments:
            cls = self._class(arguments[0], frame)
            return ConfigKwargs(self.modules.fields(cls)) if cls is not None else None
        if function.type != "attribute":
            return None
        target, method = _field(function, "object"), text(_field(function, "attribute"))
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
            self._remove_choice(value.kwargs, arguments[0], frame)
            return None
        return self._dispatch(target, method, node, frame)

    def _dispatch(self, target: tree_sitter.Node, method: str, call: tree_sitter.Node, frame: _Frame) -> object:
        """`X.add_cli_args(parser)`, `cls._customize...(kw)` and `super().m(...)` run the method's body."""
        if target.type == "call" and text(_field(target, "function")) == "super":
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
        params = _parameters(function)
        positional = [
            a for a in _field(call, "arguments").named_children if a.type not in {"keyword_argument", "comment"}
        ]
        env: dict[str, object] = {}
        if params and params[0] in {"cls", "self"} and not _is_static(function):
            env[params[0]] = dispatch if params[0] == "cls" else None
            params = params[1:]
        env.update(zip(params, (self._eval(a, frame) for a in positional), strict=False))
        for keyword in _field(call, "arguments").named_children:
            if keyword.type == "keyword_argument":
                env[text(_field(keyword, "name"))] = self._eval(_field(keyword, "value"), frame)
        sub = _Frame(owner.path, env, owner)
        body = _definition(function).child_by_field_name("body")
        key = (owner.path, function.start_byte)
        if body is None or key in self._stack or len(self._stack) >= _MAX_DEPTH:
            return None
        self._stack.append(key)
        try:
            return self._block(body, sub)
        finally:
            self._stack.pop()

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
                key = text(_field(argument, "name"))
                explicit[key] = self._keyword(key, _field(argument, "value"), frame)
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
        self.flags.append(self._flag(options, base, explicit))

    def _flag(self, options: list[Str], base: FieldKwargs | None, explicit: dict[str, object]) -> Flag:
        primary = next((o for o in options if o.value.startswith("--")), options[0])
        overrides = {**(base.overrides if base else {}), **explicit}
        kind = self._kind(base)
        action = overrides.get("action")
        boolean = "BooleanOptionalAction" in action if isinstance(action, str) else kind.boolean
        choices = overrides.get("choices", kind.choices)
        help_text = overrides.get("help")
        if not isinstance(help_text, str):
            help_text = base.definition.doc if base and base.definition else ""
        deprecated = (
            overrides.get("deprecated") is True
            or bool(_DEPRECATED.search(help_text))
            or (isinstance(action, str) and "Deprecated" in action)
        )
        dest = overrides.get("dest")
        flags = overrides.get("flags")
        aliases = [o.value for o in options if o is not primary]
        aliases += (
            [f.value for f in flags if isinstance(f, Str) and f.value not in aliases] if isinstance(flags, list) else []
        )
        return Flag(
            name=primary,
            aliases=aliases,
            dest=dest if isinstance(dest, str) else primary.value.lstrip("-").replace("-", "_"),
            choices=list(choices) if isinstance(choices, list) else None,
            boolean=boolean and primary.value.startswith("--"),
            deprecated=deprecated,
        )

    def _kind(self, base: FieldKwargs | None) -> FieldKind:
        if base is None or base.definition is None:
            return FieldKind(choices=None, boolean=False)
        return field_kind(base.definition, self.modules, self.rules)

    def _keyword(self, key: str, node: tree_sitter.Node, frame: _Frame) -> object:
        """The value of one argparse keyword, kept only in the form the flag record needs."""
        if key == "choices":
            return self._choices(node, frame)
        if key == "help":
            return self._help(node, frame.path)
        if key == "action":
            return text(node)
        if key == "deprecated":
            return text(node) == "True"
        if key in {"dest", "flags"}:
            return self._eval(node, frame) if key == "flags" else _maybe_literal_str(node)
        return None

    def _choices(self, node: tree_sitter.Node, frame: _Frame) -> list[str] | None:
        if node.type == "call" and text(_field(node, "function")) == "get_args":
            arguments = _field(node, "arguments").named_children
            return literal_alias(text(arguments[0]), frame.path, self.modules) if arguments else None
        try:
            values = literal(node)
        except NotLiteral:
            return None
        if not isinstance(values, list | tuple):
            return None
        return [str(v) for v in values if v is not None]

    def _help(self, node: tree_sitter.Node, path: str) -> str:
        if node.type in {"string", "concatenated_string"}:
            try:
                value = literal(node)
            except NotLiteral:
                return text(node)
            return value if isinstance(value, str) else text(node)
        if node.type == "parenthesized_expression" and node.named_children:
            return self._help(node.named_children[0], path)
        if node.type == "binary_operator":
            return "".join(self._help(side, path) for side in (_field(node, "left"), _field(node, "right")))
        if node.type == "identifier":
            alias = self.modules.find_alias(text(node), path)
            return self._help(alias[1], alias[0]) if alias else ""
        return text(node)

    def _remove_choice(self, kwargs: FieldKwargs, node: tree_sitter.Node, frame: _Frame) -> None:
        current = kwargs.overrides["choices"] if "choices" in kwargs.overrides else self._kind(kwargs).choices
        value = _maybe_literal_str(node)
        if value is None and node.type == "identifier":
            alias = self.modules.find_alias(text(node), frame.path)
            value = _maybe_literal_str(alias[1]) if alias else None
        if isinstance(current, list) and value is not None:
            kwargs.overrides["choices"] = [c for c in current if c != value]
        else:
            kwargs.overrides["choices"] = None
            self.warnings.append(f"{frame.path}:{line(node)}: removes a computed choice; choices dropped")


def _field(node: tree_sitter.Node, name: str) -> tree_sitter.Node:
    child = node.child_by_field_name(name)
    if child is None:
        raise NotLiteral(f"{node.type} at line {line(node)} has no {name}")
    return child


def _definition(node: tree_sitter.Node) -> tree_sitter.Node:
    return node.child_by_field_name("definition") or node if node.type == "decorated_definition" else node


def _is_static(function: tree_sitter.Node) -> bool:
    return function.type == "decorated_definition" and any(
        text(d).strip() == "@staticmethod" for d in function.named_children if d.type == "decorator"
    )


def _parameters(function: tree_sitter.Node) -> list[str]:
    params = _definition(function).child_by_field_name("parameters")
    names: list[str] = []
    for param in params.named_children if params is not None else []:
        if param.type == "identifier":
            names.append(text(param))
        elif param.type in {"typed_parameter", "default_parameter", "typed_default_parameter"}:
            name = param.child_by_field_name("name") or (param.named_children[0] if param.named_children else None)
            if name is not None and name.type == "identifier":
                names.append(text(name))
    return names


def _string_key(subscript: tree_sitter.Node) -> str | None:
    key = subscript.child_by_field_name("subscript")
    return _maybe_literal_str(key) if key is not None else None


def _maybe_literal_str(node: tree_sitter.Node) -> str | None:
    if node.type not in {"string", "concatenated_string"}:
        return None
    try:
        value = literal(node)
    except NotLiteral:
        return None
    return value if isinstance(value, str) else None
