"""triage on the bundled registries of real releases, with messages as vLLM prints them (taken from the source)."""

from __future__ import annotations

from typing import Any

from vllm_quant_mcp.tools.context import ToolContext
from vllm_quant_mcp.tools.triage.models import TriageQuery, TriageResult
from vllm_quant_mcp.tools.triage.tool import triage

NVFP4 = "ValueError: nvfp4_per_token online quantization requires a Blackwell (SM100) GPU."
DESC_ACT = (
    "ValueError: GPTQ group activation ordering (desc_act=True) is no longer supported. "
    "Use a checkpoint with static activation ordering or desc_act=False."
)
DEPRECATED = (
    "Value error, ('The quantization method %s is deprecated and will be removed in future versions of vLLM. "
    "To bypass, set `--allow-deprecated-quantization`.', 'fbgemm_fp8') [type=value_error, "
    "input_value=ArgsKwargs((), {'model': 'facebook/opt-125m'}), input_type=ArgsKwargs]"
)


def ask(ctx: ToolContext, text: str, **options: Any) -> TriageResult:
    return triage(ctx, TriageQuery(text=text, **options))


def test_v0_25_0_deprecation_tuple_finds_the_raise_its_guard_the_flag_that_trips_it_and_the_bypass(
    ctx: ToolContext,
) -> None:
    result = ask(ctx, DEPRECATED, tag="v0.25.0", command="vllm serve facebook/opt-125m --quantization fbgemm_fp8")
    top = result.sites[0]
    assert (top.kind, top.match, top.provenance.path) == ("raise", "exact", "vllm/config/model.py")
    assert top.filled == {"(unfilled)": "'fbgemm_fp8'"}
    assert top.guards[0] == "not (self.allow_deprecated_quantization)"
    assert top.triggered_by == ["--quantization fbgemm_fp8"]
    assert "the message says: To bypass, set `--allow-deprecated-quantization`." in top.avoid
    assert top.first_seen == "v0.14.0" and top.basis == "source"


def test_v0_32_0_nvfp4_per_token_is_reached_on_an_h100_and_avoided_on_sm100(ctx: ToolContext) -> None:
    (top,) = ask(ctx, NVFP4, tag="v0.32.0", gpu="H100").sites
    assert top.provenance.path == "vllm/model_executor/layers/quantization/online/nvfp4.py"
    assert top.on_your_gpu == "h100 (SM 9.0): the GPU guard holds, reached there"
    assert top.triggered_by == ["gpu h100 (SM 9.0)"]
    assert top.avoid[0] == "a GPU of SM 10.0, 10.3, where the GPU guard fails"
    (on_b200,) = ask(ctx, NVFP4, tag="v0.32.0", gpu="B200").sites
    assert on_b200.on_your_gpu == "b200 (SM 10.0): the GPU guard fails, not reached there"


def test_v0_32_0_desc_act_names_its_release_span_and_the_curated_gate_with_citations(ctx: ToolContext) -> None:
    result = ask(ctx, DESC_ACT, tag="v0.32.0")
    top = result.sites[0]
    assert top.provenance.path == "vllm/model_executor/layers/quantization/utils/gptq_utils.py"
    assert (top.first_seen, top.gone_in) == ("v0.30.0", None)
    assert top.guards == ["desc_act"]
    gate = next(c for c in result.curated if c.id == "gate-v0.30.0-gptq-act-order")
    assert gate.basis == "curated" and any(c.label == "PR #54809" for c in gate.citations)


def test_desc_act_pasted_at_v0_29_0_is_not_printed_there_and_is_found_at_the_releases_that_do(
    ctx: ToolContext,
) -> None:
    result = ask(ctx, DESC_ACT, tag="v0.29.0")
    assert result.notes == ["Not printed at v0.29.0; these sites are at the releases that print it (each site's tag)."]
    assert result.sites[0].tag == "v0.33.0" and result.sites[0].first_seen == "v0.30.0"


def test_a_compressed_tensors_refusal_that_moved_files_at_v0_20_0_says_where_it_went(ctx: ToolContext) -> None:
    result = ask(ctx, "ValueError: WNA16MoE is not supported with actorder=group/dynamic.", tag="v0.22.0")
    (move,) = result.sites[0].moved
    assert move.startswith(
        "v0.20.0: vllm/model_executor/layers/quantization/compressed_tensors/compressed_tensors_moe.py"
    )


def test_a_message_vllm_never_prints_says_so_with_the_nearest_messages_and_no_site(ctx: ToolContext) -> None:
    result = ask(ctx, "ValueError: Unknown quantisation method fp9 for this checkpoint", tag="v0.32.0")
    assert result.sites == []
    assert result.nearest and result.notes[0].startswith("No raise or log site on the start-up path at v0.32.0")


def test_a_symptom_without_an_error_answers_with_the_pain_points_of_the_deployment(ctx: ToolContext) -> None:
    result = ask(ctx, "garbage output after a few turns", tag="v0.17.0", command="vllm serve d --kv-cache-dtype fp8")
    assert result.reading == "symptom"
    point = next(c for c in result.curated if c.id == "pain-fp8-kv-mla-multiturn")
    assert "flag_value fp8" in point.why and point.basis == "curated"
