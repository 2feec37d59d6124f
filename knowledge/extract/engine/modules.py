"""Name resolution across vLLM modules for the `vllm serve` flag walker.

Flags are spread over several files (the serve command, the frontend args, EngineArgs,
the config dataclasses and the Literal aliases they use), so the walker has to follow
`from x import Name` the way Python would, but only by reading files: a class or alias
is found where it is defined, through at most a few re-exports (vllm/config/__init__.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

import tree_sitter

from vllm_quant_mcp.knowledge.extract.engine.language import parser
from vllm_quant_mcp.knowledge.extract.engine.partial import statements_of
from vllm_quant_mcp.knowledge.extract.engine.syntax import (
    NotLiteral,
    definition,
    literal,
    matches,
    module_assignments,
    text,
)
from vllm_quant_mcp.knowledge.sources.tree import SourceTree

__all__ = ["ClassRef", "FieldDef", "ModuleIndex", "Modules"]

_MAX_HOPS = 4
_EMPTY = parser().parse(b"")  # the head of a module that holds definitions only
_DEFINED = frozenset({"function_definition", "class_definition", "decorated_definition"})


@dataclass(frozen=True)
class ClassRef:
    path: str
    name: str
    node: tree_sitter.Node


@dataclass(frozen=True)
class FieldDef:
    """One dataclass field: `name: annotation = default`, with the docstring under it."""

    path: str
    name: str
    node: tree_sitter.Node
    annotation: tree_sitter.Node
    doc: str


class _Definitions(Mapping[str, tree_sitter.Node]):
    """A module's functions (or classes) by name, in the order written, each parsed from its own lines on first
    use: the interpreter resolving one import of a 140 kB module reads one of its definitions."""

    def __init__(self, tree: SourceTree, path: str, spans: dict[str, tuple[int, int]], kind: str) -> None:
        self._tree, self._path, self._spans, self._kind = tree, path, spans, kind
        self._nodes: dict[str, tree_sitter.Node] = {}

    def __getitem__(self, name: str) -> tree_sitter.Node:
        node = self._nodes.get(name)
        if node is None:
            node = self._nodes[name] = self._parsed(name, *self._spans[name])
        return node

    def _parsed(self, name: str, start: int, end: int) -> tree_sitter.Node:
        part = self._tree.parse_part(self._path, ((start, end),))
        top = part.root_node.named_children[0] if part is not None and part.root_node.named_children else None
        found = definition(top) if top is not None else None
        named = found.child_by_field_name("name") if found is not None else None
        if found is not None and found.type == self._kind and named is not None and text(named) == name:
            return found
        # its lines do not parse on their own (a string cut open): the definition as the whole file's tree has it
        classes, functions, _ = _names(self._tree.parse(self._path).root_node)
        return (classes if self._kind == "class_definition" else functions)[name]

    def __contains__(self, name: object) -> bool:  # Mapping's would parse the definition to answer
        return name in self._spans

    def __iter__(self) -> Iterator[str]:
        return iter(self._spans)

    def __len__(self) -> int:
        return len(self._spans)


@dataclass
class ModuleIndex:
    """A module's top-level names. `head` holds its module-level statements other than definitions (imports,
    assignments, `if`/`try` blocks); `root` is the whole module, parsed on first use where it was not."""

    path: str
    tree: SourceTree = field(repr=False)
    head: tree_sitter.Node = field(repr=False)
    classes: Mapping[str, tree_sitter.Node] = field(default_factory=dict)
    functions: Mapping[str, tree_sitter.Node] = field(default_factory=dict)
    imports: dict[str, tuple[str, str]] = field(default_factory=dict)  # local name -> (dotted module, name)
    _assignments: dict[str, tree_sitter.Node] | None = field(default=None, repr=False)

    @property
    def root(self) -> tree_sitter.Node:
        return self.tree.parse(self.path).root_node

    def assignment(self, name: str) -> tree_sitter.Node | None:
        """Right-hand side of the module-level `name = ...`; the statements are read on first use only."""
        if self._assignments is None:
            self._assignments = module_assignments(self.head)
        return self._assignments.get(name)


def _names(
    root: tree_sitter.Node,
) -> tuple[dict[str, tree_sitter.Node], dict[str, tree_sitter.Node], dict[str, tuple[str, str]]]:
    """The classes, functions and imports a module's statements define, the first one per name."""
    classes: dict[str, tree_sitter.Node] = {}
    functions: dict[str, tree_sitter.Node] = {}
    imports: dict[str, tuple[str, str]] = {}
    for captures in matches("engine/modules", root, max_start_depth=0):  # every pattern is rooted at `module`
        if "class.name" in captures:
            classes.setdefault(text(captures["class.name"][0]), captures["class.definition"][0])
        elif "function.name" in captures:
            functions.setdefault(text(captures["function.name"][0]), captures["function.definition"][0])
        elif "import.name" in captures:
            local = captures.get("import.alias", captures["import.name"])[0]
            imports.setdefault(text(local), (text(captures["import.module"][0]), text(captures["import.name"][0])))
    return classes, functions, imports


