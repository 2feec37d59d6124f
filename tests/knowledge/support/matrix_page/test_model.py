"""The matrix page model on the bundled registries of real releases: every cell is the evaluator's answer."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from vllm_quant_mcp.knowledge.facts.knowledge_base import KnowledgeBase
from vllm_quant_mcp.knowledge.registry.model import Registry
from vllm_quant_mcp.knowledge.support.curated import kv_judgement
from vllm_quant_mcp.knowledge.support.matrix_page.model import Cell, MatrixPage, Table, diff_page, page


@pytest.fixture(scope="module")
def registries(registries_at: Callable[..., dict[str, Registry]]) -> dict[str, Registry]:
    return registries_at("v0.31.0", "v0.32.0")


def cell(built: MatrixPage, table: str, kv: str, gpu: str) -> Cell:
    found: Table = next(t for t in built.tables if t.id == table)
    column = next(i for i, c in enumerate(found.columns) if gpu in c.gpus)
    return next(r for r in found.rows if r.key == kv).cells[column]


def cell_gpu(built: MatrixPage, gpu: str) -> str:
    """The GPU a shared column's reasons name: the first of its GPUs."""
    return next(c for c in built.tables[0].columns if gpu in c.gpus).gpus[0]


def test_every_cell_is_the_evaluators_judgement_of_that_kv_dtype_gpu_and_shape(
    kb: KnowledgeBase, registries: dict[str, Registry]
) -> None:
    registry = registries["v0.32.0"]
    built = page(kb, registry)
    for table, mode in (("attention-dense", "dense"), ("attention-mla", "mla")):
        for kv in (k.name for k in registry.kv_cache_dtypes):
            for gpu in kb.gpus:
                judged = kv_judgement(kb, registry, kv, gpu, mode)  # type: ignore[arg-type]
                shown = cell(built, table, kv, gpu.id)
                assert judged is not None
                assert (shown.verdict, shown.basis) == (judged.verdict, judged.basis)
                assert shown.why == judged.why.replace(gpu.id, cell_gpu(built, gpu.id), 1)
                assert [line.permalink for line in shown.lines] == [e.permalink for e in judged.evidence]


def test_gpus_vllm_cannot_tell_apart_share_one_column(kb: KnowledgeBase, registries: dict[str, Registry]) -> None:
    columns = page(kb, registries["v0.32.0"]).tables[0].columns
    assert next(c for c in columns if "h100" in c.gpus).gpus == ["h100", "h200"]
    assert [c.arch for c in columns if c.platform == "rocm"] == ["gfx942", "gfx950"]
    assert len({c.arch for c in columns}) == len(columns)


def test_a_cell_names_the_backend_where_one_takes_it_and_says_in_a_word_why_not_where_none_does(
    kb: KnowledgeBase, registries: dict[str, Registry]
) -> None:
    built = page(kb, registries["v0.32.0"])
    assert cell(built, "attention-dense", "fp8_e5m2", "h100").label == "FLASHINFER"
    assert cell(built, "attention-mla", "fp8_e5m2", "h100").label == "no backend"
    assert cell(built, "attention-mla", "fp8_e5m2", "h100").lines[-1].path.startswith("vllm/")
    assert cell(built, "attention-dense", "nvfp4", "cpu").basis == "curated"


def test_the_diff_marks_nvfp4_kv_on_hopper_gained_at_v0_32_0_and_leaves_unchanged_cells_alone(
    kb: KnowledgeBase, registries: dict[str, Registry]
) -> None:
    old, new = registries["v0.31.0"], registries["v0.32.0"]
    diff = diff_page(kb, old, new)
    gained = cell(diff, "attention-dense", "nvfp4", "h200")
    h200 = kb.gpus_named("h200")[0]
    was, now = kv_judgement(kb, old, "nvfp4", h200), kv_judgement(kb, new, "nvfp4", h200)
    assert was is not None and now is not None and was.verdict == "no" and now.verdict == "yes"
    assert (gained.before_verdict, gained.verdict, gained.label) == ("no", "yes", now.via)
    steady = cell(diff, "attention-dense", "auto", "h200")
    assert steady.before is None
    assert diff.changed == sum(1 for t in diff.tables for r in t.rows for c in r.cells if c.before is not None) > 0


def test_a_kv_dtype_only_the_old_tag_has_stays_in_a_downgrade_diff_as_not_a_value_at_the_new(
    kb: KnowledgeBase, registries: dict[str, Registry]
) -> None:
    old, new = registries["v0.32.0"], registries["v0.31.0"]
    dropped = {k.name for k in old.kv_cache_dtypes} - {k.name for k in new.kv_cache_dtypes}
    assert dropped, "v0.32.0 has a KV dtype v0.31.0 lacks"
    diff = diff_page(kb, old, new)
    for kv in sorted(dropped):
        shown = cell(diff, "attention-dense", kv, "h100")
        assert (shown.verdict, shown.label, shown.before is not None) == ("no", "not a value", True)
