"""Tables on an 80-column terminal: every line fits, no word is split across lines (a cut word ends in …),
and `--wide` prints every cell whole. Real results: pick on an A100 (fp8 is a fallback there), gates over
five releases."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from support.cli import run_cli

from vllm_quant_mcp.knowledge.hub.model_facts import ExplicitModel
from vllm_quant_mcp.knowledge.registry.store import Store
from vllm_quant_mcp.server.cli.output import TABLE_TOOLS
from vllm_quant_mcp.server.cli.tables import TABLES, show
from vllm_quant_mcp.tools.check_gates.models import CheckGatesQuery
from vllm_quant_mcp.tools.check_gates.tool import check_gates
from vllm_quant_mcp.tools.context import ToolContext
from vllm_quant_mcp.tools.pick_format.models import PickFormatQuery
from vllm_quant_mcp.tools.pick_format.tool import pick_format

FIGURES = ExplicitModel(params_b=70.6, layers=80, kv_heads=8, head_dim=128)


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    ctx = ToolContext(Store(tmp_path_factory.mktemp("store")), "v0.32.0")
    command = "vllm serve m --quantization bitsandbytes --calculate-kv-scales --kv-cache-dtype fp8"
    return {
        "pick_format": pick_format(ctx, PickFormatQuery(gpu="a100", model_figures=FIGURES, num_gpus=2)),
        "check_gates": check_gates(
            ctx, CheckGatesQuery(from_tag="v0.27.1", to_tag="v0.32.0", serve_command=command, registry_changes="all")
        ),
    }


def drawn(tool: str, result: Any, **how: Any) -> str:
    out = io.StringIO()
    show(tool, result, out, **how)
    return out.getvalue()


@pytest.mark.parametrize("tool", ["pick_format", "check_gates"])
def test_at_80_columns_every_line_fits_and_every_word_is_whole_or_cut_with_an_ellipsis(
    tool: str, results: dict[str, Any]
) -> None:
    narrow = drawn(tool, results[tool], width=80)
    whole = set(drawn(tool, results[tool], wide=True).split())
    for line in narrow.splitlines():  # a word longer than the line (a URL) runs on whole rather than in pieces
        assert len(line) <= 80 or len(line.split()[-1]) > 80 - len(line.split()[0]), line
    for word in narrow.split():
        if word.strip("─") == "":
            continue
        cut = word.endswith("…") and any(w.startswith(word[:-1]) for w in whole)
        assert word in whole or cut, f"{word!r} is a piece of a word split across lines"


def test_pick_at_80_columns_keeps_fallback_a_word(results: dict[str, Any]) -> None:
    narrow = drawn("pick_format", results["pick_format"], width=80)
    assert "fallback" in narrow.split()


def test_wide_prints_every_name_and_backend_whole_on_its_row(results: dict[str, Any]) -> None:
    wide = drawn("check_gates", results["check_gates"], wide=True)
    assert "--quantization bitsandbytes" in wide and "…" not in wide
    rows = [line for line in drawn("pick_format", results["pick_format"], wide=True).splitlines() if " fp8 " in line]
    assert rows and all("…" not in r for r in rows)


def test_every_table_command_takes_wide_and_only_those(tmp_path: Path) -> None:
    assert set(TABLES) == set(TABLE_TOOLS)
    done = run_cli("diff", "v0.31.0", "v0.32.0", "--kind", "kv_cache_dtypes", "--wide", cache=tmp_path)
    assert done.returncode == 0, done.stderr
    assert run_cli("registry", "--wide", cache=tmp_path).returncode == 2
