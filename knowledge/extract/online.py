"""Online quantization: `--quantization` shorthands, what each quantizes, and `--quantization-config` keys.

All of it lives in vllm/config/quantization.py (0.20 on). Shorthands are the
keys of `_ONLINE_SHORTHANDS` (an `OnlineQuantScheme` enum before 0.22) and the
literal "online" (which takes its scheme from --quantization-config); config
keys are the fields of the config dataclass followed by the `QUANT_KEY_NAMES`
values a `weight`/`activation` may name.

What a shorthand quantizes is the layers its `QuantizationConfigArgs` names
(`nvfp4_per_token` has only `moe=`: a dense model's weights stay as they are).
Before 0.22 a shorthand is the global scheme, applied to linear and MoE layers
alike. Its refusals are the raises its method classes (the dispatch tables of
online/base.py) guard with a capability or kernel check.
"""

from __future__ import annotations

from typing import Literal

import tree_sitter

from vllm_quant_mcp.knowledge.extract.engine.syntax import NotLiteral, line, literal, matches, text
from vllm_quant_mcp.knowledge.extract.online_details import details
from vllm_quant_mcp.knowledge.extract.result import Extracted
from vllm_quant_mcp.knowledge.registry.model import OnlineQuantEntry
from vllm_quant_mcp.knowledge.sources.tree import SourceTree

__all__ = ["PATH", "extract_online_quantization"]

PATH = "vllm/config/quantization.py"

# Query captures in output order: shorthands, then config-dataclass fields, then QUANT_KEY_NAMES.
_GROUPS: tuple[tuple[str, Literal["shorthand", "config_key"]], ...] = (
    ("shorthand", "shorthand"),
    ("config_key.field", "config_key"),
    ("config_key.value", "config_key"),
)


def extract_online_quantization(tree: SourceTree) -> Extracted[list[OnlineQuantEntry]]:
    if not tree.exists(PATH):
        return Extracted([], note=f"no {PATH} at this tag")
    found: dict[tuple[str, str], tuple[int, int, OnlineQuantEntry]] = {}
    warnings: list[str] = []
    for captures in matches("online", tree.parse(PATH).root_node, max_start_depth=0):
        for group, (capture, kind) in enumerate(_GROUPS):
            for node in captures.get(capture, []):
                name = _name(node)
                if name is None:
                    warnings.append(f"skipped a non-literal {kind} at {PATH}:{line(node)}: {text(node)[:60]!r}")
                elif name.startswith("_"):
                    continue
                else:
                    entry = OnlineQuantEntry(name=name, kind=kind, provenance=tree.provenance(PATH, line(node)))
                    found.setdefault((kind, name), (group, node.start_byte, entry))
    entries = [entry for _, _, entry in sorted(found.values(), key=lambda item: item[:2])]
    entries = details(tree, entries)
    note = None if entries else f"{PATH} defines no online shorthands or config keys at this tag"
    return Extracted(entries, note=note, warnings=warnings)


def _name(node: tree_sitter.Node) -> str | None:
    """A field name as written, or a string key's value; None for anything computed."""
    if node.type == "identifier":
        return text(node)
    try:
        value = literal(node)
    except NotLiteral:
        return None
    return value if isinstance(value, str) else None
