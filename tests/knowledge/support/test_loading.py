"""What vLLM does with a checkpoint and a --quantization at a tag, judged on the bundled registries of real releases.

The checkpoints are real configs (tests/fixtures/checkpoints): a Llama BF16, DeepSeek-V3 (FP8 blocks),
AWQ and GPTQ Llamas, a ModelOpt export with hf_quant_config.json.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from vllm_quant_mcp.knowledge.errors import InvalidInputError
from vllm_quant_mcp.knowledge.registry.model import Registry
from vllm_quant_mcp.knowledge.support.loading import (
    Checkpoint,
    check_attention_options,
    check_quantization_config,
    read_checkpoint,
    resolve_load,
    unquantized,
)

CHECKPOINTS = Path(__file__).parents[2] / "fixtures" / "checkpoints"
BF16 = Checkpoint(quant_method=None, source="checkpoint dtype bf16")


@pytest.fixture(scope="module")
def registries(registries_at: Callable[..., dict[str, Registry]]) -> dict[str, Registry]:
    return registries_at("v0.14.0", "v0.26.0", "v0.32.0")


def test_a_folder_is_read_as_vllm_reads_it_config_json_first_then_hf_quant_config_json() -> None:
    assert read_checkpoint(CHECKPOINTS / "llama-3.1-8b-bf16") == Checkpoint(
        quant_method=None, source=str(CHECKPOINTS / "llama-3.1-8b-bf16" / "config.json"), model_type="llama"
    )
    assert (read_checkpoint(CHECKPOINTS / "deepseek-v3") or BF16).quant_method == "fp8"
    assert (read_checkpoint(CHECKPOINTS / "llama-awq") or BF16).quant_method == "awq"
    assert (read_checkpoint(CHECKPOINTS / "llama-gptq") or BF16).quant_method == "gptq"
    modelopt = read_checkpoint(CHECKPOINTS / "llama-modelopt-fp8")
    assert modelopt is not None and modelopt.quant_method == "modelopt"
    assert modelopt.source.endswith("hf_quant_config.json")


def test_a_folder_without_config_json_gives_no_checkpoint_and_a_broken_one_names_the_file(tmp_path: Path) -> None:
    assert read_checkpoint(tmp_path) is None
    (tmp_path / "config.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(InvalidInputError, match=r"config\.json is not valid JSON"):
        read_checkpoint(tmp_path)


def test_only_a_sixteen_bit_checkpoint_dtype_says_the_checkpoint_has_no_quantization_config() -> None:
    assert unquantized("bf16") == BF16 and unquantized("fp8") is None and unquantized(None) is None


def test_awq_marlin_on_a_bf16_checkpoint_is_refused_with_get_quant_configs_own_message(
    registries: dict[str, Registry],
) -> None:
    for tag, line in (("v0.14.0", 315), ("v0.26.0", 372), ("v0.32.0", 375)):
        verdict = resolve_load(registries[tag], "awq_marlin", BF16)
        assert verdict is not None and (verdict.outcome, verdict.basis) == ("refused", "source")
        assert verdict.raised is not None and verdict.raised.message == "Cannot find the config file for awq_marlin"
        assert verdict.evidence[0].path == "vllm/model_executor/model_loader/weight_utils.py"
        assert verdict.evidence[0].line == line


def test_quark_on_a_bf16_checkpoint_is_refused_with_pythons_typeerror_for_the_missing_argument(
    registries: dict[str, Registry],
) -> None:
    verdict = resolve_load(registries["v0.26.0"], "quark", BF16)
    assert verdict is not None and verdict.raised is not None
    assert f"{verdict.raised.error}: {verdict.raised.message}" == (
        "TypeError: QuarkConfig.__init__() missing 1 required positional argument: 'quant_config'"
    )
    assert verdict.raised.provenance.path.endswith("quark/quark.py")


def test_online_refuses_without_a_config_and_loads_with_one(registries: dict[str, Registry]) -> None:
    bare = resolve_load(registries["v0.26.0"], "online", BF16)
    given = resolve_load(registries["v0.26.0"], "online", BF16, {"linear": "fp8_per_tensor"})
    assert bare is not None and bare.outcome == "refused"
    assert given is not None and (given.outcome, given.loads_as) == ("loads", "OnlineQuantizationConfig")


def test_fp8_on_a_bf16_checkpoint_is_redirected_at_v0_32_0_and_loads_as_fp8config_at_v0_26_0(
    registries: dict[str, Registry],
) -> None:
    at_26, at_32 = (resolve_load(registries[t], "fp8", BF16) for t in ("v0.26.0", "v0.32.0"))
    assert at_26 is not None and (at_26.outcome, at_26.loads_as) == ("loads", "Fp8Config")
    assert at_32 is not None and (at_32.outcome, at_32.loads_as) == ("redirected", "fp8_per_tensor")


def test_torchao_names_the_package_and_version_it_needs(registries: dict[str, Registry]) -> None:
    verdict = resolve_load(registries["v0.26.0"], "torchao", BF16)
    assert verdict is not None and verdict.outcome == "refused"  # TorchAOConfig() lacks torchao_config
    path = registries["v0.26.0"].load_resolution.path("torchao")
    assert path is not None and [n.requirement for n in path.needs] == ["torchao>=0.10.0"]


def test_a_checkpoint_with_a_config_loads_its_own_method_and_refuses_another_by_name(
    registries: dict[str, Registry],
) -> None:
    registry = registries["v0.26.0"]
    read = read_checkpoint(CHECKPOINTS / "deepseek-v3")
    assert read is not None and read.quantization_config is not None
    # Known by its method's name only (its dict is replayed in tests/knowledge/extract/test_config_replay.py).
    deepseek = Checkpoint(quant_method=read.quant_method, source=read.source)
    own = resolve_load(registry, None, deepseek)
    assert own is not None and (own.outcome, own.loads_as) == ("loads", "fp8")
    other = resolve_load(registry, "bitsandbytes", deepseek)
    assert other is not None and other.outcome == "refused" and other.raised is not None
    assert other.raised.message.startswith("Quantization method specified in the model config (fp8) does not match")
    assert other.evidence[0].path == "vllm/config/model.py"


def test_a_gptq_checkpoint_with_gptq_marlin_is_taken_by_auto_gptqs_override(registries: dict[str, Registry]) -> None:
    gptq = read_checkpoint(CHECKPOINTS / "llama-gptq")
    assert gptq is not None
    verdict = resolve_load(registries["v0.26.0"], "gptq_marlin", gptq)
    assert verdict is not None and (verdict.outcome, verdict.loads_as) == ("loads", "auto_gptq")
    assert "override_quantization_method" in verdict.why and verdict.scheme["weight_bits"] == 4


def test_an_explicit_activation_for_an_online_method_is_refused_as_the_layer_is_built(
    registries: dict[str, Registry],
) -> None:
    config = {"linear": {"weight": "fp8_per_tensor_static", "activation": "fp8_per_tensor_dynamic"}}
    (verdict,) = check_quantization_config(registries["v0.26.0"], "online", config)
    assert verdict.raised is not None and verdict.raised.message == (
        "activation override (activation=fp8_per_tensor_dynamic) is not yet supported for online "
        "Fp8PerTensorOnlineLinearMethod"
    )
    assert verdict.evidence[0].path.endswith("quantization/online/base.py")


def test_a_spec_name_outside_quant_key_names_is_refused_with_the_validators_list(
    registries: dict[str, Registry],
) -> None:
    config = {"linear": {"weight": "fp8_per_tensor", "activation": "fp8_per_tensor_dynamic"}}
    (verdict,) = check_quantization_config(registries["v0.26.0"], "online", config)  # the activation is not reached
    assert verdict.raised is not None and verdict.raised.message.startswith(
        "unknown quantization name 'fp8_per_tensor'; expected one of ['fp8_per_block_dynamic'"
    )


def test_targets_beside_linear_is_refused_at_v0_32_0_and_an_unknown_key_at_v0_26_0(
    registries: dict[str, Registry],
) -> None:
    both = {"targets": {"re:.*": "fp8_per_tensor"}, "linear": "fp8_per_tensor"}
    at_32 = check_quantization_config(registries["v0.32.0"], "online", both)
    assert [v.raised.message.split(",")[0] for v in at_32 if v.raised] == [
        "quantization_config.targets is mutually exclusive with quantization_config.linear/moe"
    ]
    (at_26,) = check_quantization_config(registries["v0.26.0"], "online", both)
    assert at_26.why.startswith("`targets` is not a QuantizationConfigArgs field at v0.26.0")
    assert check_quantization_config(registries["v0.14.0"], "online", both) == []  # no such config yet


def test_an_attention_backend_outside_the_enum_is_refused_with_the_nearest_and_lowercase_is_accepted(
    registries: dict[str, Registry],
) -> None:
    registry = registries["v0.26.0"]
    (verdict,) = check_attention_options(registry, "FLASH_ATTN_V9", None)
    assert "nearest: FLASH_ATTN" in verdict.why and verdict.evidence[0].path == "vllm/config/attention.py"
    assert check_attention_options(registry, "flashinfer", None) == []
    assert check_attention_options(registry, "auto", {"backend": "triton_attn", "flash_attn_version": 3}) == []


def test_an_attention_config_field_the_tag_lacks_or_a_value_its_literal_excludes_is_refused(
    registries: dict[str, Registry],
) -> None:
    at_26 = check_attention_options(registries["v0.26.0"], None, {"use_cudnn_prefill": True, "flash_attn_version": 5})
    assert [v.why.split(" (")[0].split(" at ")[0] for v in at_26] == [
        "`use_cudnn_prefill` is not an AttentionConfig field",
        "AttentionConfig.flash_attn_version takes 2, 3, 4",
    ]
    assert check_attention_options(registries["v0.14.0"], None, {"use_cudnn_prefill": True}) == []
