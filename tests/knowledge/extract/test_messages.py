"""Message sites of real releases: each format string as written, how vLLM fills it, its guard and GPU reading."""

from __future__ import annotations

from support.releases import release_tree

from vllm_quant_mcp.knowledge.extract.messages import extract_message_sites
from vllm_quant_mcp.knowledge.registry.model import MessageSite


def _sites(version: str) -> dict[str, MessageSite]:
    return {s.name: s for s in extract_message_sites(release_tree(version)).entries}


def _line(version: str, site: MessageSite) -> str:
    path = release_tree(version).root / site.provenance.path
    return path.read_text(encoding="utf-8").splitlines()[site.provenance.line - 1]


DEPRECATED = (
    "The quantization method %s is deprecated and will be removed in future versions of vLLM. "
    "To bypass, set `--allow-deprecated-quantization`."
)


def test_v0_25_0_deprecation_refusal_is_a_value_error_whose_percent_placeholder_vllm_never_fills() -> None:
    site = _sites("0.25.0")[DEPRECATED]
    assert (site.kind, site.raises, site.style) == ("raise", "ValueError", "unfilled")
    assert site.provenance.path == "vllm/config/model.py" and site.function == "ModelConfig._verify_quantization"
    assert "raise ValueError(" in _line("0.25.0", site)
    assert site.guards == [
        "not (self.allow_deprecated_quantization)",
        "self.quantization in me_quant.DEPRECATED_QUANTIZATION_METHODS",
    ]


def test_v0_25_0_deprecation_warning_beside_it_is_a_log_call_filled_with_percent_arguments() -> None:
    site = _sites("0.25.0")[DEPRECATED.split(" To bypass")[0]]
    assert (site.kind, site.raises, site.style) == ("log", "warning", "percent")


def test_v0_32_0_nvfp4_per_token_is_raised_only_where_the_interpreter_reads_the_gpu_guard_as_true() -> None:
    site = _sites("0.32.0")["nvfp4_per_token online quantization requires a Blackwell (SM100) GPU."]
    assert site.guards == ["not current_platform.is_device_capability_family(100)"]
    assert site.raised_on == ["8.0", "8.9", "9.0", "12.0", "12.1"]
    assert site.spared_on == ["10.0", "10.3"]


def test_v0_32_0_gptq_desc_act_refusals_keep_the_plain_message_and_the_f_string_with_its_field() -> None:
    sites = _sites("0.32.0")
    plain = sites[
        "GPTQ group activation ordering (desc_act=True) is no longer supported. "
        "Use a checkpoint with static activation ordering or desc_act=False."
    ]
    assert plain.style == "plain" and plain.guards == ["desc_act"] and plain.raised_on is None
    dynamic = next(s for s in sites.values() if "enabled by dynamic rule {pattern!r}" in s.name)
    assert dynamic.style == "f-string"
    assert dynamic.provenance.path == "vllm/model_executor/layers/quantization/utils/gptq_utils.py"
