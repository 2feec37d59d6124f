"""The `--quantization` methods of a release and the config class, file and minimum capability of each.

All of it lives in vllm/model_executor/layers/quantization/__init__.py, in one of three layouts:

- 0.4.x to 0.6.4: a module-level dict `QUANTIZATION_METHODS = {"awq": AWQConfig, ...}` whose keys are
  the CLI choices and whose values are the classes, imported at module level.
- 0.6.5 to 0.8.4: a list `QUANTIZATION_METHODS = ["aqlm", ...]` of CLI choices, and the table
  `method_to_config = {...}` inside `get_quantization_config`, with the imports beside it.
- 0.8.5 on: `QuantizationMethods = Literal[...]` (the list is derived from it) and the same table;
  loops after the table register the online shorthands (fp8_per_tensor...) under one class.

Table keys the CLI list lacks (auto-round in some releases) are kept, marked accepted_by_cli=False,
so an agent can tell "resolvable from a checkpoint" from "accepted by --quantization".
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from typing import TypeVar

import tree_sitter

from ..registry import QuantizationMethod
from ..tree import SourceTree
from .nodes import NotLiteral, line, literal, matches, string_items, text
from .result import Extracted

__all__ = ["extract_quantization_methods"]

_INIT = "vllm/model_executor/layers/quantization/__init__.py"
# Re-exports and base classes are followed at most this deep, so an import cycle cannot loop.
_MAX_HOPS = 6
_T = TypeVar("_T")


@dataclass(frozen=True)
class _ClassRef:
    name: str
    path: str
    node: tree_sitter.Node


@dataclass(frozen=True)
class _Config:
    """What a table value resolves to; a field is None where the source does not pin one value."""

    name: str | None = None
    path: str | None = None
    min_capability: int | None = None


@dataclass
class _Symbols:
    """What one file imports, defines, and which of its classes state get_min_capability."""

    imports: dict[str, tuple[str, str]] = field(default_factory=dict)  # local name -> (module, original name)
    classes: dict[str, tree_sitter.Node] = field(default_factory=dict)
    min_capability_bodies: dict[int, tree_sitter.Node] = field(default_factory=dict)  # class start byte -> body


def extract_quantization_methods(tree: SourceTree) -> Extracted[list[QuantizationMethod]]:
    """Every --quantization value in source order, then table-only keys, each with its config class."""
    if not tree.exists(_INIT):
        return Extracted([], note=f"{_INIT} does not exist at {tree.tag}; no quantization registry.")
    found = _module_captures(tree.parse(_INIT).root_node)
    cli = _cli_names(found)
    if cli is None:
        return Extracted(
            [],
            note=(
                f"{_INIT} at {tree.tag} has neither a QuantizationMethods Literal nor a literal "
                "QUANTIZATION_METHODS list or dict; the extractor does not know this layout."
            ),
        )
    warnings: list[str] = []
    table, loop_class, locals_ = _resolver_table(found, warnings)
    deprecated = {name for name, _ in string_items(found["deprecated"])} if "deprecated" in found else set()
    resolver = _ClassResolver(tree)

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
            config = _Config()
        else:
            config = resolver.resolve_value(value, locals_, warnings, name)
        entries.append(
            QuantizationMethod(
                name=name,
                provenance=tree.provenance(_INIT, line(node)),
                config_class=config.name,
                config_path=config.path,
                min_capability=config.min_capability,
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
    for captures in matches("quantization", root):
        for capture, nodes in captures.items():
            if not capture.startswith("_"):
                found.setdefault(capture, nodes[0])
    return found


def _cli_names(found: dict[str, tree_sitter.Node]) -> list[tuple[str, tree_sitter.Node]] | None:
    if "methods.literal" in found:
        return string_items(found["methods.literal"])
    if "methods.list" in found:
        return string_items(found["methods.list"])
    if "methods.dict" in found:
        return [(name, key) for name, (key, _) in _dict_rows(found["methods.dict"]).items()]
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
    if "methods.dict" in found:
        return _dict_rows(found["methods.dict"]), None, {}
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


class _ClassResolver:
    """Follows imports (and re-exports) from the quantization __init__ to the file defining a class."""

    def __init__(self, tree: SourceTree) -> None:
        self._tree = tree
        self._symbols = cache(self._read_symbols)

    def resolve_value(
        self, value: tree_sitter.Node, locals_: dict[str, list[str]], warnings: list[str], method: str
    ) -> _Config:
        """The config a table value names: an imported class, or a local set to one class per platform."""
        name = text(value)
        if value.type != "identifier":
            warnings.append(f"{method!r} maps to {name!r}, not a class name; config class unknown.")
            return _Config()
        candidates = locals_.get(name, []) if name not in self._symbols(_INIT).imports else []
        refs = [ref for c in candidates or [name] if (ref := self.resolve(c, _INIT))]
        if not refs:
            warnings.append(f"{method!r} maps to {name!r}, whose defining file was not found in the tree.")
            return _Config()
        configs = {_Config(ref.name, ref.path, self.min_capability(ref)) for ref in refs}
        if len(configs) > 1:
            warnings.append(
                f"{method!r} maps to local {name!r}, set per platform to one of "
                f"{sorted(f'{c.path}:{c.name}' for c in configs)}; only the values they share are kept."
            )
        return _Config(
            _shared(c.name for c in configs),
            _shared(c.path for c in configs),
            _shared(c.min_capability for c in configs),
        )

    def resolve(self, name: str, path: str, hops: int = 0) -> _ClassRef | None:
        """The class `name` as seen from `path`: defined there, or imported (possibly renamed) from elsewhere."""
        if hops > _MAX_HOPS:
            return None
        symbols = self._symbols(path)
        if name in symbols.classes:
            return _ClassRef(name, path, symbols.classes[name])
        if name in symbols.imports:
            module, original = symbols.imports[name]
            target = self._module_file(module, path)
            if target is not None:
                return self.resolve(original, target, hops + 1)
        return None

    def min_capability(self, ref: _ClassRef) -> int | None:
        """The literal int get_min_capability returns, from the class or the nearest base defining it."""
        body = self._min_capability_body(ref, 0)
        return _literal_return(body) if body is not None else None

    def _min_capability_body(self, ref: _ClassRef, hops: int) -> tree_sitter.Node | None:
        body = self._symbols(ref.path).min_capability_bodies.get(ref.node.start_byte)
        bases = ref.node.child_by_field_name("superclasses")
        if body is not None or bases is None or hops >= _MAX_HOPS:
            return body
        for base in bases.named_children:
            parent = self.resolve(text(base), ref.path) if base.type == "identifier" else None
            inherited = self._min_capability_body(parent, hops + 1) if parent is not None else None
            if inherited is not None:
                return inherited
        return None

    def _read_symbols(self, path: str) -> _Symbols:
        symbols = _Symbols()
        for captures in matches("quantization_symbols", self._tree.parse(path).root_node):
            if "import.module" in captures:
                original = text(captures["import.name"][0])
                local = text(captures["import.alias"][0]) if "import.alias" in captures else original
                symbols.imports.setdefault(local, (text(captures["import.module"][0]), original))
            elif "class.name" in captures:
                symbols.classes.setdefault(text(captures["class.name"][0]), captures["class"][0])
            elif "min_capability.body" in captures:
                start = captures["min_capability.class"][0].start_byte
                symbols.min_capability_bodies.setdefault(start, captures["min_capability.body"][0])
        return symbols

    def _module_file(self, module: str, importer: str) -> str | None:
        """Repository path of a dotted (or relative, from `importer`) module, as a .py file or a package."""
        if module.startswith("."):
            depth = len(module) - len(module.lstrip("."))
            package = importer.rsplit("/", 1)[0].split("/")
            base = package[: len(package) - depth + 1]
            parts = base + [p for p in module.lstrip(".").split(".") if p]
        else:
            parts = module.split(".")
        stem = "/".join(parts)
        for candidate in (f"{stem}.py", f"{stem}/__init__.py"):
            if self._tree.exists(candidate):
                return candidate
        return None


def _shared(values: Iterable[_T]) -> _T | None:
    distinct = set(values)
    return distinct.pop() if len(distinct) == 1 else None


def _literal_return(body: tree_sitter.Node) -> int | None:
    """The int every return in a method body gives, or None when any return is computed or they differ."""
    values: set[object] = set()
    stack = list(body.named_children)
    while stack:
        node = stack.pop()
        if node.type in {"function_definition", "class_definition", "lambda"}:
            continue
        if node.type == "return_statement":
            returned = node.named_children[0] if node.named_children else None
            try:
                values.add(literal(returned) if returned is not None else None)
            except NotLiteral:
                return None
        stack.extend(node.named_children)
    value = values.pop() if len(values) == 1 else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None