class Modules:
    """Parsed modules of one tree, indexed once each."""

    def __init__(self, tree: SourceTree) -> None:
        self.tree = tree
        self._index: dict[str, ModuleIndex | None] = {}
        # Lookups repeat for every flag of a config (each field's type names the same aliases): answered once.
        self._module_paths: dict[tuple[str, str], str | None] = {}
        self._classes: dict[tuple[str, str, int], ClassRef | None] = {}
        self._aliases: dict[tuple[str, str, int], tuple[str, tree_sitter.Node] | None] = {}
        self._fields: dict[tuple[str, int, int], dict[str, FieldDef]] = {}
        self._methods: dict[tuple[str, int, str, int], tuple[ClassRef, tree_sitter.Node] | None] = {}
        self._bases: dict[tuple[str, int], list[ClassRef]] = {}

    def index(self, path: str) -> ModuleIndex | None:
        if path not in self._index:
            self._index[path] = self._build(path) if self.tree.exists(path) else None
        return self._index[path]

    def _build(self, path: str) -> ModuleIndex:
        index = self._partial(path) if self.tree.parsed_tree(path) is None else None
        if index is not None:
            index.imports = _names(index.head)[2]
            return index
        root = self.tree.parse(path).root_node
        classes, functions, imports = _names(root)
        return ModuleIndex(path, self.tree, root, classes, functions, imports)

    def _partial(self, path: str) -> ModuleIndex | None:
        """The index from the module's bytes and its non-definition statements only (engine/partial.py); None where
        the statements cannot be told apart from its bytes or do not parse on their own."""
        statements = statements_of(self.tree, path)
        if statements is None:
            return None
        others = tuple((s.start, s.end) for s in statements if s.kind == "other")
        head = self.tree.parse_part(path, others) if others else _EMPTY
        if head is None or any(c.type in _DEFINED for c in head.root_node.named_children):
            return None  # a definition its bytes did not show as one (a name beyond ASCII): the whole file decides
        spans: dict[str, dict[str, tuple[int, int]]] = {"function": {}, "class": {}}
        for statement in statements:
            if statement.name is not None:
                spans[statement.kind].setdefault(statement.name, (statement.start, statement.end))
        return ModuleIndex(
            path, self.tree, head.root_node,
            classes=_Definitions(self.tree, path, spans["class"], "class_definition"),
            functions=_Definitions(self.tree, path, spans["function"], "function_definition"),
        )  # fmt: skip

    def module_path(self, dotted: str, importer: str) -> str | None:
        """File of a module named in `from dotted import ...` inside `importer`, if it is in the tree."""
        key = (dotted, importer)
        if key not in self._module_paths:
            self._module_paths[key] = self._module_path(dotted, importer)
        return self._module_paths[key]

    def _module_path(self, dotted: str, importer: str) -> str | None:
        if dotted.startswith("."):
            level = len(dotted) - len(dotted.lstrip("."))
            package = importer.split("/")[:-level]
            parts = package + [p for p in dotted.lstrip(".").split(".") if p]
        else:
            parts = dotted.split(".")
        if not parts or parts[0] != "vllm":
            return None
        base = "/".join(parts)
        for candidate in (f"{base}.py", f"{base}/__init__.py"):
            if self.tree.exists(candidate):
                return candidate
        return None

    def find_class(self, name: str, path: str, hops: int = _MAX_HOPS) -> ClassRef | None:
        key = (name, path, hops)
        if key not in self._classes:
            self._classes[key] = self._find_class(name, path, hops)
        return self._classes[key]

    def _find_class(self, name: str, path: str, hops: int) -> ClassRef | None:
        index = self.index(path)
        if index is None:
            return None
        if name in index.classes:
            return ClassRef(path, name, index.classes[name])
        target = self.imported(index, name) if hops > 0 else None
        return self.find_class(target[1], target[0], hops - 1) if target is not None else None

    def find_alias(self, name: str, path: str, hops: int = _MAX_HOPS) -> tuple[str, tree_sitter.Node] | None:
        """Right-hand side of a module-level `name = ...` (a type alias), followed through imports."""
        key = (name, path, hops)
        if key not in self._aliases:
            self._aliases[key] = self._find_alias(name, path, hops)
        return self._aliases[key]

    def _find_alias(self, name: str, path: str, hops: int) -> tuple[str, tree_sitter.Node] | None:
        index = self.index(path)
        if index is None:
            return None
        rhs = index.assignment(name)
        if rhs is not None:
            return path, rhs
        target = self.imported(index, name) if hops > 0 else None
        if target is None or self._defines_class(*target):
            return None
        return self.find_alias(target[1], target[0], hops - 1)

    def imported(self, index: ModuleIndex, name: str) -> tuple[str, str] | None:
        """(file, original name) of a `from vllm... import name` in the module, if the file is in the tree."""
        if name not in index.imports:
            return None
        dotted, original = index.imports[name]
        module = self.module_path(dotted, index.path)
        return (module, original) if module is not None else None

    def _defines_class(self, path: str, name: str) -> bool:
        """A cheap look before parsing a module only to learn that `name` is a class there, not an alias."""
        if path in self._index:
            index = self._index[path]
            return index is not None and name in index.classes
        data, written = self.tree.read_bytes(path), re.escape(b"class " + name.encode()) + rb"\b"
        # `\n` leading, not `^` under re.M: the regex then skips ahead from one `\nclass X` to the next
        return re.match(written, data) is not None or re.search(rb"\n" + written, data) is not None

    def bases(self, cls: ClassRef) -> list[ClassRef]:
        key = (cls.path, cls.node.start_byte)
        if key not in self._bases:
            self._bases[key] = self._read_bases(cls)
        return list(self._bases[key])

    def is_named_tuple(self, cls: ClassRef, depth: int = _MAX_HOPS) -> bool:
        """The class or an in-tree base of it derives from NamedTuple (GroupShape from _GroupShape)."""
        superclasses = cls.node.child_by_field_name("superclasses")
        if superclasses is not None and any(text(b).endswith("NamedTuple") for b in superclasses.named_children):
            return True
        return depth > 0 and any(self.is_named_tuple(base, depth - 1) for base in self.bases(cls))

    def _read_bases(self, cls: ClassRef) -> list[ClassRef]:
        superclasses = cls.node.child_by_field_name("superclasses")
        found: list[ClassRef] = []
        for base in superclasses.named_children if superclasses is not None else []:
            if base.type == "subscript":  # a generic base, `Builder[Metadata]`: the class is its value
                base = base.child_by_field_name("value") or base
            if base.type == "identifier":
                ref = self.find_class(text(base), cls.path)
                if ref is not None:
                    found.append(ref)
            elif base.type == "attribute" and (owner := base.child_by_field_name("object")) is not None:
                ref = self._module_class(cls.path, text(owner), text(base).rsplit(".", 1)[-1])
                if ref is not None:
                    found.append(ref)
        return found

    def _module_class(self, path: str, alias: str, name: str) -> ClassRef | None:
        """`mk.FusedMoEExperts` as a base, `mk` a module: `import a.b.c as mk` or `from a.b import c as mk`."""
        index = self.index(path)
        if index is None:
            return None
        if alias in index.imports:  # from a.b import c as mk
            dotted, submodule = index.imports[alias]
            target = self.module_path(f"{dotted}.{submodule}", path)
            return self.find_class(name, target) if target is not None else None
        for stmt in index.head.named_children:
            for imported in stmt.named_children if stmt.type == "import_statement" else []:
                given = imported.child_by_field_name("alias") if imported.type == "aliased_import" else None
                dotted_name = imported.child_by_field_name("name") if given is not None else None
                if given is not None and dotted_name is not None and text(given) == alias:
                    target = self.module_path(text(dotted_name), path)
                    return self.find_class(name, target) if target is not None else None
        return None

    def method(self, cls: ClassRef, name: str, depth: int = _MAX_HOPS) -> tuple[ClassRef, tree_sitter.Node] | None:
        """The method `name` as Python's method resolution would find it, with its defining class."""
        key = (cls.path, cls.node.start_byte, name, depth)
        if key not in self._methods:
            self._methods[key] = self._find_method(cls, name, depth)
        return self._methods[key]

    def _find_method(self, cls: ClassRef, name: str, depth: int) -> tuple[ClassRef, tree_sitter.Node] | None:
        body = cls.node.child_by_field_name("body")
        for child in body.named_children if body is not None else []:
            function = definition(child)
            if function.type == "function_definition":
                fn_name = function.child_by_field_name("name")
                if fn_name is not None and text(fn_name) == name:
                    return cls, child
        if depth > 0:
            for base in self.bases(cls):
                found = self.method(base, name, depth - 1)
                if found is not None:
                    return found
        return None

    def fields(self, cls: ClassRef, depth: int = _MAX_HOPS) -> dict[str, FieldDef]:
        """Dataclass fields in `dataclasses.fields()` order: inherited first, ClassVar/InitVar left out."""
        key = (cls.path, cls.node.start_byte, depth)
        if key not in self._fields:
            self._fields[key] = self._read_fields(cls, depth)
        return dict(self._fields[key])

    def _read_fields(self, cls: ClassRef, depth: int) -> dict[str, FieldDef]:
        result: dict[str, FieldDef] = {}
        if depth > 0:
            for base in reversed(self.bases(cls)):
                result.update(self.fields(base, depth - 1))
        body = cls.node.child_by_field_name("body")
        statements = list(body.named_children) if body is not None else []
        for i, stmt in enumerate(statements):
            assignment = stmt.named_children[0] if stmt.type == "expression_statement" and stmt.named_children else None
            if assignment is None or assignment.type != "assignment":
                continue
            left = assignment.child_by_field_name("left")
            annotation = assignment.child_by_field_name("type")
            if left is None or annotation is None or left.type != "identifier":
                continue
            if text(annotation).startswith(("ClassVar", "InitVar", "typing.ClassVar")):
                continue
            result[text(left)] = FieldDef(cls.path, text(left), assignment, annotation, _docstring(statements, i))
        return result


def _docstring(statements: list[tree_sitter.Node], i: int) -> str:
    """The attribute docstring (a bare string statement right after the field), as vLLM's help text."""
    if i + 1 < len(statements):
        nxt = statements[i + 1]
        if nxt.type == "expression_statement" and nxt.named_children and nxt.named_children[0].type == "string":
            try:
                value = literal(nxt.named_children[0])
            except NotLiteral:
                return ""
            return value if isinstance(value, str) else ""
    return ""
