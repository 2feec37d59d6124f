"""The matrix page as HTML: self-contained, every value escaped, the details block unbreakable by its content.

What a browser does with it is tests/server/test_http_matrix_page.py (real Chromium)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from vllm_quant_mcp.knowledge.facts.knowledge_base import KnowledgeBase
from vllm_quant_mcp.knowledge.registry.model import Registry
from vllm_quant_mcp.knowledge.support.matrix_page.html import render_html
from vllm_quant_mcp.knowledge.support.matrix_page.model import Cell, Column, Line, MatrixPage, Row, Table, page


def test_the_page_loads_nothing_from_elsewhere(
    kb: KnowledgeBase, registries_at: Callable[..., dict[str, Registry]]
) -> None:
    (registry,) = registries_at("v0.32.0").values()
    text = render_html(page(kb, registry))
    assert not re.search(r"<(script|link|img|iframe)[^>]*\b(src|href)=(?!\"data:)", text)  # the icon is inline too
    assert "@import" not in text and "url(" not in text


def test_a_hostile_label_or_reason_stays_text() -> None:
    evil = "</script><script>alert(1)</script>"
    cell = Cell(
        verdict="no", basis="source", label=evil, why=evil, lines=[Line(why=evil, path="p", line=1, permalink="h")]
    )
    table = Table(
        id="t",
        title=evil,
        row_header="k",
        columns=[Column(gpus=["x"], platform="cpu", arch="cpu")],
        rows=[Row(key=evil, cells=[cell])],
    )
    text = render_html(MatrixPage(tag="v0.32.0", tables=[table]))
    assert "<script>alert" not in text
    details = re.search(r'<script type="application/json" id="cells">(.*?)</script>', text, re.S)
    assert details is not None
    assert json.loads(details.group(1))["cells"]["t/0/0"]["why"] == evil
