"""Architectures: the names in a config.json's `architectures` that vLLM's model registry knows at a tag.

vLLM picks the model class by looking each name up in one dict, `_VLLM_MODELS` (registry.py,
0.6.3 on; `_MODELS` in models/__init__.py before), built by spreading the per-task dicts
(`**_TEXT_GENERATION_MODELS, ...`): the spreads are read, not the dict names guessed, so a table
added or renamed in a release is followed. Python's own rules are kept: a name spread twice keeps
its first place, and a later entry that maps it elsewhere wins. A comprehension spread
(`**{k: v for k, v in _TEXT_GENERATION_MODELS.items() if ...}`) re-adds names of a table already
spread, so it adds no name; one over anything else is a warning, never a silent gap.

Beside the known names: the removed ones with the release vLLM names (`_PREVIOUSLY_SUPPORTED_MODELS`,
0.11 on), the ones moved to a plugin (`_OOT_SUPPORTED_MODELS`, 0.19 on), and the lines of
`_ModelRegistry` that decide a name it does not list (the Transformers fallback, its messages).
"""

from __future__ import annotations

import tree_sitter

from vllm_quant_mcp.knowledge.extract.engine.syntax import NotLiteral, line, literal, matches, message, text
from vllm_quant_mcp.knowledge.extract.result import Extracted, per_tree
from vllm_quant_mcp.knowledge.registry.model import (
    ArchitectureResolution,
    Architectures,
    KnownArchitecture,
    RemovedArchitecture,
)
from vllm_quant_mcp.knowledge.sources.tree import Provenance, SourceTree

__all__ = ["CANDIDATE_PATHS", "extract_architectures"]

CANDIDATE_PATHS = ("vllm/model_executor/models/registry.py", "vllm/model_executor/models/__init__.py")
_UNIONS = ("_VLLM_MODELS", "_MODELS")
_REMOVED, _PLUGINS = "_PREVIOUSLY_SUPPORTED_MODELS", "_OOT_SUPPORTED_MODELS"


@per_tree
def extract_architectures(tree: SourceTree) -> Extracted[Architectures]:
    for path in CANDIDATE_PATHS:
        if not tree.exists(path):
            continue
        root = tree.parse(path).root_node
        tables: dict[str, tree_sitter.Node] = {}
        methods: dict[str, tree_sitter.Node] = {}
        for captures in matches("architectures", root):
            if "table.name" in captures:
                tables.setdefault(text(captures["table.name"][0]), captures["table.body"][0])
            elif "method.name" in captures:
                methods.setdefault(text(captures["method.name"][0]), captures["method.body"][0])
        union = next((name for name in _UNIONS if name in tables), None)
        if union is None:
            continue
        reader = _Reader(tree, path, tables)
        known = reader.union(tables[union])
        removed = reader.removed(tables.get(_REMOVED), "last_version") + reader.removed(tables.get(_PLUGINS), "plugin")
        found = Architectures(known=known, removed=removed, resolution=_resolution(tree, path, methods))
        note = None if found.resolution.fallback is not None else f"no Transformers-backend fallback in {path}"
        return Extracted(found, note=note, warnings=reader.warnings)
    return Extracted(Architectures(), note=f"no {' or '.join(_UNIONS)} dict in {', '.join(CANDIDATE_PATHS)}")


