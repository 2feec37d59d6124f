"""What each online shorthand quantizes and where its method classes refuse a GPU (see online.py)."""

from __future__ import annotations

import re
from typing import Literal

from vllm_quant_mcp.knowledge.extract.engine import Modules
from vllm_quant_mcp.knowledge.extract.engine.syntax import line, matches, maybe_literal_str, message, text
from vllm_quant_mcp.knowledge.registry.matrix import OnlineRefusal
from vllm_quant_mcp.knowledge.registry.model import OnlineQuantEntry
from vllm_quant_mcp.knowledge.sources.tree import SourceTree

__all__ = ["details"]

PATH = "vllm/config/quantization.py"
DISPATCH = "vllm/model_executor/layers/quantization/online/base.py"
_HARDWARE = re.compile(r"capability|Marlin|is_rocm|is_cuda|is_xpu")
_FAMILY = re.compile(r"is_device_capability_family\((\d+)\)")
Layer = Literal["linear", "moe"]


def details(tree: SourceTree, entries: list[OnlineQuantEntry]) -> list[OnlineQuantEntry]:
    """The entries with the shorthands' layers, weight keys and refusals filled in; "online" added."""
    keys, online_at = _shorthand_keys(tree)
    refusals = _refusals(tree)
    out = []
    for entry in entries:
        if entry.kind == "shorthand":
            layers = keys.get(entry.name)
            quantizes: list[Layer] = sorted(layers) if layers is not None else ["linear", "moe"]
            found = [r for layer, key in (layers or {}).items() for r in refusals.get((layer, key), [])]
            entry = entry.model_copy(update={"quantizes": quantizes, "weight_keys": layers or {}, "refusals": found})
        out.append(entry)
    if online_at is not None and all(e.name != "online" for e in entries):
        shorthands = sum(e.kind == "shorthand" for e in out)
        where = tree.provenance(PATH, online_at)
        out.insert(shorthands, OnlineQuantEntry(name="online", kind="shorthand", provenance=where, quantizes=[]))
    return out


def _shorthand_keys(tree: SourceTree) -> tuple[dict[str, dict[Layer, str]], int | None]:
    """Shorthand -> {layer: weight key} (0.22 on), and the line that makes "online" a --quantization value."""
    keys: dict[str, dict[Layer, str]] = {}
    online_at: int | None = None
    for captures in matches("online_details", tree.parse(PATH).root_node):
        if "online" in captures:
            online_at = online_at or line(captures["online"][0])
        if "detail.shorthand" in captures:
            name, layer = maybe_literal_str(captures["detail.shorthand"][0]), text(captures["detail.layer"][0])
            if name is not None and layer in ("linear", "moe"):
                keys.setdefault(name, {})[layer] = text(captures["detail.key"][0])  # type: ignore[index]
    return keys, online_at


def _refusals(tree: SourceTree) -> dict[tuple[Layer, str], list[OnlineRefusal]]:
    """(layer, weight key) -> the hardware-guarded raises of the method class the dispatch table names."""
    if not tree.exists(DISPATCH):
        return {}
    modules = Modules(tree)
    found: dict[tuple[Layer, str], list[OnlineRefusal]] = {}
    for captures in matches("online_details", tree.parse(DISPATCH).root_node):
        if "dispatch.table" not in captures:
            continue
        layer: Layer = "moe" if text(captures["dispatch.table"][0]) == "_ONLINE_MOE_METHODS" else "linear"
        for key_node, cls_node in zip(captures["dispatch.key"], captures["dispatch.class"], strict=False):
            ref = modules.find_class(text(cls_node), DISPATCH)
            if ref is None:
                continue
            found[(layer, text(key_node))] = [
                OnlineRefusal(
                    layer=layer,
                    condition=" ".join(text(c["refusal.condition"][0]).split()),
                    family=_family(text(c["refusal.condition"][0])),
                    message=message(c["refusal.message"][0]),
                    provenance=tree.provenance(ref.path, line(c["refusal"][0])),
                )
                for c in matches("online_details", ref.node)
                if "refusal" in c and _HARDWARE.search(text(c["refusal.condition"][0]))
            ]
    return found


def _family(condition: str) -> int | None:
    match = _FAMILY.search(condition)
    return int(match.group(1)) if match and condition.lstrip().startswith("not ") else None
