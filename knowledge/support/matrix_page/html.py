"""The matrix page as one self-contained HTML file: inline CSS and script, no request beyond the page itself.

Opened from a disk, an air-gapped laptop or the HTTP server alike. Each cell is coloured by
verdict (yes / conditional / no) and striped by basis (source / observed / curated); hovering
shows why with the deciding path:line, clicking opens the lines as permalinks at the tag. The
details live once in a JSON block (lines shared by many cells are stored once), not in each cell.
"""

from __future__ import annotations

import json
from html import escape

from .model import Cell, Line, MatrixPage, Table

__all__ = ["render_html"]

STYLE = """
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#1b1f23;background:#fff}
h1{font-size:1.5em;margin:0 0 .3em}h2{font-size:1.15em;margin:1.6em 0 .3em}
.legend span{display:inline-block;padding:.1em .5em;margin:0 .3em .3em 0;border-radius:3px}
.assume{color:#57606a;font-size:.9em;margin:.2em 0 .5em}
.wrap{overflow-x:auto}
table{border-collapse:collapse;font-size:12.5px}
th,td{border:1px solid #d0d7de;padding:3px 6px;vertical-align:top}
thead th{background:#f6f8fa;position:sticky;top:0}
th.row{text-align:left;white-space:nowrap;background:#f6f8fa}
th small{display:block;font-weight:normal;color:#57606a}
td{cursor:pointer;min-width:5.5em;border-left-width:5px}
td:hover,td.sel{outline:2px solid #0969da}
.v-yes{background:#dafbe1}.v-conditional{background:#fff3bf}.v-no{background:#ffebe9}
.v-not-derived{background:#f0f0f0;color:#6e7781}
.b-source{border-left-color:#0969da}.b-observed{border-left-color:#8250df}.b-curated{border-left-color:#bc4c00}
td.changed{box-shadow:inset 0 0 0 2px #cf222e}
td del{display:block;color:#6e7781;font-size:.9em}
td .dissent{color:#bc4c00;font-weight:bold}
#detail{position:fixed;right:1em;bottom:1em;max-width:42em;max-height:45vh;overflow:auto;background:#fff;
border:1px solid #8c959f;border-radius:6px;padding:.8em 1em;box-shadow:0 4px 16px #0003}
#detail[hidden]{display:none}#detail ul{padding-left:1.2em;margin:.4em 0}
#detail button{float:right}
"""

SCRIPT = """
const data=JSON.parse(document.getElementById('cells').textContent);
const panel=document.getElementById('detail');
function show(td){
  document.querySelectorAll('td.sel').forEach(e=>e.classList.remove('sel'));
  td.classList.add('sel');
  const c=data.cells[td.dataset.cell];
  const p=document.createElement('p');p.textContent=c.why;
  const ul=document.createElement('ul');
  for(const i of c.lines){const [why,where,link]=data.lines[i];
    const li=document.createElement('li');const a=document.createElement('a');
    a.href=link;a.textContent=where;li.append(a,' '+why);ul.append(li);}
  const head=document.createElement('strong');head.textContent=td.dataset.kv+' on '+td.dataset.gpus;
  const close=document.createElement('button');close.textContent='close';close.onclick=()=>{panel.hidden=true};
  panel.replaceChildren(close,head,p,ul);
  if(c.dissent){const d=document.createElement('p');d.className='dissent';d.textContent='Knowledge base: '+c.dissent;
    panel.append(d);}
  panel.hidden=false;
}
document.querySelectorAll('td[data-cell]').forEach(td=>td.addEventListener('click',()=>show(td)));
"""


class _Lines:
    """Each distinct line once, by index: the priority-list line alone is shared by hundreds of cells."""

    def __init__(self) -> None:
        self.index: dict[tuple[str, str, str], int] = {}

    def of(self, line: Line) -> int:
        key = (line.why, f"{line.path}:{line.line}", line.permalink)
        return self.index.setdefault(key, len(self.index))


def _title(cell: Cell) -> str:
    deciding = cell.lines[-1] if cell.lines else None
    where = f"\n{deciding.path}:{deciding.line}" if deciding is not None else ""
    return cell.why + where + ("\nclick for every deciding line" if cell.lines else "")