class _Reader:
    """The dicts of one file read as Python would build them, with a warning for each part that is not literal."""

    def __init__(self, tree: SourceTree, path: str, tables: dict[str, tree_sitter.Node]) -> None:
        self.tree, self.path, self.tables = tree, path, tables
        self.warnings: list[str] = []

    def union(self, body: tree_sitter.Node) -> list[KnownArchitecture]:
        spread = [text(s.named_children[0]) for s in body.named_children if s.type == "dictionary_splat"]
        found: dict[str, KnownArchitecture] = {}
        if not spread:  # 0.4 and 0.5: _MODELS is the one table
            self._entries(body, "models", spread, found)
        for name in spread:
            if name not in self.tables:
                self.warnings.append(f"{self.path}: _VLLM_MODELS spreads {name}, which is not a literal dict here.")
                continue
            self._entries(self.tables[name], _table_label(name), spread, found)
        return list(found.values())

    def _entries(
        self, body: tree_sitter.Node, table: str, spread: list[str], found: dict[str, KnownArchitecture]
    ) -> None:
        for child in body.named_children:
            if child.type == "pair":
                entry = self._known(child, table)
                held = found.get(entry.name) if entry is not None else None
                if entry is not None and (held is None or _target(held) != _target(entry)):
                    found[entry.name] = entry  # a dict keeps the key's first place; the later value wins
            elif child.type == "dictionary_splat":
                inner = child.named_children[0]
                if inner.type == "dictionary":
                    self._entries(inner, table, spread, found)
                elif inner.type == "identifier" and text(inner) in self.tables:
                    self._entries(self.tables[text(inner)], table, spread, found)
                elif not (inner.type == "dictionary_comprehension" and _over_spread(inner, spread)):
                    self.warnings.append(
                        f"{self.path}:{line(child)}: `**{text(inner)[:60]}` in {table} is not literal; names it adds "
                        "are missing."
                    )

    def _known(self, pair: tree_sitter.Node, table: str) -> KnownArchitecture | None:
        key, value = pair.child_by_field_name("key"), pair.child_by_field_name("value")
        try:
            name = literal(key) if key is not None else None
            target = literal(value) if value is not None else None
        except NotLiteral as exc:
            self.warnings.append(f"{self.path}: an entry of {table} is not literal ({exc}).")
            return None
        if not (isinstance(name, str) and isinstance(target, tuple) and len(target) == 2):
            self.warnings.append(f"{self.path}:{line(pair)}: an entry of {table} is not (module, class).")
            return None
        module, class_name = (str(part) for part in target)
        return KnownArchitecture(
            name=name, provenance=self.where(pair), module=module, class_name=class_name, table=table
        )

    def removed(self, body: tree_sitter.Node | None, field: str) -> list[RemovedArchitecture]:
        out: list[RemovedArchitecture] = []
        for pair in body.named_children if body is not None else []:
            key, value = pair.child_by_field_name("key"), pair.child_by_field_name("value")
            if pair.type != "pair" or key is None or value is None:
                continue
            try:
                name, said = literal(key), literal(value)
            except NotLiteral as exc:
                self.warnings.append(f"{self.path}: a removed architecture is not literal ({exc}).")
                continue
            if isinstance(name, str) and isinstance(said, str):
                out.append(RemovedArchitecture(name=name, provenance=self.where(pair), **{field: said}))
        return out

    def where(self, node: tree_sitter.Node) -> Provenance:
        return self.tree.provenance(self.path, line(node))


def _target(entry: KnownArchitecture) -> tuple[str, str]:
    return entry.module, entry.class_name


def _table_label(name: str) -> str:
    """_TEXT_GENERATION_MODELS -> text_generation: the dict's name without the part every one repeats."""
    return name.strip("_").removesuffix("_MODELS").lower() or name


def _over_spread(comprehension: tree_sitter.Node, spread: list[str]) -> bool:
    """`{k: v for k, v in _X.items() if ...}` with _X itself spread: every name it yields is already there."""
    clause = next((c for c in comprehension.named_children if c.type == "for_in_clause"), None)
    source = clause.child_by_field_name("right") if clause is not None else None
    return source is not None and text(source).removesuffix(".items()") in spread


def _resolution(tree: SourceTree, path: str, methods: dict[str, tree_sitter.Node]) -> ArchitectureResolution:
    """Where _ModelRegistry falls back to the Transformers backend, and its three refusals as written."""
    fields: dict[str, object] = {}
    inspect = methods.get("inspect_model_cls")
    fallback = _first_if(inspect, 'model_impl == "auto"') if inspect is not None else None
    if fallback is not None:
        fields["fallback"] = tree.provenance(path, line(fallback))
    resolve = methods.get("_try_resolve_transformers")
    if resolve is not None:
        fields["transformers"] = tree.provenance(path, line(resolve))
    normalize = methods.get("_normalize_arch")
    if normalize is not None:
        fields["normalize"] = tree.provenance(path, line(normalize))
    refuse = methods.get("_raise_for_unsupported")
    for node in _raised_messages(refuse) if refuse is not None else []:
        said = message(node)
        kind = "removed" if "supported in vLLM until" in said else "plugin" if "plugin" in said else "unsupported"
        if "failed to be inspected" in said or f"{kind}_message" in fields:
            continue
        fields[f"{kind}_message"] = said
        fields[f"{kind}_provenance"] = tree.provenance(path, line(node))
    return ArchitectureResolution.model_validate(fields)


def _first_if(function: tree_sitter.Node, condition: str) -> tree_sitter.Node | None:
    """The first `if` (in source order) whose condition, as written, holds `condition`."""
    stack = [function]
    found: list[tree_sitter.Node] = []
    while stack:
        node = stack.pop()
        test = node.child_by_field_name("condition") if node.type == "if_statement" else None
        if test is not None and condition in " ".join(text(test).split()):
            found.append(node)
        stack.extend(node.named_children)
    return min(found, key=lambda n: n.start_byte) if found else None


def _raised_messages(function: tree_sitter.Node) -> list[tree_sitter.Node]:
    """The string each `raise X("...")` of the function passes first, in source order."""
    out: list[tree_sitter.Node] = []
    stack = [function]
    while stack:
        node = stack.pop()
        stack.extend(node.named_children)
        if node.type != "raise_statement" or not node.named_children or node.named_children[0].type != "call":
            continue
        arguments = node.named_children[0].child_by_field_name("arguments")
        first = arguments.named_children[0] if arguments is not None and arguments.named_children else None
        if first is not None and first.type in ("string", "concatenated_string"):
            out.append(first)
    return sorted(out, key=lambda n: n.start_byte)
