"""The packages real releases install with them, read from their requirements files."""

from __future__ import annotations

from support.releases import release_tree

from vllm_quant_mcp.knowledge.extract.build import extract_build_pins


def test_a_wheel_only_release_has_no_requirements_and_says_so() -> None:
    extracted = extract_build_pins(release_tree("0.4.0"))
    assert extracted.entries.pins == [] and extracted.note is not None


def test_v0_14_0_pins_torch_and_flashinfer_for_cuda_and_no_humming() -> None:
    pins = {p.name: p for p in extract_build_pins(release_tree("0.14.0")).entries.pins}
    assert pins["torch"].requirement == "torch==2.9.1" and pins["torch"].platform == "cuda"
    assert "flashinfer-python" in pins and "humming-kernels" not in pins


def test_humming_kernels_is_pinned_for_cuda_at_v0_31_0_and_v0_33_0_with_its_line() -> None:
    for version, requirement in (
        ("0.31.0", "humming-kernels[cu13]==0.1.16"),
        ("0.33.0", "humming-kernels[cu13]==0.1.19"),
    ):
        pin = next(p for p in extract_build_pins(release_tree(version)).entries.pins if p.name == "humming-kernels")
        assert pin.requirement == requirement and pin.provenance.path == "requirements/cuda.txt"
        line = (release_tree(version).root / pin.provenance.path).read_text(encoding="utf-8").splitlines()
        assert line[pin.provenance.line - 1].startswith("humming-kernels")
