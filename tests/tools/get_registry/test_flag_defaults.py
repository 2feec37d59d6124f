"""get_registry shows each flag's default with the line that states it (bundled registries of real releases)."""

from __future__ import annotations

from vllm_quant_mcp.tools.context import ToolContext
from vllm_quant_mcp.tools.get_registry.models import GetRegistryQuery
from vllm_quant_mcp.tools.get_registry.text import render
from vllm_quant_mcp.tools.get_registry.tool import get_registry


def _lines(ctx: ToolContext, tag: str, contains: str) -> dict[str, str]:
    view = get_registry(ctx, GetRegistryQuery(tag=tag, kind="cli_flags", contains=contains))
    return {line.split()[0]: line for line in render(view).splitlines() if line.startswith("  --")}


def test_a_flag_lists_its_literal_default_and_where_the_source_states_it(ctx: ToolContext) -> None:
    assert _lines(ctx, "v0.19.1", "gpu-memory")["--gpu-memory-utilization"].endswith(
        "default=0.9 (vllm/config/cache.py:41)"
    )
    assert _lines(ctx, "v0.33.0", "gpu-memory")["--gpu-memory-utilization"].endswith(
        "default=0.92 (vllm/config/cache.py:215)"
    )
    assert _lines(ctx, "v0.33.0", "max-model-len")["--max-model-len"].endswith(
        "default=None (vllm/config/model.py:249)"
    )


def test_a_computed_default_says_it_is_not_a_literal_and_an_unstated_one_says_nothing(ctx: ToolContext) -> None:
    assert _lines(ctx, "v0.33.0", "additional-config")["--additional-config"].endswith(
        "default=not a literal: Field(default_factory=dict) (vllm/config/vllm.py:429)"
    )
    assert "default" not in _lines(ctx, "v0.33.0", "disable-log-stats")["--disable-log-stats"]


def test_the_json_entry_carries_the_default_fields(ctx: ToolContext) -> None:
    view = get_registry(ctx, GetRegistryQuery(tag="v0.33.0", kind="cli_flags", contains="gpu-memory-utilization"))
    details = view.entries[0].details
    assert details["default"] == 0.92 and details["default_expression"] is None
    assert details["default_provenance"]["permalink"].endswith("/blob/v0.33.0/vllm/config/cache.py#L215")
