"""File names a hostile mirror or folder can hold: a newline or other control character never shifts the index."""

from __future__ import annotations

from pathlib import Path

import pytest

from vllm_quant_mcp.knowledge.search.grep import search
from vllm_quant_mcp.knowledge.search.index import SearchIndex
from vllm_quant_mcp.knowledge.sources.pack import DamagedPackError, PackBuilder, directory_files, open_pack


def test_a_newline_in_a_file_name_cannot_shift_the_path_grep_reports(tmp_path: Path) -> None:
    source = tmp_path / "src"
    (source / "vllm").mkdir(parents=True)
    (source / "vllm" / "a\nb.py").write_text("x = 1\n", encoding="utf-8")
    (source / "vllm" / "kernel\x1b[2J.py").write_text("y = 2\n", encoding="utf-8")
    (source / "vllm" / "z.py").write_text("first\nneedle\n", encoding="utf-8")
    builder = PackBuilder()
    for relpath, data in directory_files(source):
        builder.add(relpath, data)
    (tmp_path / "tree").mkdir()
    builder.write(tmp_path / "tree")
    pack = open_pack(tmp_path / "tree")
    hits = search(SearchIndex(pack), "needle").hits
    assert pack.paths == ["vllm/z.py"] and sorted(builder.refused) == ["vllm/a\nb.py", "vllm/kernel\x1b[2J.py"]
    assert [(pack.paths[h.file_id], h.line) for h in hits] == [("vllm/z.py", 2)]


def test_a_pack_written_with_a_newline_in_a_name_is_refused_as_damaged(tmp_path: Path) -> None:
    builder = PackBuilder()
    builder._texts.update({"vllm/a\nb.py": b"x\n", "vllm/z.py": b"needle\n"})  # as packs before the refusal
    builder.write(tmp_path)
    with pytest.raises(DamagedPackError, match="lists 3 paths for 2 files"):
        open_pack(tmp_path)
