"""from_config and the constructor of real releases, replayed against real-looking checkpoint configs.

The configs are tests/fixtures/checkpoints (a GPTQ and an AWQ Llama as they ship, the same with bits
vLLM refuses, FP8 exports with a static and an unknown activation scheme). The guards are derived from
each release's tree, then evaluated offline as the bundled registry is; lines are checked against the
tree so a message is quoted from the raise that vLLM runs.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from support.releases import release_tree

from vllm_quant_mcp.knowledge.extract.loading import extract_load_resolution
from vllm_quant_mcp.knowledge.registry.loading import LoadResolution
from vllm_quant_mcp.knowledge.registry.model import Registry
from vllm_quant_mcp.knowledge.registry.store import Store
from vllm_quant_mcp.knowledge.support.config_replay import Deployment, Replayed, evaluate, replay
from vllm_quant_mcp.knowledge.support.loading import read_checkpoint, resolve_load

CHECKPOINTS = Path(__file__).parents[2] / "fixtures" / "checkpoints"


@cache
def _resolution(version: str) -> LoadResolution:
    return extract_load_resolution(release_tree(version)).entries


def _config(folder: str) -> dict[str, object]:
    checkpoint = read_checkpoint(CHECKPOINTS / folder)
    assert checkpoint is not None and checkpoint.quantization_config is not None
    return checkpoint.quantization_config


def _replay(version: str, method: str, folder: str) -> Replayed:
    path = _resolution(version).path(method)
    assert path is not None and path.from_config is not None
    return replay(path.from_config, _config(folder))


def _raise_line(version: str, replayed: Replayed) -> str:
    assert replayed.raised is not None
    where = replayed.raised.provenance
    return (release_tree(version).root / where.path).read_text(encoding="utf-8").splitlines()[where.line - 1].strip()


def _registry(version: str, tmp_path: Path) -> Registry:
    """The tag's registry with its load resolution derived from the tree (the bundled copy may predate it)."""
    bundled = Store(tmp_path).load_registry(f"v{version}")
    return bundled.model_copy(update={"load_resolution": _resolution(version)})


def test_a_five_bit_gptq_config_is_refused_with_the_message_and_line_of_the_raise_vllm_runs() -> None:
    old = _replay("0.14.0", "gptq", "llama-gptq-5bit")
    assert old.outcome == "refused" and old.raised is not None
    assert old.raised.message == (
        "Currently, only 2/3/4/8-bit weight quantization is supported for GPTQ, but got 5 bits."
    )
    assert (old.raised.provenance.path, old.raised.provenance.line) == (
        "vllm/model_executor/layers/quantization/gptq.py",
        92,
    )
    assert _raise_line("0.14.0", old) == "raise ValueError("
    for version, line in (("0.26.0", 158), ("0.33.0", 153)):
        new = _replay(version, "gptq", "llama-gptq-5bit")
        assert new.raised is not None and new.raised.message == "Unsupported quantization config: bits=5, sym=True"
        assert new.raised.provenance.line == line and _raise_line(version, new) == "raise ValueError("


def test_a_four_bit_group_128_gptq_config_loads_with_its_scheme_read_as_data() -> None:
    old = _replay("0.14.0", "gptq", "llama-gptq")
    assert old.outcome == "loads"
    assert {k: old.scheme[k] for k in ("weight_bits", "group_size", "desc_act")} == {
        "weight_bits": 4,
        "group_size": 128,
        "desc_act": False,
    }
    new = _replay("0.33.0", "gptq", "llama-gptq")
    assert new.outcome == "loads" and new.scheme["is_sym"] is True


def test_gptq_to_gptq_marlin_waits_on_the_platform_at_v0_14_and_is_auto_gptq_from_v0_26(tmp_path: Path) -> None:
    marlin = _resolution("0.14.0").path("gptq_marlin")
    assert marlin is not None and marlin.from_config is not None and marlin.from_config.override is not None
    undecided = evaluate(marlin.from_config.override, _config("llama-gptq"))
    assert "current_platform.is_cuda()" in getattr(undecided, "why", "")
    # Asked for gptq explicitly, gptq_marlin's probe declines whatever the platform: the user's choice stands.
    assert evaluate(marlin.from_config.override, _config("llama-gptq"), Deployment(quantization="gptq")) is None
    for version in ("0.26.0", "0.33.0"):
        verdict = resolve_load(_registry(version, tmp_path), None, read_checkpoint(CHECKPOINTS / "llama-gptq"))
        assert verdict is not None and (verdict.outcome, verdict.loads_as) == ("loads", "auto_gptq")
        assert verdict.scheme["weight_bits"] == 4 and verdict.scheme["desc_act"] is False
        refused = resolve_load(_registry(version, tmp_path), "gptq", read_checkpoint(CHECKPOINTS / "llama-gptq-5bit"))
        assert refused is not None and refused.outcome == "refused" and refused.raised is not None
        assert refused.evidence[0].path == "vllm/model_executor/layers/quantization/auto_gptq.py"


