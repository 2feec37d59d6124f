"""pick_format on real bundled registries, with models served by a hub look-alike on 127.0.0.1."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError
from support.bundled_json import raw
from support.hubserver import MODELS, HubServer
from support.loopback import closed_port

from vllm_quant_mcp.knowledge.facts.knowledge_base import UnknownGpuError, load_knowledge
from vllm_quant_mcp.knowledge.hub.client import HubClient, HubUnavailableError, ModelNotFoundError
from vllm_quant_mcp.knowledge.hub.model_facts import ExplicitModel
from vllm_quant_mcp.knowledge.registry.model import Registry
from vllm_quant_mcp.knowledge.tags import UnknownTagError
from vllm_quant_mcp.tools.context import ToolContext
from vllm_quant_mcp.tools.pick_format.models import PickFormatQuery, PickFormatResult
from vllm_quant_mcp.tools.pick_format.rules import RULE_CONDITIONS
from vllm_quant_mcp.tools.pick_format.tool import ContradictoryOptionsError, ModelTooLargeError
from vllm_quant_mcp.tools.pick_format.tool import pick_format as run_pick

LLAMA = "meta-llama/Llama-3.1-70B-Instruct"
QWEN_MOE = "Qwen/Qwen3-30B-A3B"
DEEPSEEK = "deepseek-ai/DeepSeek-V3"
QWEN_NEXT = "Qwen/Qwen3-Next-80B-A3B-Instruct"
NVFP4 = "nvidia/Llama-3.3-70B-Instruct-FP4"
AWQ = "hugging-quants/Meta-Llama-3.1-8B-Instruct-AWQ-INT4"
GPT_OSS = "openai/gpt-oss-120b"


@pytest.fixture(scope="module")
def server() -> Iterator[HubServer]:
    with HubServer() as s:
        yield s


@pytest.fixture
def hub(server: HubServer, tmp_path: Path) -> HubClient:
    return HubClient(endpoint=server.endpoint, cache_dir=tmp_path / "hub", hf_cache=tmp_path / "hf")


def pick_format(
    ctx: ToolContext, gpu: str, model: str | ExplicitModel, hub: HubClient | None = None, **options: Any
) -> PickFormatResult:
    """The tool called the way a client spells it: a repo id, a directory or explicit figures; `hub` the context's."""
    which = "model_figures" if isinstance(model, ExplicitModel) else "model"
    called = ctx if hub is None else replace(ctx, make_hub=lambda: hub)
    return run_pick(called, PickFormatQuery(gpu=gpu, **{which: model}, **options))


def _top(result: PickFormatResult) -> tuple[str, str]:
    return result.options[0].quantization.name, result.options[0].kv_cache_dtype.name


# The reference's format-selection table, read off the table itself (first format and KV dtype per row;
# row 9's KV column is "—": no KV quantization, i.e. auto).
TABLE = [
    pytest.param(1, "h200", LLAMA, "throughput", None, ("fp8", "fp8_e4m3"), id="row1-h100-h200"),
    pytest.param(1, "H100 SXM", LLAMA, "throughput", None, ("fp8", "fp8_e4m3"), id="row1-h100-alias"),
    pytest.param(2, "h100", LLAMA, "accuracy", None, ("awq_marlin", "fp8_e4m3"), id="row2-hopper-accuracy"),
    pytest.param(3, "h200", QWEN_MOE, "throughput", 32768, ("fp8", "fp8_e4m3"), id="row3-hopper-long-moe"),
    pytest.param(4, "b200", LLAMA, "throughput", None, ("modelopt_fp4", "fp8_e4m3"), id="row4-blackwell"),
    pytest.param(5, "b200", GPT_OSS, "throughput", None, ("mxfp4", "fp8_e4m3"), id="row5-gpt-oss"),
    pytest.param(6, "b300", LLAMA, "accuracy", None, ("modelopt_mxfp8", "fp8_e4m3"), id="row6-low-risk"),
    pytest.param(7, "dgx spark", LLAMA, "throughput", None, ("fp8", "fp8_e4m3"), id="row7-gb10"),
    pytest.param(8, "mi300x", LLAMA, "throughput", None, ("quark", "fp8_e4m3"), id="row8-rocm"),
    pytest.param(9, "cpu", AWQ, "throughput", None, ("awq_marlin", "auto"), id="row9-cpu"),
]


