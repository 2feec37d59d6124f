"""Load resolution of real releases: get_quant_config walked for every --quantization value on a BF16 checkpoint."""

from __future__ import annotations

from support.releases import release_tree

from vllm_quant_mcp.knowledge.extract.loading import extract_load_resolution
from vllm_quant_mcp.knowledge.registry.loading import LoadResolution

# What the vLLM 0.26.0 wheel refused on an H200 with a tiny BF16 checkpoint, deprecated methods aside
# (issue 22, class 1); the same set was executed at 0.32.0.
REFUSED_ON_BF16 = {
    "awq",
    "auto_awq",
    "awq_marlin",
    "modelopt",
    "modelopt_fp4",
    "modelopt_mxfp8",
    "modelopt_mixed",
    "auto_gptq",
    "gptq",
    "gptq_marlin",
    "quark",
    "moe_wna16",
    "torchao",
    "inc",
    "online",
}


def _resolution(version: str) -> LoadResolution:
    return extract_load_resolution(release_tree(version)).entries


def _line(version: str, path: str, line: int) -> str:
    return (release_tree(version).root / path).read_text(encoding="utf-8").splitlines()[line - 1].strip()


def _refused(resolution: LoadResolution, deprecated: set[str]) -> set[str]:
    return {p.name for p in resolution.paths if p.unquantized.outcome == "refused" and p.name not in deprecated}


def test_v0_14_0_returns_early_for_gguf_and_inc_and_has_no_online_config() -> None:
    resolution = _resolution("0.14.0")
    gguf, awq, quark = (resolution.path(m) for m in ("gguf", "awq", "quark"))
    assert gguf is not None and awq is not None and quark is not None
    assert (gguf.unquantized.outcome, gguf.unquantized.loads_as) == ("loads", "GGUFConfig")
    assert "gguf" in _line("0.14.0", gguf.unquantized.provenance.path, gguf.unquantized.provenance.line - 1)
    assert awq.unquantized.raised is not None
    assert awq.unquantized.raised.message == "Cannot find the config file for awq"
    assert quark.unquantized.raised is not None and quark.unquantized.raised.error == "TypeError"
    assert resolution.online is None  # --quantization-config arrived later (0.20)


def test_v0_26_0_refuses_on_a_bf16_checkpoint_the_fifteen_methods_the_h200_run_refused_and_compressed_tensors() -> None:
    resolution = _resolution("0.26.0")
    # CompressedTensorsConfig() lacks three arguments: refused too, though the H200 run did not list it.
    assert _refused(resolution, {"fbgemm_fp8", "fp_quant"}) == REFUSED_ON_BF16 | {"compressed-tensors"}
    awq_marlin, quark = resolution.path("awq_marlin"), resolution.path("quark")
    assert awq_marlin is not None and quark is not None
    raised = awq_marlin.unquantized.raised
    assert raised is not None and (raised.error, raised.message) == (
        "ValueError",
        "Cannot find the config file for awq_marlin",
    )
    assert _line("0.26.0", raised.provenance.path, raised.provenance.line).startswith("raise ValueError(")
    assert quark.unquantized.raised is not None
    assert (
        quark.unquantized.raised.message
        == "QuarkConfig.__init__() missing 1 required positional argument: 'quant_config'"
    )
    assert _line("0.26.0", quark.unquantized.provenance.path, quark.unquantized.provenance.line) == "return quant_cls()"


def test_v0_26_0_loads_the_online_shorthands_and_builds_fp8_and_bitsandbytes_in_flight() -> None:
    resolution = _resolution("0.26.0")
    steps = {p.name: p.unquantized for p in resolution.paths}
    assert (steps["fp8_per_tensor"].outcome, steps["fp8_per_tensor"].loads_as) == ("loads", "OnlineQuantizationConfig")
    assert (steps["fp8"].outcome, steps["fp8"].loads_as) == ("loads", "Fp8Config")
    assert (steps["bitsandbytes"].outcome, steps["bitsandbytes"].loads_as) == ("loads", "BitsAndBytesConfig")
    online = resolution.path("online")
    assert online is not None and online.unquantized_with_config is not None
    assert online.unquantized_with_config.outcome == "loads"  # with --quantization-config it has its args


