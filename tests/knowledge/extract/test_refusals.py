"""Load-time refusals of real releases, and whether the load path reaches them."""

from __future__ import annotations

from support.releases import release_tree

from vllm_quant_mcp.knowledge.extract.refusals import extract_load_refusals
from vllm_quant_mcp.knowledge.registry.matrix import LoadRefusal


def _refusals(version: str) -> dict[str, LoadRefusal]:
    return {r.name: r for r in extract_load_refusals(release_tree(version)).entries}


def _line(version: str, path: str, line: int) -> str:
    return (release_tree(version).root / path).read_text(encoding="utf-8").splitlines()[line - 1]


def test_gptq_desc_act_is_refused_from_v0_30_0_through_the_config_every_gptq_method_builds() -> None:
    assert not any("desc_act" in r.name for r in _refusals("0.29.0").values())
    refusal = _refusals("0.30.0")["auto_gptq:normalize_and_validate_gptq_desc_act"]
    assert refusal.outcome == "refused" and refusal.reached
    assert {"gptq", "gptq_marlin", "auto_gptq"} <= set(refusal.methods)
    assert "desc_act=True) is no longer supported" in refusal.message
    assert _line("0.30.0", refusal.provenance.path, refusal.provenance.line).strip() == "raise ValueError("
    assert refusal.reached_from is not None
    assert "normalize_and_validate_gptq_desc_act(" in _line(
        "0.30.0", refusal.reached_from.path, refusal.reached_from.line
    )


def test_fp8_on_an_unquantized_checkpoint_is_redirected_from_v0_31_0_so_its_raise_is_never_reached() -> None:
    assert "fp8:unquantized checkpoint" not in _refusals("0.30.0")
    for version in ("0.31.0", "0.33.0"):
        found = _refusals(version)
        redirect = found["fp8:unquantized checkpoint"]
        assert (redirect.outcome, redirect.redirect_to) == ("redirected", "fp8_per_tensor")
        assert 'model_config.quantization == "fp8"' in _line(
            version, redirect.provenance.path, redirect.provenance.line
        )
        assert "deprecated for online quantization" in redirect.message
        raised = found["fp8:__init__"]
        assert raised.reached is False and raised.decided_by is not None
        assert (raised.decided_by.path, raised.decided_by.line) == (redirect.provenance.path, redirect.provenance.line)


def test_a_scheme_class_refusal_belongs_to_the_config_of_its_folder() -> None:
    sparse24 = next(r for r in _refusals("0.19.0").values() if "Sparse24" in r.message)
    assert sparse24.methods == ["compressed-tensors"]


def test_a_release_with_no_marked_refusal_says_so() -> None:
    result = extract_load_refusals(release_tree("0.14.0"))
    assert result.entries == [] and result.note is not None
