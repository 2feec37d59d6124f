"""The matrix page as Markdown: a table per section, each label linked to its deciding line."""

from __future__ import annotations

from collections.abc import Callable

from vllm_quant_mcp.knowledge.facts.knowledge_base import KnowledgeBase
from vllm_quant_mcp.knowledge.registry.model import Registry
from vllm_quant_mcp.knowledge.support.matrix_page.markdown import render_markdown
from vllm_quant_mcp.knowledge.support.matrix_page.model import Cell, Column, MatrixPage, Row, Table, diff_page, page


def test_each_table_has_a_header_row_of_gpus_and_a_row_per_kv_dtype(
    kb: KnowledgeBase, registries_at: Callable[..., dict[str, Registry]]
) -> None:
    (registry,) = registries_at("v0.32.0").values()
    text = render_markdown(page(kb, registry))
    assert text.count("\n## ") == 2
    header = next(line for line in text.splitlines() if line.startswith("| --kv-cache-dtype"))
    assert "h100 · h200 (SM 9.0)" in header and "mi300x (gfx942)" in header
    fp8_e5m2 = next(line for line in text.splitlines() if line.startswith("| [`fp8_e5m2`]"))
    assert "✅ [FLASHINFER](https://github.com/vllm-project/vllm/blob/v0.32.0/vllm/" in fp8_e5m2
    assert fp8_e5m2.count(" | ") == header.count(" | ")


def test_a_diff_strikes_through_what_the_old_tag_said(
    kb: KnowledgeBase, registries_at: Callable[..., dict[str, Registry]]
) -> None:
    old, new = registries_at("v0.31.0", "v0.32.0").values()
    text = render_markdown(diff_page(kb, old, new))
    nvfp4 = next(line for line in text.splitlines() if line.startswith("| [`nvfp4`]"))
    assert "~~❌ no backend~~ → ✅ [FLASHINFER]" in nvfp4


def test_a_pipe_in_a_label_does_not_open_a_column() -> None:
    odd = Cell(verdict="no", basis="curated", label="a|b", why="w")
    table = Table(
        id="t",
        title="T",
        row_header="k",
        columns=[Column(gpus=["x"], platform="cpu", arch="cpu")],
        rows=[Row(key="k", cells=[odd])],
    )
    line = render_markdown(MatrixPage(tag="v0.32.0", tables=[table])).splitlines()[-1]
    assert line == "| `k` | ❌ a\\|b † |"