def test_v0_32_0_refuses_the_same_methods_and_redirects_fp8_to_fp8_per_tensor() -> None:
    resolution = _resolution("0.32.0")
    assert _refused(resolution, {"fbgemm_fp8", "fp_quant"}) == REFUSED_ON_BF16 | {"compressed-tensors"}
    fp8 = resolution.path("fp8")
    assert fp8 is not None and (fp8.unquantized.outcome, fp8.unquantized.loads_as) == ("redirected", "fp8_per_tensor")
    assert "deprecated" in fp8.unquantized.why
    mxfp4 = resolution.path("mxfp4")  # a deferred shorthand: no args until the loader gives it the shorthand's
    assert mxfp4 is not None and mxfp4.unquantized.loads_as == "OnlineQuantizationConfig"


def test_a_get_config_filenames_that_is_not_a_literal_leaves_the_answer_conditional_at_the_branch() -> None:
    path = _resolution("0.32.0").path("deepseek_v4_fp8")
    assert path is not None and path.unquantized.outcome == "conditional"
    assert _line("0.32.0", path.unquantized.provenance.path, path.unquantized.provenance.line) == (
        "if not possible_config_filenames:"
    )


def test_packages_a_method_asks_for_carry_the_version_its_message_names() -> None:
    torchao = _resolution("0.26.0").path("torchao")
    assert torchao is not None and [n.requirement for n in torchao.needs] == ["torchao>=0.10.0"]
    bnb = _resolution("0.26.0").path("bitsandbytes")
    assert bnb is not None and [n.requirement for n in bnb.needs] == ["bitsandbytes>=0.49.2|0.48.1"]
    awq = _resolution("0.26.0").path("awq")
    assert awq is not None and awq.needs == []  # the XPU method class's kernel package is not on awq's way


def test_quantization_config_is_read_from_quantization_config_args_and_the_online_dispatch() -> None:
    at_26, at_32 = _resolution("0.26.0").online, _resolution("0.32.0").online
    assert at_26 is not None and at_32 is not None
    assert at_26.fields == ["linear", "moe", "ignore"] and at_26.targets_exclusive is None
    assert at_32.fields == ["linear", "moe", "ignore", "targets"] and at_32.targets_exclusive is not None
    assert at_26.spec_fields == ["weight", "activation"] and "fp8_per_tensor_dynamic" in at_26.key_names
    assert at_26.dispatch["linear"]["fp8_per_tensor_static"] == "Fp8PerTensorOnlineLinearMethod"
    refused = at_26.activation_refused
    assert refused is not None and refused.message.startswith("activation override (activation={spec.activation})")
    assert _line("0.26.0", refused.provenance.path, refused.provenance.line) == "raise ValueError("
    assert at_26.config_needs_online is not None and at_32.config_needs_online is None  # 0.32 composes them


def test_attention_config_fields_and_their_literal_values_are_read_at_v0_14_0_and_v0_26_0() -> None:
    at_14, at_26 = _resolution("0.14.0").attention, _resolution("0.26.0").attention
    assert at_14 is not None and at_26 is not None
    assert at_14.choices["flash_attn_version"] == ["2", "3"] and at_26.choices["flash_attn_version"] == ["2", "3", "4"]
    assert "use_cudnn_prefill" in at_14.fields and "use_cudnn_prefill" not in at_26.fields
    assert at_26.backend_fields == ["backend"]


def test_a_version_the_message_imports_and_a_git_requirement_are_read_whole() -> None:
    bitblas = _resolution("0.14.0").path("bitblas")
    assert bitblas is not None and [n.requirement for n in bitblas.needs] == ["bitblas>=0.1.0"]
    humming = _resolution("0.20.0").path("humming")
    assert humming is not None
    assert [n.requirement for n in humming.needs] == ["git+https://github.com/inclusionAI/humming"]
