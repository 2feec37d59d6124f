"""A source folder that is not plain files (a FIFO) or a copy that fails gives a clear error, never shutil's."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from vllm_quant_mcp.knowledge.errors import SourceError
from vllm_quant_mcp.knowledge.sources.directory import DirectorySource


def checkout(root: Path) -> Path:
    (root / "vllm").mkdir(parents=True)
    (root / "vllm" / "__init__.py").write_text("x = 1\n", encoding="utf-8")
    return root


def test_a_fifo_in_the_source_folder_is_left_out_instead_of_blocking_the_copy(tmp_path: Path) -> None:
    root = checkout(tmp_path / "src")
    os.mkfifo(root / "vllm" / "pipe")
    DirectorySource(root).fetch("v0.1.0", tmp_path / "dest")
    assert sorted(p.name for p in (tmp_path / "dest" / "vllm").iterdir()) == ["__init__.py"]


def test_a_copy_that_fails_says_where_and_why_in_one_error(tmp_path: Path) -> None:
    root = checkout(tmp_path / "src")
    (tmp_path / "dest").mkdir()
    (tmp_path / "dest" / "vllm").write_text("", encoding="utf-8")  # a file in the way, as a full disk would be
    with pytest.raises(SourceError, match="nothing half-copied is kept"):
        DirectorySource(root).fetch("v0.1.0", tmp_path / "dest")