@pytest.mark.parametrize(("row", "gpu", "model", "priority", "context_len", "expected"), TABLE)
def test_each_hardware_row_of_the_selection_table_is_the_top_pick_at_v0_32_0(
    ctx: ToolContext,
    hub: HubClient,
    row: int,
    gpu: str,
    model: str,
    priority: str,
    context_len: int | None,
    expected: tuple[str, str],
) -> None:
    num_gpus = 1 if gpu == "cpu" else 2
    result = pick_format(ctx, gpu, model, num_gpus=num_gpus, priority=priority, context_len=context_len, hub=hub)
    assert result.tag == "v0.32.0"
    assert _top(result) == expected
    if model not in (AWQ, GPT_OSS):
        assert result.options[0].rule.startswith(
            next(r.id for r in load_knowledge().format_rules if r.table_row == row)
        )


def test_long_context_moe_row_pins_deep_gemm_and_says_where_the_flag_is(ctx: ToolContext, hub: HubClient) -> None:
    top = pick_format(ctx, "h200", QWEN_MOE, num_gpus=2, context_len=32768, hub=hub).options[0]
    assert [(f.flag, f.value) for f in top.serve_flags] == [("--moe-backend", "deep_gemm")]
    assert top.serve_flags[0].provenance.path == "vllm/engine/arg_utils.py"


def test_without_moe_backend_flag_the_long_context_row_drops_out(ctx: ToolContext, hub: HubClient) -> None:
    old = pick_format(ctx, "h200", QWEN_MOE, num_gpus=2, context_len=32768, tag="v0.16.0", hub=hub)
    assert _top(old) == ("fp8", "fp8_e4m3") and old.options[0].serve_flags == []
    assert any(e.reason == "flag --moe-backend does not exist at v0.16.0" for e in old.excluded)


def test_nvfp4_kv_leads_for_memory_on_blackwell_only_where_the_tag_has_it(ctx: ToolContext, hub: HubClient) -> None:
    assert _top(pick_format(ctx, "b200", LLAMA, num_gpus=2, priority="memory", hub=hub)) == ("modelopt_fp4", "nvfp4")
    old = pick_format(ctx, "b200", LLAMA, num_gpus=2, priority="memory", tag="v0.19.0", hub=hub)
    assert _top(old) == ("modelopt_fp4", "fp8_e4m3")
    assert any(e.kv_cache_dtype == "nvfp4" and "not in CacheDType at v0.19.0" in e.reason for e in old.excluded)


def test_low_risk_row_falls_back_to_the_default_row_before_mxfp8_existed(ctx: ToolContext, hub: HubClient) -> None:
    old = pick_format(ctx, "b300", LLAMA, num_gpus=2, priority="accuracy", tag="v0.14.0", hub=hub)
    assert _top(old) == ("modelopt_fp4", "fp8_e4m3")
    reasons = {e.quantization: e.reason for e in old.excluded}
    assert reasons["modelopt_mxfp8"] == "modelopt_mxfp8 is absent from QuantizationMethods at v0.14.0"
    assert reasons["fp8_per_block"] == "fp8_per_block is absent from QuantizationMethods at v0.14.0"


def test_online_quantization_uses_the_shorthand_the_tag_has(ctx: ToolContext, hub: HubClient) -> None:
    now = pick_format(ctx, "b200", QWEN_MOE, checkpoint="online", hub=hub)
    assert _top(now) == ("nvfp4_per_token", "fp8_e4m3")
    assert now.options[0].checkpoint[0].kind == "online"
    old = pick_format(ctx, "b200", LLAMA, num_gpus=2, checkpoint="online", tag="v0.25.0", hub=hub)
    assert _top(old) == ("fp8_per_block", "fp8_e4m3")
    assert any(e.reason == "no online shorthand for nvfp4 in the registry of v0.25.0" for e in old.excluded)


