"""Which class a quantization method's table entry names, the file defining it, and its minimum capability.

A table value is a class name imported into the quantization __init__ (or a local set to one class per
platform). The import is followed, through re-exports, to the file that defines the class; the minimum
capability is the literal int its get_min_capability returns, from the class or the nearest base that
defines one. Only files on that path are read.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from typing import TypeVar

import tree_sitter

from vllm_quant_mcp.knowledge.extract.engine.partial import statements_of
from vllm_quant_mcp.knowledge.extract.engine.syntax import NotLiteral, literal, matches, text
from vllm_quant_mcp.knowledge.sources.tree import SourceTree

__all__ = ["ClassResolver", "Config"]

# Re-exports and base classes are followed at most this deep, so an import cycle cannot loop.
_MAX_HOPS = 6
_T = TypeVar("_T")


@dataclass(frozen=True)
class _ClassRef:
    name: str
    path: str
    node: tree_sitter.Node


@dataclass(frozen=True)
class Config:
    """What a table value resolves to; a field is None where the source does not pin one value."""

    name: str | None = None
    path: str | None = None
    min_capability: int | None = None
    min_capability_at: tuple[str, int] | None = None  # the `return N` line (file, line), maybe in a base class


class _Classes:
    """The module-level classes of one file (undecorated, as the table's config classes are), each parsed when
    first asked for: a config file also holds its linear and MoE methods, which only the message sites read,
    and those parse the statements holding a raise, sharing the class a resolver parsed
    (engine/partial.py). Where the file's statements cannot be told apart from its bytes, or another kind
    parsed it whole already, its tree is read."""

    def __init__(self, tree: SourceTree, path: str) -> None:
        self._tree, self._path = tree, path
        self._nodes: dict[str, tree_sitter.Node] = {}
        statements = statements_of(tree, path) if tree.parsed_tree(path) is None else None
        self._spans: dict[str, tuple[int, int]] | None = None
        if statements is not None:
            data = tree.source(path)
            self._spans = {}
            for s in statements:
                if s.kind == "class" and s.name is not None and not data.startswith(b"@", s.start):
                    self._spans.setdefault(s.name, (s.start, s.end))
        else:
            self._whole()

    def _whole(self) -> None:
        for child in self._tree.parse(self._path).root_node.named_children:
            named = child.child_by_field_name("name") if child.type == "class_definition" else None
            if named is not None:
                self._nodes.setdefault(text(named), child)

    def get(self, name: str) -> tree_sitter.Node | None:
        if self._spans is None or name in self._nodes or name not in self._spans:
            return self._nodes.get(name)
        part = self._tree.parse_part(self._path, (self._spans[name],))
        found = part.root_node.named_children[0] if part is not None and part.root_node.named_children else None
        named = found.child_by_field_name("name") if found is not None else None
        if found is None or found.type != "class_definition" or named is None or text(named) != name:
            self._spans = None  # its lines do not parse on their own: the whole file's classes, as they stand
            self._whole()
            return self._nodes.get(name)
        self._nodes[name] = found
        return found


def _min_capability_body(cls: tree_sitter.Node) -> tree_sitter.Node | None:
    """The body of the class's own get_min_capability (a plain method or under a decorator)."""
    body = cls.child_by_field_name("body")
    for member in body.named_children if body is not None else []:
        function = member.child_by_field_name("definition") if member.type == "decorated_definition" else member
        if function is None or function.type != "function_definition":
            continue
        named = function.child_by_field_name("name")
        if named is not None and text(named) == "get_min_capability":
            return function.child_by_field_name("body")
    return None


class ClassResolver:
    """Follows imports (and re-exports) from the quantization __init__ to the file defining a class."""

    def __init__(self, tree: SourceTree, init: str) -> None:
        self._tree = tree
        self._init = init  # the file whose table names the classes
        # Classes are read from the module's statements, each parsed when asked for; imports need a walk of the
        # whole file (they may sit inside functions), so they are read only for files a name is imported through.
        self._classes = cache(self._read_classes)
        self._imports = cache(self._read_imports)

    def resolve_value(
        self, value: tree_sitter.Node, locals_: dict[str, list[str]], warnings: list[str], method: str
    ) -> Config:
        """The config a table value names: an imported class, or a local set to one class per platform."""
        name = text(value)
        if value.type != "identifier":
            warnings.append(f"{method!r} maps to {name!r}, not a class name; config class unknown.")
            return Config()
        candidates = locals_.get(name, []) if name not in self._imports(self._init) else []
        refs = [ref for c in candidates or [name] if (ref := self.resolve(c, self._init))]
        if not refs:
            warnings.append(f"{method!r} maps to {name!r}, whose defining file was not found in the tree.")
            return Config()
        configs = {Config(ref.name, ref.path, *self.min_capability(ref)) for ref in refs}
        if len(configs) > 1:
            warnings.append(
                f"{method!r} maps to local {name!r}, set per platform to one of "
                f"{sorted(f'{c.path}:{c.name}' for c in configs)}; only the values they share are kept."
            )
        return Config(
            _shared(c.name for c in configs),
            _shared(c.path for c in configs),
            _shared(c.min_capability for c in configs),
            _shared(c.min_capability_at for c in configs),
        )

    def resolve(self, name: str, path: str, hops: int = 0) -> _ClassRef | None:
        """The class `name` as seen from `path`: defined there, or imported (possibly renamed) from elsewhere."""
        if hops > _MAX_HOPS:
            return None
        found = self._classes(path).get(name)
        if found is not None:
            return _ClassRef(name, path, found)
        imports = self._imports(path)
        if name in imports:
            module, original = imports[name]
            target = self._module_file(module, path)
            if target is not None:
                return self.resolve(original, target, hops + 1)
        return None

    def min_capability(self, ref: _ClassRef) -> tuple[int | None, tuple[str, int] | None]:
        """The literal int get_min_capability returns, from the class or the nearest base defining it,
        and the file and line of that `return`."""
        found = self._min_capability_body(ref, 0)
        if found is None:
            return None, None
        path, body = found
        value, at = _literal_return(body)
        return value, (path, at) if at is not None else None

    def _min_capability_body(self, ref: _ClassRef, hops: int) -> tuple[str, tree_sitter.Node] | None:
        body = _min_capability_body(ref.node)
        bases = ref.node.child_by_field_name("superclasses")
        if body is not None:
            return ref.path, body
        if bases is None or hops >= _MAX_HOPS:
            return None
        for base in bases.named_children:
            parent = self.resolve(text(base), ref.path) if base.type == "identifier" else None
            inherited = self._min_capability_body(parent, hops + 1) if parent is not None else None
            if inherited is not None:
                return inherited
        return None

    def _read_classes(self, path: str) -> _Classes:
        return _Classes(self._tree, path)

    def _read_imports(self, path: str) -> dict[str, tuple[str, str]]:
        """Local name -> (module, original name) of every `from module import name [as local]` in the file."""
        imports: dict[str, tuple[str, str]] = {}
        for captures in matches("quantization_imports", self._tree.parse(path).root_node):
            original = text(captures["import.name"][0])
            local = text(captures["import.alias"][0]) if "import.alias" in captures else original
            imports.setdefault(local, (text(captures["import.module"][0]), original))
        return imports

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


def _literal_return(body: tree_sitter.Node) -> tuple[int | None, int | None]:
    """The int every return in a method body gives and the line of the first such return,
    or (None, None) when any return is computed or they differ."""
    values: set[object] = set()
    first: int | None = None
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
                return None, None
            at = node.start_point.row + 1
            first = at if first is None else min(first, at)
        stack.extend(node.named_children)
    value = values.pop() if len(values) == 1 else None
    if isinstance(value, int) and not isinstance(value, bool):
        return value, first
    return None, None
