"""Tables for the answers people compare across rows: `pick`, `diff` and `gates`, drawn with rich.

The tools' own `render(result) -> str` (tools/<tool>/text.py) stays the plain text both
edges can use; these tables are the CLI's richer view of the same result, nothing more
(no figure here that the result does not hold, except pick's unquantized baseline row,
computed with the same memory model the tool uses). rich is imported by `show`, never
at start-up: `serve` and every other command load none of it.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, TextIO

from vllm_quant_mcp.knowledge.registry.diff import FieldChange, KindDiff
from vllm_quant_mcp.knowledge.support.judgement import Judgement
from vllm_quant_mcp.tools.check_gates.models import CheckGatesResult, Hop
from vllm_quant_mcp.tools.diff_tags.models import DiffPage
from vllm_quant_mcp.tools.diff_tags.text import describe_pick, describe_walk
from vllm_quant_mcp.tools.paging import more_line
from vllm_quant_mcp.tools.pick_format.models import PickFormatResult

if TYPE_CHECKING:
    from rich.console import RenderableType
    from rich.table import Table

__all__ = ["TABLES", "show"]


_WHOLE = {"name", "quantization", "KV dtype", "change", "kind", "severity", "basis", "as written", "#", "support"}
_WHOLE |= {"GB/GPU", "tokens fit"}
PIPE_WIDTH = 160  # into a file or a CI log: wide enough that names and values stay on their rows
NARROW = 120  # below this many columns, name columns are held to _NARROW / NAME_WIDTH
WIDE = 100_000  # --wide: no cell is cut, whatever the terminal
NAME_WIDTH = 24  # a name column's share of a narrow terminal, so the prose beside it keeps room
# Columns of words from a small vocabulary (change kinds, registry kinds, severities): cut shorter still.
_NARROW = {"change": 13, "kind": 15, "severity": 10, "basis": 8, "#": 3, "support": 9, "quantization": 18}
PROSE_WIDTH = 10  # the least a prose column gets: a word or two, not three letters


def _table(*columns: str, title: str | None = None) -> Table:
    """Names stay on one line (cut with … when the terminal is narrow, whole with --wide); prose wraps between
    words, and a word too long for its column ends in … rather than running onto the next line in pieces."""
    from rich import box
    from rich.table import Table

    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
    for column in columns:
        if column in _WHOLE:
            table.add_column(column, no_wrap=True, overflow="ellipsis")
        else:
            table.add_column(column, overflow="ellipsis", min_width=min(PROSE_WIDTH, max(len(column), 4)))
    return table


def _tokens(value: int | None) -> str:
    return f"{value:,}" if value is not None else "?"


# The column is "loads / KV backend": the kernel judgements are in --json and the text rendering, not this cell.
_LOADS_AND_KV = ("--quantization", "--kv-cache-dtype")


def _judged(j: Judgement) -> str:
    """`yes`, `no` or `run time` for the method; the backend for the KV dtype (`FLASH_ATTN or FLASHINFER`)."""
    word = {"yes": "yes", "no": "no", "conditional": "run time"}[j.verdict]
    return j.via if j.via and j.subject.startswith("--kv-cache-dtype") else word


def pick_view(result: PickFormatResult) -> list[RenderableType]:
    """Options by rank with an unquantized baseline row to compare; caveats, exclusions and notes below."""
    from vllm_quant_mcp.knowledge.hub.memory import estimate

    columns = [
        "#",
        "quantization",
        "KV dtype",
        "support",
        "loads / KV backend [source]",
        "GB/GPU",
        "tokens fit",
    ]
    table = _table(*columns, title=f"{result.model.source} on {result.num_gpus} x {result.gpu.name} at {result.tag}")
    table.caption = f"support: the curated GPU table; loads / KV backend: from the source at {result.tag}"
    for c in columns[-2:]:
        table.columns[columns.index(c)].justify = "right"
    for o in result.options:
        table.add_row(
            str(o.rank),
            o.quantization.name,
            o.kv_cache_dtype.name,
            o.support,
            " / ".join(_judged(j) for j in o.judgements if j.subject.startswith(_LOADS_AND_KV)),
            f"{o.memory.weights_gb_per_gpu:.1f}",
            _tokens(o.memory.tokens_fit),
        )
    first = result.options[0].memory if result.options else None
    base = estimate(
        result.model,
        "bf16",
        "auto",
        result.gpu.memory_gb,
        result.num_gpus,
        context_len=first.context_len if first else None,
        concurrency=first.concurrency if first else None,
        utilization=result.gpu_memory_utilization.value,
    )
    table.add_section()
    table.add_row(
        "-",
        f"unquantized ({result.model.dtype})",
        "auto",
        "baseline",
        "-",
        f"{base.weights_gb_per_gpu:.1f}",
        _tokens(base.tokens_fit) if base.fits is not False or base.tokens_fit else "does not fit",
    )
    lines = [f"{o.rank}. caveat [{c.basis or 'memory'}]: {c.text}" for o in result.options for c in o.caveats]
    lines += [
        f"excluded {e.quantization} / KV {e.kv_cache_dtype} [{e.basis or 'memory'}]: {e.reason}"
        for e in result.excluded
    ]
    if result.omitted:
        lines.append(f"{result.omitted} more viable option(s) ranked below these; --json lists them all.")
    lines += [f"note: {n}" for n in result.notes]
    return [table, *lines]


def _listed(change: FieldChange) -> str | None:
    """A list field's change as items: `+ new - gone`; None when either side is not a list."""
    if not (isinstance(change.before, list) and isinstance(change.after, list)):
        return None
    added = [str(v) for v in change.after if v not in change.before]
    removed = [str(v) for v in change.before if v not in change.after]
    return " ".join([*(f"+ {v}" for v in added), *(f"- {v}" for v in removed)]) or "reordered"