def test_memory_estimate_of_the_top_option_matches_the_hand_count(ctx: ToolContext, hub: HubClient) -> None:
    mem = pick_format(ctx, "h200", LLAMA, num_gpus=2, context_len=131072, concurrency=8, hub=hub).options[0].memory
    # fp8 body 68,452,360,192 B + bf16 embeddings 4,202,692,608 B = 72,655,052,800 B / 2 GPUs = 36.33 GB
    # budget 141 GB x 0.92 (v0.32.0's default) - 36.33 = 93.39 GB; KV fp8 per token per GPU 80 x 2 x (8/2) x 128 x 1
    # = 81,920 B; 93,392,473,600 / 81,920 = 1,140,044 tokens; 131,072 x 8 = 1,048,576 needed; 8 sequences at once
    assert (mem.weights_gb_per_gpu, mem.kv_bytes_per_token, mem.tokens_fit) == (36.33, 81_920, 1_140_044)
    assert (mem.tokens_needed, mem.fits, mem.max_concurrency) == (1_048_576, True, 8)


def test_prequantized_nvfp4_checkpoint_is_served_as_is_and_classified_per_gpu(ctx: ToolContext, hub: HubClient) -> None:
    hopper = pick_format(ctx, "h200", NVFP4, hub=hub)
    top = hopper.options[0]
    assert (top.quantization.name, top.support, top.checkpoint[0].kind) == ("modelopt_fp4", "fallback", "as_is")
    loads = top.judgements[0]
    assert (loads.verdict, loads.basis) == ("yes", "source") and "minimum capability is 7.5" in loads.why
    entry = next(m for m in raw("v0.32.0")["quantization_methods"] if m["name"] == "modelopt_fp4")
    assert (loads.evidence[0].path, loads.evidence[0].line) == (
        entry["min_capability_provenance"]["path"],
        entry["min_capability_provenance"]["line"],
    )
    assert top.support_basis == "curated" and "native fp8=True, nvfp4=False" in top.support_evidence[0]
    # weights: the index's exact 42,682,353,664 bytes on one GPU
    assert (top.memory.weights_gb_per_gpu, top.memory.weights_exact) == (42.68, True)
    assert {o.quantization.name for o in hopper.options} == {"modelopt_fp4"}
    assert pick_format(ctx, "b200", NVFP4, hub=hub).options[0].support == "native"


def test_awq_checkpoint_on_a100_is_native_weight_only(ctx: ToolContext, hub: HubClient) -> None:
    top = pick_format(ctx, "a100", AWQ, hub=hub).options[0]
    assert (top.quantization.name, top.support) == ("awq_marlin", "native")
    assert "weight-only" in top.support_evidence[0]


def test_fp8_on_ampere_is_a_fallback_not_native(ctx: ToolContext, hub: HubClient) -> None:
    result = pick_format(ctx, "a100", LLAMA, num_gpus=2, hub=hub)
    fp8 = next(o for o in result.options if o.quantization.name == "fp8")
    assert fp8.support == "fallback" and "no fp8 tensor cores" in fp8.backend_notes[0]
    assert result.options[0].support == "native"


def test_formats_the_knowledge_base_avoids_on_gb10_rank_last_with_a_caveat(ctx: ToolContext, hub: HubClient) -> None:
    options = pick_format(ctx, "gb10", LLAMA, hub=hub).options
    fp4 = next(o for o in options if o.quantization.name == "modelopt_fp4")
    assert fp4.caveats[0].status == "avoid" and fp4.support == "native"
    assert all(o.caveats[:1] == [] or o.caveats[0].status != "avoid" for o in options[: fp4.rank - 1])


def test_a_method_rocm_does_not_list_is_excluded_with_the_platform_evidence(ctx: ToolContext, hub: HubClient) -> None:
    result = pick_format(ctx, "mi300x", LLAMA, num_gpus=2, hub=hub)
    gptq = next(e for e in result.excluded if e.quantization == "gptq_marlin")
    rocm = next(p for p in raw("v0.32.0")["platforms"] if p["name"] == "RocmPlatform")
    assert "gptq_marlin" not in rocm["methods"]
    assert gptq.basis == "source" and "RocmPlatform.supported_quantization" in gptq.reason
    assert gptq.evidence == [rocm["provenance"]["permalink"]]


