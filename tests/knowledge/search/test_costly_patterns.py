"""Patterns that cost more to compile or count than to answer: refused at once, bounded, or answered in part."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.releases import release_tree

from vllm_quant_mcp.knowledge.search.grep import MAX_NESTING, InvalidPatternError, search
from vllm_quant_mcp.knowledge.search.index import SearchIndex
from vllm_quant_mcp.knowledge.search.loading import index_for
from vllm_quant_mcp.knowledge.search.scan import HYPERSCAN_NESTING
from vllm_quant_mcp.knowledge.search.translate import translate
from vllm_quant_mcp.knowledge.sources.tree import SourceTree


def small_index(root: Path) -> SearchIndex:
    (root / "a.py").write_text("x = 1\nname = 'abd'\n", encoding="utf-8")
    return index_for(SourceTree(root, "v0.1.0"))


def test_nested_counts_that_take_seconds_to_compile_are_refused_naming_the_bound(tmp_path: Path) -> None:
    index = small_index(tmp_path)
    with pytest.raises(InvalidPatternError, match=f"{MAX_NESTING:,}"):
        search(index, "(?:(?:(?:a{1,10}){1000}){1000})")


def test_a_refused_pattern_is_remembered_so_asking_again_compiles_nothing(tmp_path: Path) -> None:
    index = small_index(tmp_path)
    with pytest.raises(InvalidPatternError) as first:
        search(index, "(?:(?:(?:b{1,10}){1000}){1000})")
    with pytest.raises(InvalidPatternError) as again:
        search(index, "(?:(?:(?:b{1,10}){1000}){1000})")
    assert again.value is first.value


def test_nested_counts_hyperscan_compiles_for_a_minute_go_to_the_other_engines(tmp_path: Path) -> None:
    pattern = "(?:[^x]{1,1000}x){20}"  # Hyperscan: 13-72 s, then "Pattern is too large"
    assert translate(pattern).nesting > HYPERSCAN_NESTING
    found = search(small_index(tmp_path), pattern)
    assert found.total == 0


def test_a_broad_back_reference_answers_its_first_page_instead_of_timing_out() -> None:
    index = index_for(release_tree("0.32.0"))
    found = search(index, r"(\w+)\s+\1", keep=100)
    assert len(found.hits) == 100 and not found.counted_all  # counted for COUNT_LIMIT more, not 10 s
