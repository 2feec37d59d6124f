"""Registry diffs name what changed in meaning, not where the lines moved."""

from __future__ import annotations

from pathlib import Path

from vllm_quant_mcp.knowledge.registry.diff import diff_registries
from vllm_quant_mcp.knowledge.registry.store import Store


def test_no_provenance_of_any_field_counts_as_a_change_between_releases(tmp_path: Path) -> None:
    store = Store(tmp_path)
    diff = diff_registries(store.load_registry("v0.31.0"), store.load_registry("v0.32.0"))
    values = [v for k in diff.kinds for c in k.changed for ch in c.changes.values() for v in (ch.before, ch.after)]
    located = [v for v in values if isinstance(v, dict) and {"path", "line", "permalink"} <= v.keys()]
    assert located == []
    assert any(k.changed for k in diff.kinds)  # real changes are still reported
