"""Golden tests: the --kv-cache-dtype values of real releases, one per layout, oldest first.

Expected lists were read from each sdist with grep/sed and cross-checked against
Python's ast on every release from 0.4.1 to 0.33.0.
"""

from __future__ import annotations

from pathlib import Path

from support.releases import release_tree

from vllm_quant_mcp.knowledge.extract.kv_cache import extract_kv_cache_dtypes
from vllm_quant_mcp.knowledge.sources.tree import SourceTree


def _names_and_lines(version: str) -> tuple[list[str], list[tuple[str, int]]]:
    entries = extract_kv_cache_dtypes(release_tree(version)).entries
    return [e.name for e in entries], [(e.provenance.path, e.provenance.line) for e in entries]


def test_0_4_1_reads_the_argparse_choices_in_arg_utils() -> None:
    names, where = _names_and_lines("0.4.1")
    assert names == ["auto", "fp8"]
    assert where == [("vllm/engine/arg_utils.py", 178), ("vllm/engine/arg_utils.py", 178)]


def test_0_6_0_reads_the_argparse_choices_in_arg_utils() -> None:
    names, where = _names_and_lines("0.6.0")
    assert names == ["auto", "fp8", "fp8_e5m2", "fp8_e4m3"]
    assert set(where) == {("vllm/engine/arg_utils.py", 255)}


def test_0_9_2_reads_the_cache_dtype_literal_in_config_py() -> None:
    names, where = _names_and_lines("0.9.2")
    assert names == ["auto", "fp8", "fp8_e4m3", "fp8_e5m2"]
    assert set(where) == {("vllm/config.py", 1477)}


def test_0_11_1_reads_the_cache_dtype_literal_in_config_cache_py_one_line_per_dtype() -> None:
    names, where = _names_and_lines("0.11.1")
    assert names == ["auto", "bfloat16", "fp8", "fp8_e4m3", "fp8_e5m2", "fp8_inc", "fp8_ds_mla"]
    assert where == [("vllm/config/cache.py", line) for line in range(25, 32)]


def test_0_22_0_reads_fifteen_dtypes_and_has_no_plugin_note() -> None:
    result = extract_kv_cache_dtypes(release_tree("0.22.0"))
    assert [e.name for e in result.entries] == [
        "auto",
        "float16",
        "bfloat16",
        "fp8",
        "fp8_e4m3",
        "fp8_e5m2",
        "fp8_inc",
        "fp8_ds_mla",
        "turboquant_k8v4",
        "turboquant_4bit_nc",
        "turboquant_k3v4_nc",
        "turboquant_3bit_nc",
        "int8_per_token_head",
        "fp8_per_token_head",
        "nvfp4",
    ]
    assert result.note is None


def test_0_32_0_has_exactly_nineteen_dtypes_in_source_order() -> None:
    names, where = _names_and_lines("0.32.0")
    assert names == [
        "auto",
        "float16",
        "bfloat16",
        "fp8",
        "fp8_e4m3",
        "fp8_e5m2",
        "fp8_inc",
        "fp8_ds_mla",
        "nvfp4_ds_mla",
        "turboquant_k8v4",
        "turboquant_4bit_nc",
        "turboquant_k3v4_nc",
        "turboquant_3bit_nc",
        "ultraquant_4bit",
        "int4_per_token_head",
        "int8_per_token_head",
        "fp8_per_token_head",
        "nvfp4",
        "nvfp4_4over6",
    ]
    assert where[0] == ("vllm/config/cache.py", 40)
    assert where[-1] == ("vllm/config/cache.py", 58)


def test_0_33_0_lists_twenty_two_dtypes_and_notes_run_time_registration_with_its_line() -> None:
    result = extract_kv_cache_dtypes(release_tree("0.33.0"))
    assert [e.name for e in result.entries] == [
        "auto",
        "float16",
        "bfloat16",
        "fp8",
        "fp8_e4m3",
        "fp8_e5m2",
        "fp8_inc",
        "fp8_ds_mla",
        "nvfp4_ds_mla",
        "turboquant_k8v4",
        "turboquant_4bit_nc",
        "turboquant_k3v4_nc",
        "turboquant_3bit_nc",
        "octave_k3v4",
        "octave_k3v3",
        "octave_k3v3_compact",
        "ultraquant_4bit",
        "int4_per_token_head",
        "int8_per_token_head",
        "fp8_per_token_head",
        "nvfp4",
        "nvfp4_4over6",
    ]
    assert result.note == (
        "plugins may register more at run time via register_kv_cache_dtype (vllm/config/cache.py:114)"
    )


def test_permalinks_point_at_the_tag_and_line() -> None:
    entry = extract_kv_cache_dtypes(release_tree("0.32.0")).entries[0]
    assert entry.provenance.permalink == "https://github.com/vllm-project/vllm/blob/v0.32.0/vllm/config/cache.py#L40"


def test_a_tree_without_any_candidate_file_gives_an_empty_list_and_a_note(tmp_path: Path) -> None:
    (tmp_path / "vllm").mkdir()
    result = extract_kv_cache_dtypes(SourceTree(tmp_path, "v0.0.0"))
    assert result.entries == []
    assert result.note is not None and "vllm/config/cache.py" in result.note and "arg_utils.py" in result.note
