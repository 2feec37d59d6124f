"""What vLLM's `get_kwargs` makes of a config field's type: choices, a --no- form, or neither.

`get_kwargs(SomeConfig)` turns each dataclass field into argparse kwargs from its type
hint: a bool becomes BooleanOptionalAction (so `--no-<flag>` exists), a Literal becomes
`choices`. The rules changed between releases (a `Literal | str` field got a metavar
instead of choices from 0.10.1; `bool | str | None` lost its --no- form in 0.21), so the
rules are read from the release's own get_kwargs source, not assumed.

Annotations are read with `ast.parse` on their text: parsing only, nothing is evaluated.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from functools import lru_cache

from vllm_quant_mcp.knowledge.extract.engine import FieldDef, Modules
from vllm_quant_mcp.knowledge.extract.engine.syntax import text

__all__ = ["FieldKind", "KwargsRules", "field_kind", "read_rules"]

_MAX_ALIAS_DEPTH = 6
_BUILTINS = {"bool", "str", "int", "float", "dict", "list", "tuple", "set"}
_COLLECTIONS = {"list": "list", "List": "list", "tuple": "tuple", "Tuple": "tuple", "set": "set", "Set": "set"}
_COLLECTIONS |= {"Sequence": "list", "Iterable": "list"}
_MAPPINGS = {"dict", "Dict", "Mapping", "MutableMapping"}


@dataclass(frozen=True)
class KwargsRules:
    """Which of get_kwargs' type rules this release has (see the module docstring)."""

    literal_with_str_is_metavar: bool = False
    bool_str_none_is_optional_value: bool = False
    literal_sequences_get_choices: bool = False


@dataclass
class _Shape:
    atoms: set[str] = field(default_factory=set)
    literal: list[object] | None = None
    sequence_literal: list[object] | None = None


@dataclass(frozen=True)
class FieldKind:
    choices: list[str] | None
    boolean: bool


def read_rules(source: str) -> KwargsRules:
    """Detect the rules from the text of get_kwargs / _compute_kwargs / literal_to_kwargs."""
    flat = re.sub(r"\s+", "", source)
    return KwargsRules(
        literal_with_str_is_metavar='"metavar"ifcontains_type(type_hints,str)' in flat,
        bool_str_none_is_optional_value="type_hints=={bool,str,type(None)}" in flat,
        literal_sequences_get_choices='get_origin(kwargs[name].get("type"))isLiteral' in flat,
    )


def field_kind(definition: FieldDef, modules: Modules, rules: KwargsRules) -> FieldKind:
    shape = _Shape()
    expression = _expression(text(definition.annotation))
    if expression is None:
        return FieldKind(choices=None, boolean=False)
    _collect(expression, definition.path, modules, shape, _MAX_ALIAS_DEPTH)
    atoms = shape.atoms
    if rules.bool_str_none_is_optional_value and atoms == {"bool", "str", "None"}:
        return FieldKind(choices=None, boolean=False)
    if "bool" in atoms:
        return FieldKind(choices=None, boolean=True)
    if shape.literal is not None:
        if rules.literal_with_str_is_metavar and "str" in atoms:
            return FieldKind(choices=None, boolean=False)
        return FieldKind(choices=_as_choices(shape.literal), boolean=False)
    if shape.sequence_literal is not None and rules.literal_sequences_get_choices:
        return FieldKind(choices=_as_choices(shape.sequence_literal), boolean=False)
    return FieldKind(choices=None, boolean=False)


def literal_alias(name: str, path: str, modules: Modules) -> list[str] | None:
    """`get_args(LogLevel)`: the values of a Literal alias, in declared order; None if it is not one."""
    shape = _Shape()
    _collect_name(name, path, modules, shape, _MAX_ALIAS_DEPTH)
    if shape.literal is None or shape.atoms != {"Literal"}:
        return None
    return [str(v) for v in shape.literal if v is not None]


@lru_cache(maxsize=4096)
def _expression(source: str) -> ast.expr | None:
    """The expression an annotation's text parses to, once per distinct text (`int | None` recurs a lot)."""
    try:
        return ast.parse(source, mode="eval").body
    except SyntaxError:
        return None


def _as_choices(values: list[object]) -> list[str]:
    """get_kwargs sorts the Literal's options; None (from Optional) is not a value one types."""
    present = [v for v in values if v is not None]
    try:
        ordered = sorted(set(present))  # type: ignore[type-var]
    except TypeError:
        ordered = list(dict.fromkeys(present))
    return [str(v) for v in ordered]


def _collect(node: ast.expr, path: str, modules: Modules, shape: _Shape, depth: int) -> None:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        _collect(node.left, path, modules, shape, depth)
        _collect(node.right, path, modules, shape, depth)
    elif isinstance(node, ast.Constant):
        if node.value is None:
            shape.atoms.add("None")
        elif isinstance(node.value, str):  # a forward reference: "SpeculativeConfig"
            reference = _expression(node.value)
            if reference is None:
                shape.atoms.add("other")
            else:
                _collect(reference, path, modules, shape, depth)
    elif isinstance(node, ast.Subscript):
        _collect_subscript(node, path, modules, shape, depth)
    elif isinstance(node, ast.Name):
        _collect_name(node.id, path, modules, shape, depth)
    else:
        shape.atoms.add("other")


def _collect_subscript(node: ast.Subscript, path: str, modules: Modules, shape: _Shape, depth: int) -> None:
    base = _name_of(node.value)
    args = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
    if base == "Optional":
        shape.atoms.add("None")
        _collect(args[0], path, modules, shape, depth)
    elif base == "Union":
        for arg in args:
            _collect(arg, path, modules, shape, depth)
    elif base == "Annotated":
        _collect(args[0], path, modules, shape, depth)
    elif base == "Literal":
        shape.atoms.add("Literal")
        shape.literal = (shape.literal or []) + _literal_values(args, path, modules, depth)
    elif base in _COLLECTIONS:
        shape.atoms.add(_COLLECTIONS[base])
        inner = _Shape()
        _collect(args[0], path, modules, inner, depth)
        if inner.literal is not None:
            shape.sequence_literal = inner.literal
    elif base in _MAPPINGS:
        shape.atoms.add("dict")
    else:
        shape.atoms.add("other")


def _literal_values(args: list[ast.expr], path: str, modules: Modules, depth: int) -> list[object]:
    """Values of Literal[...]; a name inside (Literal[OtherAlias]) is resolved like an alias."""
    values: list[object] = []
    for arg in args:
        if isinstance(arg, ast.Constant):
            values.append(arg.value)
        elif isinstance(arg, ast.Name | ast.Subscript):
            inner = _Shape()
            _collect(arg, path, modules, inner, depth)
            values.extend(inner.literal or [])
    return values


def _collect_name(name: str, path: str, modules: Modules, shape: _Shape, depth: int) -> None:
    if name in _BUILTINS:
        shape.atoms.add(name)
        return
    if name == "None":
        shape.atoms.add("None")
        return
    alias = modules.find_alias(name, path) if depth > 0 else None
    if alias is None:
        shape.atoms.add("other")
        return
    alias_path, rhs = alias
    expression = _expression(text(rhs))
    if expression is None:
        shape.atoms.add("other")
        return
    _collect(expression, alias_path, modules, shape, depth - 1)


def _name_of(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""
