"""Backend names: `--linear-backend` / `--moe-backend` values and attention backends.

Kernel backends are the Literal aliases that `KernelConfig.linear_backend` and
`.moe_backend` are annotated with in vllm/config/kernel.py (moe from 0.17,
linear from 0.22). Attention backends are the members of `AttentionBackendEnum`
(0.11.1 on) or the older `_Backend` enum, whose home moved three times; the
newest home present wins, and `AttentionBackendEnum` wins over the `_Backend`
shim that 0.11.1 to 0.12 keep beside it.
"""

from __future__ import annotations

import tree_sitter

from vllm_quant_mcp.knowledge.extract.engine.syntax import NotLiteral, line, matches, string_items, text
from vllm_quant_mcp.knowledge.extract.result import Extracted
from vllm_quant_mcp.knowledge.registry.model import BackendEntry, Backends
from vllm_quant_mcp.knowledge.sources.tree import SourceTree

__all__ = ["ATTENTION_PATHS", "KERNEL_PATH", "extract_backends"]

KERNEL_PATH = "vllm/config/kernel.py"
ATTENTION_PATHS = (
    "vllm/v1/attention/backends/registry.py",
    "vllm/attention/backends/registry.py",
    "vllm/platforms/interface.py",
    "vllm/attention/selector.py",
)
_ATTENTION_CLASSES = ("AttentionBackendEnum", "_Backend")


def extract_backends(tree: SourceTree) -> Extracted[Backends]:
    linear, moe, kernel_notes = _kernel_backends(tree)
    attention, attention_note = _attention_backends(tree)
    notes = [*kernel_notes, *([attention_note] if attention_note else [])]
    return Extracted(
        Backends(linear=linear, moe=moe, attention=attention),
        note="; ".join(notes) or None,
    )


def _kernel_backends(tree: SourceTree) -> tuple[list[BackendEntry], list[BackendEntry], list[str]]:
    if not tree.exists(KERNEL_PATH):
        return [], [], [f"no linear or MoE backend values: no {KERNEL_PATH} at this tag"]
    aliases: dict[str, tree_sitter.Node] = {}
    fields: dict[str, tree_sitter.Node] = {}
    for captures in matches("backends", tree.parse(KERNEL_PATH).root_node):
        if "alias.name" in captures:
            aliases.setdefault(text(captures["alias.name"][0]), captures["alias.value"][0])
        if "field.name" in captures:
            fields.setdefault(text(captures["field.name"][0]), captures["field.type"][0])
    found: dict[str, list[BackendEntry]] = {}
    notes: list[str] = []
    for kind in ("linear", "moe"):
        field = f"{kind}_backend"
        found[kind] = []
        if field not in fields:
            notes.append(f"no {kind} backend values: KernelConfig has no {field} field in {KERNEL_PATH}")
            continue
        values = _literal_of(fields[field], aliases)
        if values is None:
            notes.append(f"no {kind} backend values: KernelConfig.{field} in {KERNEL_PATH} is not a Literal type")
            continue
        try:
            items = string_items(values)
        except NotLiteral as exc:
            notes.append(f"the {kind} backend values in {KERNEL_PATH} are not literal: {exc}")
            items = []
        found[kind] = [
            BackendEntry(name=name, provenance=tree.provenance(KERNEL_PATH, line(node))) for name, node in items
        ]
    return found["linear"], found["moe"], notes


def _literal_of(annotation: tree_sitter.Node, aliases: dict[str, tree_sitter.Node]) -> tree_sitter.Node | None:
    """The Literal[...] an annotation names, inline or through a module-level alias (`X | None` included)."""
    pending = [annotation]
    while pending:
        node = pending.pop(0)
        if node.type == "subscript" and text(node).startswith("Literal["):
            return node
        if node.type == "identifier" and text(node) in aliases:
            return aliases[text(node)]
        pending.extend(node.named_children)
    return None


def _attention_backends(tree: SourceTree) -> tuple[list[BackendEntry], str | None]:
    for path in ATTENTION_PATHS:
        if not tree.exists(path) or not any(name.encode() in tree.read_bytes(path) for name in _ATTENTION_CLASSES):
            continue
        members: dict[str, list[tree_sitter.Node]] = {name: [] for name in _ATTENTION_CLASSES}
        for captures in matches("backends", tree.parse(path).root_node):
            if "attention.class" in captures:
                members[text(captures["attention.class"][0])].extend(captures["attention.member"])
        for name in _ATTENTION_CLASSES:
            nodes = sorted(
                (node for node in members[name] if not text(node).startswith("_")), key=lambda n: n.start_byte
            )
            if nodes:
                return [
                    BackendEntry(name=text(node), provenance=tree.provenance(path, line(node))) for node in nodes
                ], None
    return [], f"no AttentionBackendEnum or _Backend enum in {', '.join(ATTENTION_PATHS)}"