def test_at_v0_14_the_gptq_to_gptq_marlin_switch_waits_on_the_gpu_and_five_bits_are_refused_either_way(
    tmp_path: Path,
) -> None:
    registry = _registry("0.14.0", tmp_path)
    four = resolve_load(registry, None, read_checkpoint(CHECKPOINTS / "llama-gptq"), platform="cuda")
    assert four is not None and four.outcome == "conditional"
    assert four.why.startswith("gptq_marlin's override_quantization_method may switch this gptq checkpoint")
    assert "_check_marlin_supported" in four.why and "left as gptq, GPTQConfig.from_config takes it" in four.why
    five = resolve_load(registry, None, read_checkpoint(CHECKPOINTS / "llama-gptq-5bit"), platform="cuda")
    assert five is not None and five.outcome == "refused" and five.raised is not None
    assert five.raised.message.startswith("Currently, only 2/3/4/8-bit weight quantization is supported for GPTQ")
    assert (five.evidence[0].path, five.evidence[0].line) == ("vllm/model_executor/layers/quantization/gptq.py", 92)


def test_desc_act_true_is_refused_from_the_release_that_dropped_act_order_only() -> None:
    config = {**_config("llama-gptq"), "desc_act": True}
    path = _resolution("0.33.0").path("gptq")
    assert path is not None and path.from_config is not None
    refused = replay(path.from_config, config)
    assert refused.raised is not None and refused.raised.message.startswith(
        "GPTQ group activation ordering (desc_act=True) is no longer supported."
    )
    old = _resolution("0.14.0").path("gptq")
    assert old is not None and old.from_config is not None
    assert replay(old.from_config, config).outcome == "loads"


def test_an_eight_bit_awq_config_is_refused_by_awq_and_the_verdict_says_so_past_the_platform_probe(
    tmp_path: Path,
) -> None:
    old = _replay("0.14.0", "awq", "llama-awq-8bit")
    assert old.raised is not None
    assert old.raised.message == "Currently, only 4-bit weight quantization is supported for AWQ, but got 8 bits."
    assert _raise_line("0.14.0", old) == "raise ValueError("
    new = _replay("0.33.0", "awq", "llama-awq-8bit")
    assert new.raised is not None and new.raised.message.startswith("Unsupported num_bits = 8.")
    assert _replay("0.33.0", "awq", "llama-awq").outcome == "loads"
    registry, checkpoint = _registry("0.33.0", tmp_path), read_checkpoint(CHECKPOINTS / "llama-awq-8bit")
    assert checkpoint is not None
    # AutoAWQ's probe asks whether vLLM runs on a CPU: left open, the verdict says what CUDA does.
    verdict = resolve_load(registry, None, checkpoint)
    assert verdict is not None and verdict.outcome == "conditional"
    assert "`current_platform.is_cpu()` at vllm/model_executor/layers/quantization/auto_awq.py" in verdict.why
    assert "on CUDA: refused (ValueError: Unsupported num_bits = 8." in verdict.why
    on_cuda = resolve_load(registry, None, checkpoint, platform="cuda")
    assert on_cuda is not None and on_cuda.outcome == "refused" and on_cuda.raised is not None
    assert on_cuda.raised.provenance.path.endswith("quantization/auto_awq.py")


def test_fp8_with_a_static_activation_scheme_loads_and_an_unknown_one_is_refused(tmp_path: Path) -> None:
    for version, line in (("0.14.0", 121), ("0.26.0", 111), ("0.33.0", 115)):
        loads = _replay(version, "fp8", "llama-fp8-static")
        assert loads.outcome == "loads" and loads.scheme["activation_scheme"] == "static"
        refused = _replay(version, "fp8", "llama-fp8-foo")
        assert refused.raised is not None and refused.raised.message == "Unsupported activation scheme foo"
        assert refused.raised.provenance.line == line and _raise_line(version, refused).startswith("raise ValueError(")
    verdict = resolve_load(_registry("0.33.0", tmp_path), None, read_checkpoint(CHECKPOINTS / "llama-fp8-foo"))
    assert verdict is not None and verdict.outcome == "refused" and verdict.evidence[0].line == 115


def test_a_missing_key_is_refused_with_get_from_keys_message_filled_with_the_keys() -> None:
    config = {k: v for k, v in _config("llama-gptq").items() if k != "bits"}
    path = _resolution("0.26.0").path("gptq")
    assert path is not None and path.from_config is not None
    refused = replay(path.from_config, config)
    assert refused.raised is not None
    assert refused.raised.message == "Cannot find any of ['bits'] in the model's quantization config."
    assert refused.raised.provenance.path.endswith("quantization/base_config.py")


def test_a_modelopt_export_loads_through_its_hf_quant_config_and_an_unknown_algo_is_refused() -> None:
    for version in ("0.26.0", "0.33.0"):  # 0.33 derives the accepted algos from its LINEAR_ALGOS table
        loads = _replay(version, "modelopt", "llama-modelopt-fp8")
        assert loads.outcome == "loads" and loads.scheme["quant_method"] == "FP8"
    wrong = _replay("0.33.0", "modelopt", "llama-fp8-static")  # no quant_algo: ModelOpt's own refusal
    assert wrong.raised is not None and wrong.raised.message == "Missing 'quant_algo' in quantization config"
    path = _resolution("0.26.0").path("modelopt")
    assert path is not None and path.from_config is not None
    refused = replay(path.from_config, {"quantization": {"quant_algo": "INT3"}})
    assert refused.raised is not None and refused.raised.message.startswith("ModelOpt currently only supports: ['FP8'")
