"""The `--quantization` methods of a release and the config class, file and minimum capability of each.

All of it lives in vllm/model_executor/layers/quantization/__init__.py, in one of four layouts:

- 0.4.0: a private dict `_QUANTIZATION_CONFIG_REGISTRY = {"awq": AWQConfig, ...}` of every method; the
  CLI choices are a literal list in vllm/engine/arg_utils.py, which leaves marlin out.
- 0.4.1 to 0.6.4: a module-level dict `QUANTIZATION_METHODS = {"awq": AWQConfig, ...}` whose keys are
  the CLI choices and whose values are the classes, imported at module level.
- 0.6.5 to 0.8.4: a list `QUANTIZATION_METHODS = ["aqlm", ...]` of CLI choices, and the table
  `method_to_config = {...}` inside `get_quantization_config`, with the imports beside it.
- 0.8.5 on: `QuantizationMethods = Literal[...]` (the list is derived from it) and the same table;
  loops after the table register the online shorthands (fp8_per_tensor...) under one class.

Table keys the CLI list lacks (auto-round in some releases) are kept, marked accepted_by_cli=False,
so an agent can tell "resolvable from a checkpoint" from "accepted by --quantization".
"""

from __future__ import annotations

import tree_sitter

from vllm_quant_mcp.knowledge.extract.engine.syntax import (
    NotLiteral,
    line,
    literal,
    matches,
    span_of,
    string_items,
    text,
)
from vllm_quant_mcp.knowledge.extract.quantization_classes import ClassResolver, Config
from vllm_quant_mcp.knowledge.extract.result import Extracted, per_tree
from vllm_quant_mcp.knowledge.registry.model import QuantizationMethod
from vllm_quant_mcp.knowledge.sources.tree import SourceTree

__all__ = ["extract_quantization_methods"]

_INIT = "vllm/model_executor/layers/quantization/__init__.py"
_ARG_UTILS = "vllm/engine/arg_utils.py"


@per_tree
def extract_quantization_methods(tree: SourceTree) -> Extracted[list[QuantizationMethod]]:
    """Every --quantization value in source order, then table-only keys, each with its config class."""
    if not tree.exists(_INIT):
        return Extracted([], note=f"{_INIT} does not exist at {tree.tag}; no quantization registry.")
    found = _module_captures(tree.parse(_INIT).root_node)
    warnings: list[str] = []
    cli = _cli_names(found, tree, warnings)
    if cli is None:
        return Extracted(
            [],
            note=(
                f"{_INIT} at {tree.tag} has neither a QuantizationMethods Literal nor a literal "
                "QUANTIZATION_METHODS list or dict; the extractor does not know this layout."
            ),
        )
    table, loop_class, locals_ = _resolver_table(found, warnings)
    deprecated = {name for name, _ in string_items(found["deprecated"])} if "deprecated" in found else set()
    resolver = ClassResolver(tree, _INIT)

    entries: list[QuantizationMethod] = []
    seen: set[str] = set()
    cli_names = {name for name, _ in cli}
    rows = [(name, node, True) for name, node in cli] + [
        (name, node, False) for name, (node, _) in table.items() if name not in cli_names
    ]
    for name, node, accepted in rows:
        if name in seen:
            warnings.append(f"{name!r} is listed twice in {_INIT} (line {line(node)}); kept the first.")
            continue
        seen.add(name)
        value = table[name][1] if name in table else loop_class
        if value is None:
            warnings.append(f"{name!r} has no entry in the get_quantization_config table; config class unknown.")
            config = Config()
        else:
            config = resolver.resolve_value(value, locals_, warnings, name)
        entries.append(
            QuantizationMethod(
                name=name,
                provenance=tree.provenance(_INIT, line(node)),
                config_class=config.name,
                config_path=config.path,
                min_capability=config.min_capability,
                min_capability_provenance=(
                    tree.provenance(*config.min_capability_at) if config.min_capability_at is not None else None
                ),
                deprecated=name in deprecated,
                accepted_by_cli=accepted,
            )
        )
    if stale := sorted(deprecated - seen):
        warnings.append(f"DEPRECATED_QUANTIZATION_METHODS names {stale}, which no longer resolve at {tree.tag}.")
    return Extracted(entries, warnings=warnings)


