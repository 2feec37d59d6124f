"""The CUDA architectures real releases compile each kernel family for, read from their root CMakeLists.txt."""

from __future__ import annotations

from support.releases import release_tree

from vllm_quant_mcp.knowledge.extract.cuda_archs import commands, extract_cuda_archs
from vllm_quant_mcp.knowledge.registry.cuda_archs import CudaArchs


def _families(version: str) -> dict[str, CudaArchs]:
    return {e.name: e for e in extract_cuda_archs(release_tree(version)).entries}


def _line(version: str, at: int) -> str:
    text = (release_tree(version).root / "CMakeLists.txt").read_text(encoding="utf-8")
    return text.splitlines()[at - 1]


def test_a_wheel_only_release_has_no_cmakelists_and_says_so() -> None:
    extracted = extract_cuda_archs(release_tree("0.4.0"))
    assert extracted.entries == [] and extracted.note is not None


def test_v0_9_2_builds_fp4_for_10_0a_only_above_cuda_12_8_and_hopper_scaled_mm_for_9_0a() -> None:
    families = _families("0.9.2")
    fp4 = families["FP4_ARCHS"]
    assert [b.archs for b in fp4.branches] == [["10.0a"]] and fp4.branches[0].cuda == []
    assert [(b.op, b.version) for b in fp4.built_if] == [(">", "12.8")]
    assert "csrc/quantization/fp4/nvfp4_scaled_mm_kernels.cu" in fp4.sources
    assert "cuda_archs_loose_intersection(FP4_ARCHS" in _line("0.9.2", fp4.provenance.line)
    sm90 = families["SCALED_MM_ARCHS"]
    assert sm90.branches[0].archs == ["9.0a"] and "scaled_mm_c3x_sm90.cu" in " ".join(sm90.sources)
    assert "FP4_SM100_ARCHS" not in families


def test_v0_33_0_splits_fp4_into_sm100_and_sm120_families_chosen_by_cuda_13() -> None:
    families = _families("0.33.0")
    sm100 = families["FP4_SM100_ARCHS"]
    assert [(b.archs, [(c.op, c.version) for c in b.cuda]) for b in sm100.branches] == [
        (["10.0f", "10.7f", "11.0f"], [(">=", "13.0")]),
        (["10.0a", "10.1a", "10.3a"], [("<", "13.0")]),
    ]
    assert [(b.op, b.version) for b in sm100.built_if] == [(">=", "12.8")]
    assert "csrc/quantization/fp4/nvfp4_scaled_mm_kernels.cu" in sm100.sources
    assert "csrc/quantization/fp4/nvfp4_scaled_mm_sm120_kernels.cu" in families["FP4_SM120_ARCHS"].sources
    for branch in sm100.branches:
        assert "cuda_archs_loose_intersection(FP4_SM100_ARCHS" in _line("0.33.0", branch.line)
    assert "FP4_ARCHS" not in families


def test_v0_17_0_keeps_one_fp4_archs_variable_for_two_blocks_sm120_first_each_chosen_by_cuda_13() -> None:
    families = _families("0.17.0")
    sm120, sm100 = families["FP4_ARCHS"], families["FP4_ARCHS#2"]
    assert [b.archs for b in sm120.branches] == [["12.0f"], ["12.0a"]]
    assert [b.archs for b in sm100.branches] == [["10.0f", "11.0f"], ["10.0a", "10.1a", "10.3a"]]
    assert [[(c.op, c.version) for c in b.cuda] for b in sm100.branches] == [[(">=", "13.0")], [("<", "13.0")]]
    assert sm100.compiled_at is not None
    assert "set_gencode_flags_for_srcs" in _line("0.17.0", sm100.compiled_at.line)


def test_scaled_mm_archs_is_one_family_per_block_each_with_its_own_sources() -> None:
    families = _families("0.33.0")
    blocks = {n: e for n, e in families.items() if n.split("#")[0] == "SCALED_MM_ARCHS"}
    assert len(blocks) >= 4
    by_file = {s.rsplit("/", 1)[-1]: n for n, e in blocks.items() for s in e.sources}
    assert families[by_file["scaled_mm_c3x_sm90.cu"]].branches[0].archs == ["9.0a"]
    assert families[by_file["scaled_mm_c3x_sm120.cu"]].branches[0].archs == ["12.0f"]


def test_cuda_supported_archs_follow_the_compiler_version_branches_in_order() -> None:
    supported = _families("0.33.0")["CUDA_SUPPORTED_ARCHS"]
    assert [[(c.op, c.version) for c in b.cuda] for b in supported.branches] == [
        [(">=", "13.4")],
        [("<", "13.4"), (">=", "13.0")],
        [("<", "13.4"), ("<", "13.0"), (">=", "12.8")],
        [("<", "13.4"), ("<", "13.0"), ("<", "12.8")],
    ]
    assert "12.1" in supported.branches[2].archs and "12.1" not in supported.branches[1].archs


def test_a_comment_or_a_string_holding_parentheses_does_not_end_a_command() -> None:
    source = 'set(A "x(y" # a ) comment\n  "b.cu")\nif(NOT ${CMAKE_CUDA_COMPILER_VERSION} VERSION_LESS 12.0)\nendif()\n'
    found = commands(source)
    assert [(c.name, c.args, c.line) for c in found] == [
        ("set", ["A", "x(y", "b.cu"], 1),
        ("if", ["NOT", "${CMAKE_CUDA_COMPILER_VERSION}", "VERSION_LESS", "12.0"], 3),
        ("endif", [], 4),
    ]