def test_gpu_formats_the_cpu_cannot_run_are_excluded(ctx: ToolContext, hub: HubClient) -> None:
    result = pick_format(ctx, "cpu", NVFP4, hub=hub)
    assert result.options == []
    assert all("needs GPU tensor cores" in e.reason for e in result.excluded)


def test_caveats_compare_fixed_in_with_the_tag(ctx: ToolContext, hub: HubClient) -> None:
    def mla_caveat(tag: str) -> bool | None:
        result = pick_format(ctx, "h200", DEEPSEEK, num_gpus=8, tag=tag, hub=hub)
        option = next(o for o in result.options if o.kv_cache_dtype.name == "fp8_e4m3")
        return next(c.fixed_at_tag for c in option.caveats if c.id == "pain-fp8-kv-mla-multiturn")

    assert mla_caveat("v0.32.0") is True
    assert mla_caveat("v0.18.0") is False


def test_hybrid_model_carries_the_ignore_list_caveat(ctx: ToolContext, hub: HubClient) -> None:
    result = pick_format(ctx, "b200", QWEN_NEXT, hub=hub)
    assert result.model.hybrid and result.model.full_attention_layers == 12
    assert "pain-nvfp4-hybrid-ignore" in {c.id for c in result.options[0].caveats}


def test_checkpoint_recipes_match_the_option(ctx: ToolContext, hub: HubClient) -> None:
    options = {o.quantization.name: o for o in pick_format(ctx, "h200", LLAMA, num_gpus=2, hub=hub).options}
    assert [s.kind for s in options["fp8"].checkpoint] == ["vendor", "online"]
    assert "FP8_DYNAMIC" in options["compressed-tensors"].checkpoint[1].how
    assert "FP8_DEFAULT_CFG" in options["modelopt"].checkpoint[1].how


def test_every_value_named_exists_in_the_registry_of_the_tag_with_its_provenance(
    ctx: ToolContext, hub: HubClient
) -> None:
    requests = [
        ("b200", LLAMA, "v0.32.0", {}),
        ("b200", GPT_OSS, "v0.32.0", {}),
        ("h200", QWEN_MOE, "v0.20.0", {"context_len": 32768}),
        ("mi355x", LLAMA, "v0.24.0", {"priority": "memory"}),
        ("rtx 5090", AWQ, "v0.28.0", {}),
    ]
    for gpu, model, tag, extra in requests:
        registry: Registry = ctx.registry(tag)
        methods = {m.name: m.provenance for m in registry.quantization_methods}
        kvs = {k.name: k.provenance for k in registry.kv_cache_dtypes}
        flags = {f.name: f for f in registry.cli_flags}
        result = pick_format(ctx, gpu, model, num_gpus=2, tag=tag, hub=hub, **extra)
        assert result.options, (gpu, model, tag)
        for option in result.options:
            assert methods[option.quantization.name] == option.quantization.provenance
            assert kvs[option.kv_cache_dtype.name] == option.kv_cache_dtype.provenance
            for fv in option.serve_flags:
                base = flags[fv.flag.split(".")[0]]
                assert base.provenance == fv.provenance
                assert base.choices is None or fv.value in base.choices


def test_a_model_too_large_at_any_format_says_so_with_the_figures(ctx: ToolContext, hub: HubClient) -> None:
    # smallest format: int4 at 4.125 bits -> 39,498,440,832 B = 39.5 GB; an RTX 5090 offers 32 GB x 0.92 = 29.44 GB
    with pytest.raises(ModelTooLargeError) as err:
        pick_format(ctx, "rtx 5090", LLAMA, hub=hub)
    message = str(err.value)
    assert "does not fit 1x rtx-5090" in message and "39.5 GB per GPU" in message and "29.44 GB usable" in message
    assert "(32 GB x 0.92 (the --gpu-memory-utilization default at v0.32.0, vllm/config/cache.py:102))" in message
    assert "Use at least 3 GPUs" in message


