"""The support matrix of a tag as a page model: tables of cells, each the one evaluator's judgement.

Nothing here decides anything: every cell is `kv_judgement` (the source's support matrix of the
tag where it covers the GPU, the knowledge base's limits where it does not), the same call the
tools make, so the page can never say what a tool would not. A page is a list of `Table`s, each
rows by GPU columns: the attention tables are built here; another registry section (linear kernels,
MoE backends) becomes one more `Table` built by its own function and appended, and both renderers
take it as it is. A diff page is the new tag's page whose cells also carry what the old tag said.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from vllm_quant_mcp.knowledge.facts.kinds import Gpu
from vllm_quant_mcp.knowledge.facts.knowledge_base import KnowledgeBase
from vllm_quant_mcp.knowledge.registry.matrix import Mode
from vllm_quant_mcp.knowledge.registry.model import Registry
from vllm_quant_mcp.knowledge.support.curated import dissent, kv_judgement
from vllm_quant_mcp.knowledge.support.evaluate import capability_of
from vllm_quant_mcp.knowledge.support.judgement import Judgement

__all__ = ["Cell", "CellBasis", "Column", "Line", "MatrixPage", "Row", "Table", "attention_tables", "diff_page", "page"]

CellBasis = Literal["source", "observed", "curated"]
CellVerdict = Literal["yes", "conditional", "no", "not derived"]
MODES: tuple[tuple[Mode, str], ...] = (("dense", "Dense models"), ("mla", "MLA models"))


class Line(BaseModel):
    """A line of vLLM that decides the cell, with its permalink at the tag."""

    why: str
    path: str
    line: int
    permalink: str


class Cell(BaseModel):
    verdict: CellVerdict
    basis: CellBasis | None = Field(description="None only when nothing (source or knowledge base) speaks.")
    label: str = Field(description="What the cell shows: the backend, or in a word why none.")
    why: str
    lines: list[Line] = []
    dissent: str | None = Field(default=None, description="A curated `no` shown beside the source's `yes`.")
    before: str | None = Field(default=None, description="Diff pages: the old tag's label, when it differs.")
    before_verdict: CellVerdict | None = None


class Column(BaseModel):
    """One capability: GPUs vLLM cannot tell apart (h100 and h200) share a column."""

    gpus: list[str]
    platform: Literal["cuda", "rocm", "cpu"]
    arch: str = Field(description="SM 9.0, gfx942, or cpu.")


class Row(BaseModel):
    key: str = Field(description="The value the row is about, e.g. the --kv-cache-dtype value.")
    link: str | None = Field(default=None, description="Where the tag defines it.")
    cells: list[Cell]


class Table(BaseModel):
    id: str = Field(description="Stable anchor, e.g. attention-dense.")
    title: str
    row_header: str
    assumptions: list[str] = []
    columns: list[Column]
    rows: list[Row]


class MatrixPage(BaseModel):
    tag: str
    old_tag: str | None = Field(default=None, description="Set on a diff page: the tag compared against.")
    tables: list[Table]

    @property
    def changed(self) -> int:
        return sum(1 for t in self.tables for r in t.rows for c in r.cells if c.before is not None)


def columns(kb: KnowledgeBase) -> list[tuple[Column, Gpu]]:
    """One column per distinct capability, in the knowledge base's order, with the GPU that stands for it."""
    out: dict[tuple[str, int | None, str | None], tuple[Column, Gpu]] = {}
    for gpu in kb.gpus:
        key = (gpu.vendor, gpu.sm, gpu.gfx)
        if key in out:
            out[key][0].gpus.append(gpu.id)
            continue
        where = capability_of(gpu)
        if where is None:
            column = Column(gpus=[gpu.id], platform="cpu", arch="cpu")
        else:
            column = Column(gpus=[gpu.id], platform=where[0], arch=gpu.gfx or f"SM {where[1]}")
        out[key] = (column, gpu)
    return list(out.values())


def _label(judged: Judgement) -> str:
    if judged.via:
        return judged.via
    if judged.basis == "curated":
        return "yes (KB)" if judged.verdict == "yes" else "no (KB)"
    if "not a CacheDType value" in judged.why:
        return "not a value"
    if judged.verdict == "no" and "fails to start:" in judged.why:
        return "refused at build"
    if judged.verdict == "no":
        return "no backend"
    return "run-time check"


def _cell(kb: KnowledgeBase, registry: Registry, kv: str, gpu: Gpu, mode: Mode) -> Cell:
    judged = kv_judgement(kb, registry, kv, gpu, mode)
    if judged is None:
        return Cell(
            verdict="not derived",
            basis=None,
            label="not derived",
            why=f"Neither the source of {registry.tag} nor the knowledge base says whether {kv} KV runs on {gpu.id}.",
        )
    against = dissent(kb, judged)
    return Cell(
        verdict=judged.verdict,
        basis=judged.basis,
        label=_label(judged),
        why=judged.why,
        lines=[Line(why=e.why, path=e.path, line=e.line, permalink=e.permalink) for e in judged.evidence],
        dissent=against.why if against is not None else None,
    )


def attention_tables(kb: KnowledgeBase, registry: Registry, kv_dtypes: list[str] | None = None) -> list[Table]:
    """KV dtype by GPU, per model shape: the attention backend vLLM picks, or why none."""
    cols = columns(kb)
    defined = {k.name: k.provenance.permalink for k in registry.kv_cache_dtypes}
    keys = kv_dtypes if kv_dtypes is not None else list(defined)
    return [
        Table(
            id=f"attention-{mode}",
            title=f"Attention backend by KV-cache dtype: {title}",
            row_header="--kv-cache-dtype",
            assumptions=registry.attention.assumptions,
            columns=[c for c, _ in cols],
            rows=[
                Row(key=kv, link=defined.get(kv), cells=[_cell(kb, registry, kv, gpu, mode) for _, gpu in cols])
                for kv in keys
            ],
        )
        for mode, title in MODES
    ]


def page(kb: KnowledgeBase, registry: Registry) -> MatrixPage:
    return MatrixPage(tag=registry.tag, tables=attention_tables(kb, registry))


def diff_page(kb: KnowledgeBase, old: Registry, new: Registry) -> MatrixPage:
    """The new tag's tables over the values either tag has; a cell whose verdict or backend moved carries the old."""
    union = [k.name for k in new.kv_cache_dtypes]
    union += [k.name for k in old.kv_cache_dtypes if k.name not in union]
    before = {t.id: t for t in attention_tables(kb, old, union)}
    tables = attention_tables(kb, new, union)
    for table in tables:
        for row, old_row in zip(table.rows, before[table.id].rows, strict=True):
            for cell, was in zip(row.cells, old_row.cells, strict=True):
                if (cell.verdict, cell.label) != (was.verdict, was.label):
                    cell.before, cell.before_verdict = was.label, was.verdict
    return MatrixPage(tag=new.tag, old_tag=old.tag, tables=tables)
