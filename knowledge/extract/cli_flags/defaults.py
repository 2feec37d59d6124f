"""A flag's default as the source writes it: a literal, or a config field followed to the literal it holds.

vLLM states a serve flag's default in one of three places, and the walk meets each:
`add_argument(..., default=EngineArgs.gpu_memory_utilization)` (hand-written parsers), an edit of the
kwargs dict (`kw["default"] = ...`), or the field `get_kwargs(CacheConfig)` splats, whose default is
what `_compute_kwargs` hands argparse (`field.default`, or a pydantic `Field(default=...)`). An
EngineArgs field that reads another class's field (`= CacheConfig.gpu_memory_utilization`) is
followed to that field. A default that is computed (`default_factory`, a call, an env lookup) is
kept as the expression it is, never evaluated: None with that text means "not a literal".
"""

from __future__ import annotations

from dataclasses import dataclass

import tree_sitter

from vllm_quant_mcp.knowledge.extract.engine import FieldDef, Modules
from vllm_quant_mcp.knowledge.extract.engine.syntax import NotLiteral, line, literal, required, text

__all__ = ["Default", "DefaultValue", "expression_default", "field_default"]

DefaultValue = bool | int | float | str | None
_MAX_HOPS = 4
_MAX_EXPRESSION = 120
_FIELD_CALLS = frozenset({"Field", "field", "pydantic.Field", "dataclasses.field"})


@dataclass(frozen=True)
class Default:
    """A default and the line that states it; `expression` is set (and `value` None) when it is not a literal."""

    value: DefaultValue
    path: str
    line: int
    expression: str | None = None


def expression_default(node: tree_sitter.Node, path: str, modules: Modules, hops: int = _MAX_HOPS) -> Default:
    """The value `node` stands for: a scalar literal, a class field or module constant followed to its literal."""
    try:
        value = literal(node)
    except NotLiteral:
        pass
    else:
        if value is None or isinstance(value, bool | int | float | str):
            return Default(value, path, line(node))
        return _unread(node, path)
    if hops > 0 and node.type == "attribute":
        owner, attribute = required(node, "object"), text(required(node, "attribute"))
        cls = modules.find_class(text(owner), path) if owner.type == "identifier" else None
        definition = modules.fields(cls).get(attribute) if cls is not None else None
        found = field_default(definition, modules, hops - 1) if definition is not None else None
        if found is not None:
            return found
    if hops > 0 and node.type == "identifier" and text(node) not in {"True", "False", "None"}:
        alias = modules.find_alias(text(node), path)
        if alias is not None:
            return expression_default(alias[1], alias[0], modules, hops - 1)
    return _unread(node, path)


def field_default(definition: FieldDef, modules: Modules, hops: int = _MAX_HOPS) -> Default | None:
    """The default a dataclass field declares (None: it declares none, so the field is required)."""
    right = definition.node.child_by_field_name("right")
    if right is None:
        return None
    if right.type == "call" and text(required(right, "function")) in _FIELD_CALLS:
        return _field_call(right, definition.path, modules, hops)
    return expression_default(right, definition.path, modules, hops)


def _field_call(call: tree_sitter.Node, path: str, modules: Modules, hops: int) -> Default | None:
    """`Field(default=0.92, gt=0, le=1)`, `Field(0.92)`, `field(default=None)`; a factory is not a literal."""
    arguments = [a for a in required(call, "arguments").named_children if a.type != "comment"]
    for argument in arguments:
        if argument.type != "keyword_argument":
            continue
        name = text(required(argument, "name"))
        if name == "default":
            return expression_default(required(argument, "value"), path, modules, hops)
        if name == "default_factory":
            return _unread(call, path)
    positional = next((a for a in arguments if a.type not in {"keyword_argument", "dictionary_splat"}), None)
    if positional is not None and text(required(call, "function")).endswith("Field") and text(positional) != "...":
        return expression_default(positional, path, modules, hops)
    return None


def _unread(node: tree_sitter.Node, path: str) -> Default:
    written = " ".join(text(node).split())
    clipped = written if len(written) <= _MAX_EXPRESSION else written[: _MAX_EXPRESSION - 3] + "..."
    return Default(None, path, line(node), clipped)