def test_formats_that_do_not_fit_are_excluded_while_smaller_ones_remain(ctx: ToolContext, hub: HubClient) -> None:
    result = pick_format(ctx, "h200", LLAMA, num_gpus=1, hub=hub)
    assert result.options[0].quantization.name == "fp8"  # 72.66 GB of 129.72 GB usable
    bf16 = pick_format(ctx, "l40s", LLAMA, num_gpus=1, hub=hub)
    assert all(o.memory.weights_gb_per_gpu < 44.16 for o in bf16.options)  # 48 GB x 0.92
    assert any("weights need 72.66 GB per GPU; l40s offers 44.16 GB at 0.92 (the" in e.reason for e in bf16.excluded)


def test_unknown_gpu_lists_the_known_ones(ctx: ToolContext, hub: HubClient) -> None:
    with pytest.raises(UnknownGpuError, match=r"Unknown GPU 'h300'; known GPUs: h100 \(NVIDIA H100 SXM\), h200"):
        pick_format(ctx, "h300", LLAMA, hub=hub)


def test_arch_alias_resolves_and_says_which_gpu_it_took(ctx: ToolContext, hub: HubClient) -> None:
    result = pick_format(ctx, "sm90", LLAMA, num_gpus=2, hub=hub)
    assert result.gpu.id == "h100" and "'sm90' matches h100, h200" in result.notes[0]


def test_unknown_tag_and_unknown_model_are_lookup_errors(ctx: ToolContext, hub: HubClient) -> None:
    with pytest.raises(UnknownTagError):
        pick_format(ctx, "h200", LLAMA, tag="v0.99.0", hub=hub)
    with pytest.raises(ModelNotFoundError):
        pick_format(ctx, "h200", "nobody/nothing", hub=hub)


def test_contradictory_options_are_refused_with_the_fix(ctx: ToolContext, hub: HubClient) -> None:
    with pytest.raises(ContradictoryOptionsError, match=r"already quantized.*BF16 base"):
        pick_format(ctx, "b200", NVFP4, checkpoint="online", hub=hub)
    with pytest.raises(ContradictoryOptionsError, match="exceeds the model's max_position_embeddings 40960"):
        pick_format(ctx, "h200", QWEN_MOE, context_len=100_000, hub=hub)
    with pytest.raises(ValidationError, match=r"num_gpus\n.*greater than or equal to 1"):
        pick_format(ctx, "h200", LLAMA, num_gpus=0, hub=hub)


def test_concurrency_without_context_assumes_the_model_maximum(ctx: ToolContext, hub: HubClient) -> None:
    result = pick_format(ctx, "h200", QWEN_MOE, concurrency=4, hub=hub)
    assert result.options[0].memory.tokens_needed == 4 * 40960
    assert any("assumed the model's maximum, 40960" in n for n in result.notes)


def test_unreachable_hub_answers_from_the_cache_with_a_note(ctx: ToolContext, tmp_path: Path) -> None:
    with HubServer() as live:
        endpoint = live.endpoint
        HubClient(endpoint=endpoint, cache_dir=tmp_path / "c", hf_cache=tmp_path / "hf").model_files(LLAMA)
    result = pick_format(
        ctx,
        "h200",
        LLAMA,
        num_gpus=2,
        hub=HubClient(endpoint=endpoint, cache_dir=tmp_path / "c", hf_cache=tmp_path / "hf"),
    )
    assert _top(result) == ("fp8", "fp8_e4m3")
    assert any("did not answer" in n for n in result.notes)