def _kind_rows(kind: KindDiff) -> Iterable[tuple[str, str, str]]:
    for e in kind.added:
        yield "+", e.name, f"{e.provenance.path}:{e.provenance.line}"
    for e in kind.removed:
        yield "-", e.name, f"{e.replaced_by} ({e.provenance.path}:{e.provenance.line})" if e.replaced_by else ""
    for c in kind.changed:
        for field, change in c.changes.items():
            items = _listed(change)
            yield (
                "~",
                c.name,
                f"{field}: {items}" if items is not None else f"{field}: {change.before!r} → {change.after!r}",
            )


def diff_view(result: DiffPage) -> list[RenderableType]:
    """One table per kind that changed: + added, - removed, ~ changed (list fields as item diffs); the kernel picks
    that changed, per walk and GPUs; then the page."""
    views: list[RenderableType] = [f"{result.from_tag} → {result.to_tag}"]
    shown = 0
    for kind in result.kinds:
        if kind.empty:
            continue
        table = _table("", "name", "detail", title=kind.kind)
        for row in _kind_rows(kind):
            table.add_row(*row)
        views.append(table)
        shown += len(kind.added) + len(kind.removed) + len(kind.changed)
    if result.kernel_picks:
        table = _table("walk", "GPU", result.from_tag, result.to_tag, title="kernel picks")
        for c in result.kernel_picks:
            table.add_row(describe_walk(c), ", ".join(c.capabilities), describe_pick(c.before), describe_pick(c.after))
        views.append(table)
        shown += len(result.kernel_picks)
    views.append(more_line(result, shown, result.total, "changes") if result.total else "no differences")
    return views


def _what_changed(change: Any) -> str:
    if change.values:
        sign = "+" if change.change == "choices_added" else "-"
        return " ".join(f"{sign} {v}" for v in change.values)
    return (change.detail or "").replace(" -> ", " → ")


def _hop_table(hop: Hop) -> Table:
    table = _table("change", "kind", "name", "what changed (old → new)", title=f"{hop.from_tag} → {hop.to_tag}")
    for c in hop.changes:
        table.add_row(c.change, c.kind, c.name, _what_changed(c))
    return table


def gates_view(result: CheckGatesResult) -> list[RenderableType]:
    """The summary, the command's findings, then per hop the gates crossed and what changed, old → new."""
    views: list[RenderableType] = [result.summary]
    if result.model_shape is not None:
        views.append(f"model: {result.model_shape}")
    if result.findings:
        table = _table("severity", "basis", "as written", "problem", "action")
        for f in result.findings:
            hint = f" Did you mean: {', '.join(f.suggestions)}?" if f.suggestions else ""
            table.add_row(f.severity, f.basis, f.written, f.problem, f.action + hint)
        views.append(table)
    for hop in result.hops:
        views += [f"gate [curated] {g.id} ({hop.to_tag}): {g.change} → {g.action}" for g in hop.gates]
        if hop.changes:
            views.append(_hop_table(hop))
    shown = len(result.findings) + sum(len(h.gates) + len(h.changes) for h in result.hops)
    if result.next or shown < result.total:
        views.append(more_line(result, shown, result.total, "findings, gates and changes"))
    return views


TABLES: dict[str, Callable[[Any], list[RenderableType]]] = {
    "pick_format": pick_view,
    "diff_tags": diff_view,
    "check_gates": gates_view,
}


def show(
    tool: str,
    result: Any,
    stream: TextIO,
    spell: Callable[[str], str] = str,
    wide: bool = False,
    width: int | None = None,
) -> None:
    """Print the tool's table view on `stream`, its lines of text through `spell` (parameter names as CLI flags);
    rich picks colour and width on a terminal, PIPE_WIDTH elsewhere, `width` when given; `wide`: every cell whole."""
    from rich.console import Console
    from rich.table import Table

    if wide:
        width = WIDE
    elif width is None:
        width = None if stream.isatty() else PIPE_WIDTH
    console = Console(file=stream, width=width, highlight=False, soft_wrap=wide)
    for view in TABLES[tool](result):
        if wide and isinstance(view, Table):
            for column in view.columns:
                column.no_wrap = True
        elif console.width < NARROW and isinstance(view, Table):
            for column in view.columns:
                if str(column.header) in _WHOLE:
                    column.max_width = _NARROW.get(str(column.header), NAME_WIDTH)
        if isinstance(view, str):  # lines wrap between words; a word longer than the line (a URL) runs on, whole
            text = spell(view)
            if not wide:
                text = "\n".join(
                    textwrap.fill(line, console.width, break_long_words=False, break_on_hyphens=False) or line
                    for line in text.splitlines()
                )
            console.print(text, markup=False, soft_wrap=True)
        else:
            console.print(view)
