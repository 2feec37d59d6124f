"""The matrix page as Markdown: one table per section, each cell's label linked to the line that decides it."""

from __future__ import annotations

from .model import Cell, MatrixPage, Table

__all__ = ["render_markdown"]

MARK = {"yes": "✅", "conditional": "⚠️", "no": "❌", "not derived": "·"}
BASIS = {"source": "", "observed": " ᵒ", "curated": " †"}


def _escape(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _cell(cell: Cell) -> str:
    label = _escape(cell.label)
    deciding = cell.lines[-1] if cell.lines else None
    shown = f"[{label}]({deciding.permalink})" if deciding is not None else label
    text = f"{MARK[cell.verdict]} {shown}{BASIS[cell.basis] if cell.basis else ''}"
    if cell.dissent:
        text += " ‡"
    if cell.before is not None:
        text = f"~~{MARK[cell.before_verdict or 'not derived']} {_escape(cell.before)}~~ → {text}"
    return text


def _table(table: Table) -> list[str]:
    head = [table.row_header, *(f"{' · '.join(c.gpus)} ({c.arch})" for c in table.columns)]
    lines = [f"## {table.title}", ""]
    lines += [f"_Assumes {a}._" for a in table.assumptions]
    lines += ["", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in table.rows:
        key = f"[`{row.key}`]({row.link})" if row.link else f"`{row.key}`"
        lines.append("| " + " | ".join([key, *(_cell(c) for c in row.cells)]) + " |")
    return [*lines, ""]


def render_markdown(page: MatrixPage) -> str:
    """The page as GitHub-flavoured Markdown."""
    title = f"vLLM {page.old_tag} → {page.tag}" if page.old_tag else f"vLLM {page.tag}"
    lines = [f"# {title}: support matrix", ""]
    if page.old_tag:
        lines += [f"{page.changed} cells changed since {page.old_tag} (struck through: what {page.old_tag} said).", ""]
    lines += [
        "✅ yes · ⚠️ conditional (a run-time check decides) · ❌ no · · not derived. "
        "Basis: source unless marked († curated, ᵒ observed); ‡ the knowledge base records a failure beyond "
        "the source. Each label links to the line that decides it.",
        "",
    ]
    for table in page.tables:
        lines += _table(table)
    return "\n".join(lines)