def test_unreachable_hub_without_cache_points_to_explicit_figures_which_work(ctx: ToolContext, tmp_path: Path) -> None:
    with pytest.raises(HubUnavailableError, match="explicit figures"):
        pick_format(
            ctx,
            "h200",
            LLAMA,
            hub=HubClient(
                endpoint=f"http://127.0.0.1:{closed_port()}", cache_dir=tmp_path / "c", hf_cache=tmp_path / "hf"
            ),
        )
    explicit = ExplicitModel(params_b=70.55, layers=80, kv_heads=8, head_dim=128)
    result = pick_format(ctx, "h200", explicit, num_gpus=2)
    assert _top(result) == ("fp8", "fp8_e4m3") and "given explicitly" in result.notes[0]


def test_a_local_model_directory_is_read_from_disk(ctx: ToolContext, tmp_path: Path) -> None:
    folder = tmp_path / "awq-model"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(MODELS[AWQ]["config.json"]), encoding="utf-8")
    result = pick_format(ctx, "h100", str(folder))
    assert result.model.source == str(folder) and _top(result)[0] == "awq_marlin"


def test_every_narrowed_rule_in_the_knowledge_base_has_a_condition() -> None:
    narrowed = {r.id for r in load_knowledge().format_rules if r.hardware and r.workload}
    assert narrowed <= set(RULE_CONDITIONS), sorted(narrowed - set(RULE_CONDITIONS))


def test_an_moe_only_shorthand_compresses_the_experts_only_and_is_no_option_for_a_dense_model(
    ctx: ToolContext, hub: HubClient
) -> None:
    shorthand = next(o for o in raw("v0.32.0")["online_quantization"] if o["name"] == "nvfp4_per_token")
    assert shorthand["quantizes"] == ["moe"]
    moe = pick_format(ctx, "b200", QWEN_MOE, checkpoint="online", hub=hub).options[0]
    # 48 layers x 128 experts x (gate, up, down) 3 x 2048 x 768 = 28,991,029,248 expert weights at 4.5 bits
    # = 16,307,453,952 B; the other 1,541,081,088 of the 30,532,110,336 weights stay BF16: 3,082,162,176 B.
    assert (moe.memory.quantized_layers, moe.memory.weights_gb_per_gpu) == ("moe", 19.39)
    dense = pick_format(ctx, "b200", LLAMA, num_gpus=2, checkpoint="online", hub=hub)
    assert _top(dense)[0] != "nvfp4_per_token"
    (why,) = {e.reason for e in dense.excluded if e.quantization == "nvfp4_per_token"}
    assert "MoE layers only" in why and "would load unquantized" in why


def test_nvfp4_online_moe_method_raises_off_blackwell_so_hopper_excludes_it_from_the_source(
    ctx: ToolContext, hub: HubClient
) -> None:
    (refusal,) = next(o for o in raw("v0.32.0")["online_quantization"] if o["name"] == "nvfp4_per_token")["refusals"]
    hopper = pick_format(ctx, "h100", QWEN_MOE, checkpoint="online", hub=hub)
    excluded = next(e for e in hopper.excluded if e.quantization == "nvfp4_per_token")
    assert excluded.basis == "source" and excluded.evidence == [refusal["provenance"]["permalink"]]
    assert "Blackwell" in excluded.reason


def test_nvfp4_kv_on_hopper_is_refused_at_v0_31_and_runs_through_flashinfer_at_v0_32(
    ctx: ToolContext, hub: HubClient
) -> None:
    kv = {}
    for tag in ("v0.31.0", "v0.32.0"):
        result = pick_format(ctx, "h200", LLAMA, num_gpus=2, priority="memory", tag=tag, hub=hub)
        offered = [o for o in result.options if o.kv_cache_dtype.name == "nvfp4"]
        refused = [e for e in result.excluded if e.kv_cache_dtype == "nvfp4"]
        kv[tag] = (offered, refused)
    offered, refused = kv["v0.31.0"]
    assert offered == [] and refused and all(e.basis == "source" and "fails to start" in e.reason for e in refused)
    offered, refused = kv["v0.32.0"]
    judged = [j for o in offered for j in o.judgements if j.subject == "--kv-cache-dtype nvfp4"]
    assert judged and {(j.verdict, j.basis, j.via) for j in judged} == {("yes", "source", "FLASHINFER")}
    assert not [e for e in refused if e.basis == "source" and "attention backend" in e.reason]