def _td(table: Table, r: int, c: int, cell: Cell, kv: str, details: dict[str, object], lines: _Lines) -> str:
    ident = f"{table.id}/{r}/{c}"
    details[ident] = {"why": cell.why, "lines": [lines.of(x) for x in cell.lines], "dissent": cell.dissent}
    classes = [f"v-{cell.verdict.replace(' ', '-')}", f"b-{cell.basis or 'none'}"]
    before = ""
    if cell.before is not None:
        classes.append("changed")
        before = f"<del>{escape(cell.before)}</del>"
    mark = '<span class="dissent" title="the knowledge base records a failure beyond the source"> ‡</span>'
    gpus = " ".join(table.columns[c].gpus)
    return (
        f'<td class="{" ".join(classes)}" data-cell="{ident}" data-kv="{escape(kv)}" data-gpus="{escape(gpus)}" '
        f'data-verdict="{cell.verdict}" data-basis="{cell.basis or ""}" title="{escape(_title(cell))}">'
        f"{before}<span class=label>{escape(cell.label)}</span>{mark if cell.dissent else ''}</td>"
    )


def _table(table: Table, details: dict[str, object], lines: _Lines) -> str:
    head = "".join(
        f'<th data-gpus="{escape(" ".join(c.gpus))}">{escape(" · ".join(c.gpus))}<small>{escape(c.arch)}</small></th>'
        for c in table.columns
    )
    rows = []
    for r, row in enumerate(table.rows):
        key = escape(row.key)
        name = f'<a href="{escape(row.link)}">{key}</a>' if row.link else key
        cells = "".join(_td(table, r, c, cell, row.key, details, lines) for c, cell in enumerate(row.cells))
        rows.append(f'<tr data-kv="{key}"><th class=row>{name}</th>{cells}</tr>')
    assumes = "".join(f"<p class=assume>Assumes {escape(a)}.</p>" for a in table.assumptions)
    return (
        f'<section id="{escape(table.id)}"><h2>{escape(table.title)}</h2>{assumes}<div class=wrap><table>'
        f"<thead><tr><th>{escape(table.row_header)}</th>{head}</tr></thead><tbody>{''.join(rows)}</tbody>"
        "</table></div></section>"
    )


def _json(value: object) -> str:
    """JSON safe inside <script>: no `</script>` or `<!--` can end or bend the block."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")


def render_html(page: MatrixPage) -> str:
    """The whole page, one string."""
    title = f"vLLM {page.old_tag} → {page.tag}" if page.old_tag else f"vLLM {page.tag}"
    details: dict[str, object] = {}
    lines = _Lines()
    tables = "".join(_table(t, details, lines) for t in page.tables)
    changed = (
        f"<p id=changed><strong>{page.changed}</strong> cells changed since {escape(page.old_tag)} "
        "(outlined; struck through: what it said).</p>"
        if page.old_tag
        else ""
    )
    shared = [[why, where, link] for (why, where, link) in lines.index]
    stripe = 'style="border-left-width:5px;border-left-style:solid"'
    legend = (
        "<p class=legend><span class=v-yes>yes</span><span class=v-conditional>conditional: a run-time check "
        "decides</span><span class=v-no>no</span><span class=v-not-derived>not derived</span> basis, the left "
        f"stripe: <span class=b-source {stripe}>source</span><span class=b-observed {stripe}>observed</span>"
        f"<span class=b-curated {stripe}>curated</span> ‡ the knowledge base records a failure beyond the source. "
        "Hover a cell for why and the deciding line; click for every line.</p>"
    )
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width,initial-scale=1"><link rel="icon" href="data:,">'
        f"<title>{escape(title)}: support matrix</title><style>{STYLE}</style></head><body>"
        f"<h1>{escape(title)}: support matrix</h1>{changed}{legend}{tables}"
        '<aside id="detail" hidden></aside>'
        f'<script type="application/json" id="cells">{_json({"lines": shared, "cells": details})}</script>'
        f"<script>{SCRIPT}</script></body></html>\n"
    )