def _module_captures(root: tree_sitter.Node) -> dict[str, tree_sitter.Node]:
    """First node of each public capture of quantization.scm (methods.literal, deprecated, resolver...)."""
    found: dict[str, tree_sitter.Node] = {}
    for captures in matches("quantization", root, max_start_depth=0):
        for capture, nodes in captures.items():
            if not capture.startswith("_"):
                found.setdefault(capture, nodes[0])
    return found


def _cli_names(
    found: dict[str, tree_sitter.Node], tree: SourceTree, warnings: list[str]
) -> list[tuple[str, tree_sitter.Node]] | None:
    if "methods.literal" in found:
        return string_items(found["methods.literal"])
    if "methods.list" in found:
        return string_items(found["methods.list"])
    if "methods.dict" in found:
        return [(name, key) for name, (key, _) in _dict_rows(found["methods.dict"]).items()]
    if "registry.dict" in found:
        return _registry_cli_names(_dict_rows(found["registry.dict"]), tree, warnings)
    return None


def _registry_cli_names(
    table: dict[str, tuple[tree_sitter.Node, tree_sitter.Node]], tree: SourceTree, warnings: list[str]
) -> list[tuple[str, tree_sitter.Node]]:
    """0.4.0: the registry keys argparse accepts, in the order of its `choices`, each at its registry line."""
    choices = _argparse_choices(tree)
    if choices is None:
        warnings.append(
            f"no literal --quantization choices in {_ARG_UTILS}; every _QUANTIZATION_CONFIG_REGISTRY key "
            "is taken as accepted by the CLI."
        )
        return [(name, key) for name, (key, _) in table.items()]
    if unknown := [name for name in choices if name not in table]:
        warnings.append(f"--quantization choices {unknown} in {_ARG_UTILS} have no config class; left out.")
    return [(name, table[name][0]) for name in choices if name in table]


def _argparse_choices(tree: SourceTree) -> list[str] | None:
    """The names in `choices=[...]` of --quantization (None is "not quantized"); None if computed or absent."""
    span = span_of(tree.source(_ARG_UTILS), (b"--quantization",)) if tree.exists(_ARG_UTILS) else None
    if span is None:
        return None
    for captures in matches("quantization_choices", tree.parse(_ARG_UTILS).root_node, span=span):
        try:
            values = literal(captures["choices"][0])
        except NotLiteral:
            return None
        return [value for value in values if isinstance(value, str)] if isinstance(values, list | tuple) else None
    return None


def _dict_rows(dictionary: tree_sitter.Node) -> dict[str, tuple[tree_sitter.Node, tree_sitter.Node]]:
    """String key -> (key node, value node) of a dict literal, in source order; other keys are skipped."""
    rows: dict[str, tuple[tree_sitter.Node, tree_sitter.Node]] = {}
    for pair in dictionary.named_children:
        key, value = pair.child_by_field_name("key"), pair.child_by_field_name("value")
        if pair.type != "pair" or key is None or value is None:
            continue
        try:
            name = literal(key)
        except NotLiteral:
            continue
        if isinstance(name, str):
            rows.setdefault(name, (key, value))
    return rows


def _resolver_table(
    found: dict[str, tree_sitter.Node], warnings: list[str]
) -> tuple[dict[str, tuple[tree_sitter.Node, tree_sitter.Node]], tree_sitter.Node | None, dict[str, list[str]]]:
    """The name -> class table, the class loops register leftover names under, and local aliases."""
    for layout in ("methods.dict", "registry.dict"):  # the dict is the table too
        if layout in found:
            return _dict_rows(found[layout]), None, {}
    body = found.get("resolver")
    if body is None:
        warnings.append(f"no get_quantization_config in {_INIT}; config classes unknown.")
        return {}, None, {}
    table: dict[str, tuple[tree_sitter.Node, tree_sitter.Node]] = {}
    loop_class: tree_sitter.Node | None = None
    locals_: dict[str, list[str]] = {}
    for captures in matches("quantization_resolver", body):
        if "table" in captures and not table:
            table = _dict_rows(captures["table"][0])
        elif "loop.class" in captures and loop_class is None:
            loop_class = captures["loop.class"][0]
        elif "local.name" in captures:
            locals_.setdefault(text(captures["local.name"][0]), []).append(text(captures["local.value"][0]))
    if not table:
        warnings.append("no literal method_to_config table in get_quantization_config; config classes unknown.")
    return table, loop_class, locals_
