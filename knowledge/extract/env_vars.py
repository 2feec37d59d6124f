"""`VLLM_*` environment variables and their defaults, from vllm/envs.py.

The names are the keys of the `environment_variables` dict (vllm resolves
`envs.X` through it alone). A default is what the value is when the variable is
unset, read in this order:
1. `A if "VLLM_X" in os.environ else B` gives B (A for `not in`): the getter
   inside A only runs when the variable is set (its "0" is there for mypy).
2. The getter's own literal, e.g. "0" in `os.getenv("VLLM_X", "0")`: the string
   a user would set. A getter with no default, None, or a computed one gives
   None (unset, or not knowable without running vllm).
3. Only when the value reads the variable through a helper of its own
   (`get_vllm_port()`), the `if TYPE_CHECKING:` annotation's literal
   (`VLLM_X: bool = False` gives "False"); it is hand-written and goes stale,
   so it never overrides a getter.
"""

from __future__ import annotations

import re

import tree_sitter

from vllm_quant_mcp.knowledge.extract.engine.syntax import (
    NotLiteral,
    line,
    literal,
    matches,
    maybe_literal_str,
    message,
    text,
)
from vllm_quant_mcp.knowledge.extract.result import Extracted, per_tree
from vllm_quant_mcp.knowledge.registry.model import EnvVar
from vllm_quant_mcp.knowledge.sources.tree import SourceTree

__all__ = ["PATH", "PREFIX", "extract_env_vars"]

PATH = "vllm/envs.py"
PREFIX = "VLLM_"

# A call reading a variable: (the string naming it, the call's default argument if any).
_Getter = tuple[tree_sitter.Node, tree_sitter.Node | None]


@per_tree
def extract_env_vars(tree: SourceTree) -> Extracted[list[EnvVar]]:
    if not tree.exists(PATH):
        return Extracted([], note=f"no {PATH} at this tag")
    keys: list[tuple[str, tree_sitter.Node, tree_sitter.Node]] = []
    hints: dict[str, tree_sitter.Node] = {}
    getters: dict[str, list[_Getter]] = {}
    for captures in matches("env_vars", tree.parse(PATH).root_node):
        if "var.name" in captures and (name := maybe_literal_str(captures["var.name"][0])) is not None:
            keys.append((name, captures["var.name"][0], captures["var.value"][0]))
        elif "hint.name" in captures:
            hints.setdefault(text(captures["hint.name"][0]), captures["hint.value"][0])
        elif "getter.name" in captures and (name := maybe_literal_str(captures["getter.name"][0])) is not None:
            default_node = captures["getter.default"][0] if "getter.default" in captures else None
            getters.setdefault(name, []).append((captures["getter.name"][0], default_node))
    if not keys:
        return Extracted([], note=f"{PATH} has no environment_variables dict with string keys at this tag")

    entries: list[EnvVar] = []
    seen: set[str] = set()
    skipped: list[str] = []
    warnings: list[str] = []
    for name, key, value in sorted(keys, key=lambda k: k[1].start_byte):
        if name in seen:
            warnings.append(f"{name} is keyed twice in environment_variables; kept the first, line {line(key)}")
            continue
        seen.add(name)
        if not name.startswith(PREFIX):
            skipped.append(name)
            continue
        unset = _unset_branch(name, value)
        getter = _getter(name, value, getters)
        if unset is not None:
            default = _default(unset)
        elif getter is not None:
            default = _getter_default(getter)
        else:
            default = _default(hints[name]) if name in hints else None
        removed_in, says, said_at = _deprecation(value)
        entries.append(
            EnvVar(
                name=name,
                default=default,
                provenance=tree.provenance(PATH, line(key)),
                removed_in=removed_in,
                deprecation=says,
                deprecation_provenance=tree.provenance(PATH, said_at) if said_at else None,
            )
        )
    note = None
    if skipped:
        note = f"{len(skipped)} names without the {PREFIX} prefix skipped: {', '.join(skipped)}"
    return Extracted(entries, note=note, warnings=warnings)


def _deprecation(value: tree_sitter.Node) -> tuple[str | None, str | None, int | None]:
    """`deprecated_env("VLLM_X", "v0.23", "Use --moe-backend ...", getter)`: (removed in, the message, its line)."""
    function = value.child_by_field_name("function") if value.type == "call" else None
    arguments = value.child_by_field_name("arguments") if value.type == "call" else None
    if function is None or arguments is None or text(function) != "deprecated_env":
        return None, None, None
    args = arguments.named_children
    removed = maybe_literal_str(args[1]) if len(args) > 1 else None
    if len(args) > 2 and args[2].type in {"string", "concatenated_string"}:
        return removed, message(args[2]), line(args[2])
    return removed, None, None


def _unset_branch(name: str, value: tree_sitter.Node) -> tree_sitter.Node | None:
    """B in `lambda: (A if "NAME" in os.environ else B)`, A for `not in`; None for any other shape."""
    node = value.child_by_field_name("body") if value.type == "lambda" else value
    while node is not None and node.type == "parenthesized_expression" and node.named_children:
        node = node.named_children[0]
    if node is None or node.type != "conditional_expression" or len(node.named_children) != 3:
        return None
    when_true, test, when_false = node.named_children
    presence = re.fullmatch(rf"""(["']){re.escape(name)}\1\s+(not\s+)?in\s+os\.environ""", text(test))
    if presence is None:
        return None
    return when_true if presence.group(2) else when_false


def _getter(name: str, value: tree_sitter.Node, getters: dict[str, list[_Getter]]) -> _Getter | None:
    """The first call inside this dict value that reads `name` itself (not a fallback variable)."""
    for getter in getters.get(name, []):
        if value.start_byte <= getter[0].start_byte < value.end_byte:
            return getter
    return None


def _getter_default(getter: _Getter) -> str | None:
    default = getter[1]
    if default is not None and default.type == "keyword_argument":
        keyword = default.child_by_field_name("name")
        default = default.child_by_field_name("value") if keyword is not None and text(keyword) == "default" else None
    return _default(default) if default is not None else None


def _default(node: tree_sitter.Node) -> str | None:
    """A literal as a user would write it: a string's value, other literals as written, None for None."""
    try:
        value = literal(node)
    except NotLiteral:
        return None
    if value is None:
        return None
    return value if isinstance(value, str) else text(node)
