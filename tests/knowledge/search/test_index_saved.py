"""A saved grep index: reused by the next process only when built from the very same files."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from support.releases import release_tree

from vllm_quant_mcp.knowledge.search.grep import search
from vllm_quant_mcp.knowledge.search.trigram import SourceIndex

FILES = [
    "vllm/model_executor/layers/quantization/__init__.py",
    "vllm/model_executor/layers/quantization/fp8.py",
    "vllm/config/cache.py",
    "vllm/envs.py",
]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A few real 0.32.0 files, copied so a test may change them."""
    source = release_tree("0.32.0").root
    for rel in FILES:
        (tmp_path / "tree" / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source / rel, tmp_path / "tree" / rel)
    return tmp_path / "tree"


def matches(index: SourceIndex, pattern: str) -> list[tuple[str, int]]:
    return [(index.paths[h.file_id], h.line) for h in search(index, pattern, keep=10**6).hits]


def test_the_next_build_reads_the_saved_index_and_finds_the_same_lines(root: Path, tmp_path: Path) -> None:
    saved = tmp_path / "index" / "v0.32.0-v1.sqlite"
    built = SourceIndex.build(root, saved)
    again = SourceIndex.build(root, saved)
    assert (built.loaded_from, again.loaded_from) == (None, saved)
    for pattern in ("QuantizationMethods", r"VLLM_USE_[A-Z_]+", "fp8_e4m3", "def get_min_capability"):
        assert matches(again, pattern) == matches(built, pattern)
    assert matches(again, "class Fp8Config")[0][0] == "vllm/model_executor/layers/quantization/fp8.py"


def test_a_saved_index_of_changed_files_is_rebuilt_and_replaced(root: Path, tmp_path: Path) -> None:
    saved = tmp_path / "index" / "v0.32.0-v1.sqlite"
    SourceIndex.build(root, saved)
    with (root / "vllm/envs.py").open("a", encoding="utf-8") as f:
        f.write("VLLM_ADDED_AFTER_SAVING = 1\n")
    rebuilt = SourceIndex.build(root, saved)
    assert rebuilt.loaded_from is None
    assert [p for p, _ in matches(rebuilt, "VLLM_ADDED_AFTER_SAVING")] == ["vllm/envs.py"]
    assert SourceIndex.build(root, saved).loaded_from == saved


def test_a_corrupt_saved_index_is_rebuilt_and_replaced(root: Path, tmp_path: Path) -> None:
    saved = tmp_path / "index" / "v0.32.0-v1.sqlite"
    saved.parent.mkdir()
    saved.write_bytes(b"not a database, or half of one")
    rebuilt = SourceIndex.build(root, saved)
    assert rebuilt.loaded_from is None
    assert matches(rebuilt, "class Fp8Config")[0][0] == "vllm/model_executor/layers/quantization/fp8.py"
    assert SourceIndex.build(root, saved).loaded_from == saved
    assert sorted(p.name for p in saved.parent.iterdir()) == [saved.name]
