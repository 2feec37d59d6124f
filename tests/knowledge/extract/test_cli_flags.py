"""Golden tests for `vllm serve` flags, one release per parser layout.

Expected values were read from the release files by hand (arg_utils.py, cli_args.py,
the config dataclasses), not from the extractor's output.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support.releases import release_tree

from vllm_quant_mcp.knowledge.extract.cli_flags.flags import extract_cli_flags
from vllm_quant_mcp.knowledge.registry.model import CliFlag
from vllm_quant_mcp.knowledge.sources.tree import SourceTree


def _flags(version: str) -> dict[str, CliFlag]:
    return {flag.name: flag for flag in extract_cli_flags(release_tree(version)).entries}


# Every `add_argument('--...')` reached from `vllm serve` at 0.6.0: make_arg_parser in
# vllm/entrypoints/openai/cli_args.py, AsyncEngineArgs/EngineArgs.add_cli_args, and --config in vllm/scripts.py.
FLAGS_0_6_0 = [
    "--allow-credentials", "--allowed-headers", "--allowed-methods", "--allowed-origins", "--api-key",
    "--block-size", "--chat-template", "--code-revision", "--collect-detailed-traces", "--config",
    "--cpu-offload-gb", "--device", "--disable-async-output-proc", "--disable-custom-all-reduce",
    "--disable-frontend-multiprocessing", "--disable-log-requests", "--disable-log-stats",
    "--disable-logprobs-during-spec-decoding", "--disable-sliding-window", "--distributed-executor-backend",
    "--download-dir", "--dtype", "--enable-auto-tool-choice", "--enable-chunked-prefill", "--enable-lora",
    "--enable-prefix-caching", "--enable-prompt-adapter", "--enforce-eager", "--engine-use-ray",
    "--fully-sharded-loras", "--gpu-memory-utilization", "--guided-decoding-backend", "--host",
    "--ignore-patterns", "--kv-cache-dtype", "--limit-mm-per-prompt", "--load-format",
    "--long-lora-scaling-factors", "--lora-dtype", "--lora-extra-vocab-size", "--lora-modules",
    "--max-context-len-to-capture", "--max-cpu-loras", "--max-log-len", "--max-logprobs", "--max-lora-rank",
    "--max-loras", "--max-model-len", "--max-num-batched-tokens", "--max-num-seqs",
    "--max-parallel-loading-workers", "--max-prompt-adapter-token", "--max-prompt-adapters",
    "--max-seq-len-to-capture", "--middleware", "--model", "--model-loader-extra-config",
    "--ngram-prompt-lookup-max", "--ngram-prompt-lookup-min", "--num-gpu-blocks-override",
    "--num-lookahead-slots", "--num-scheduler-steps", "--num-speculative-tokens", "--otlp-traces-endpoint",
    "--override-neuron-config", "--pipeline-parallel-size", "--port", "--preemption-mode", "--prompt-adapters",
    "--qlora-adapter-name-or-path", "--quantization", "--quantization-param-path", "--ray-workers-use-nsight",
    "--response-role", "--return-tokens-as-token-ids", "--revision", "--root-path", "--rope-scaling",
    "--rope-theta", "--scheduler-delay-factor", "--seed", "--served-model-name", "--skip-tokenizer-init",
    "--spec-decoding-acceptance-method", "--speculative-disable-by-batch-size",
    "--speculative-draft-tensor-parallel-size", "--speculative-max-model-len", "--speculative-model",
    "--speculative-model-quantization", "--ssl-ca-certs", "--ssl-cert-reqs", "--ssl-certfile", "--ssl-keyfile",
    "--swap-space", "--tensor-parallel-size", "--tokenizer", "--tokenizer-mode", "--tokenizer-pool-extra-config",
    "--tokenizer-pool-size", "--tokenizer-pool-type", "--tokenizer-revision", "--tool-call-parser",
    "--trust-remote-code", "--typical-acceptance-sampler-posterior-alpha",
    "--typical-acceptance-sampler-posterior-threshold", "--use-v2-block-manager", "--uvicorn-log-level",
    "--worker-use-ray",
]  # fmt: skip

CACHE_DTYPE_0_32_0 = [
    "auto", "bfloat16", "float16", "fp8", "fp8_ds_mla", "fp8_e4m3", "fp8_e5m2", "fp8_inc", "fp8_per_token_head",
    "int4_per_token_head", "int8_per_token_head", "nvfp4", "nvfp4_4over6", "nvfp4_ds_mla", "turboquant_3bit_nc",
    "turboquant_4bit_nc", "turboquant_k3v4_nc", "turboquant_k8v4", "ultraquant_4bit",
]  # fmt: skip


# 0.6.0: hand-written argparse


def test_0_6_0_lists_every_hand_written_serve_flag() -> None:
    result = extract_cli_flags(release_tree("0.6.0"))
    assert [flag.name for flag in result.entries] == FLAGS_0_6_0
    assert result.note is None


def test_0_6_0_reads_literal_choices_and_short_aliases_from_add_argument() -> None:
    flags = _flags("0.6.0")
    kv = flags["--kv-cache-dtype"]
    assert kv.choices == ["auto", "fp8", "fp8_e5m2", "fp8_e4m3"]
    assert kv.field == "kv_cache_dtype"
    assert (kv.provenance.path, kv.provenance.line) == ("vllm/engine/arg_utils.py", 253)
    assert kv.provenance.permalink.endswith("/blob/v0.6.0/vllm/engine/arg_utils.py#L253")
    assert flags["--quantization"].aliases == ["-q"]
    assert flags["--quantization"].choices is None  # choices=[*QUANTIZATION_METHODS, None] is computed
    assert flags["--tensor-parallel-size"].aliases == ["-tp"]
    assert flags["--config"].provenance.path == "vllm/scripts.py"
    assert flags["--host"].field is None  # a server flag, not an EngineArgs field


def test_0_6_0_marks_flags_whose_help_says_deprecated_and_gives_store_true_no_negation() -> None:
    flags = _flags("0.6.0")
    assert sorted(name for name, flag in flags.items() if flag.deprecated) == [
        "--engine-use-ray",
        "--max-context-len-to-capture",
        "--worker-use-ray",
    ]
    assert all(flag.negation is None for flag in flags.values())


def test_0_4_1_without_vllm_serve_reads_the_api_server_parser_and_says_so() -> None:
    result = extract_cli_flags(release_tree("0.4.1"))
    names = [flag.name for flag in result.entries]
    assert len(names) == 77
    assert {"--host", "--port", "--kv-cache-dtype", "--quantization"} <= set(names)
    assert result.note is not None and "no `vllm serve`" in result.note


# 0.14.0: get_kwargs(SomeConfig) splats and FrontendArgs fields


def test_0_14_0_derives_choices_and_negation_from_config_field_types() -> None:
    flags = _flags("0.14.0")
    assert len(flags) == 204
    kv = flags["--kv-cache-dtype"]
    assert kv.choices == ["auto", "bfloat16", "fp8", "fp8_ds_mla", "fp8_e4m3", "fp8_e5m2", "fp8_inc"]
    assert (kv.provenance.path, kv.provenance.line) == ("vllm/engine/arg_utils.py", 915)
    assert flags["--enable-prefix-caching"].negation == "--no-enable-prefix-caching"
    assert flags["--quantization"].aliases == ["-q"]
    assert flags["--quantization"].choices is None  # QuantizationMethods | str: a metavar, not choices


def test_0_14_0_turns_frontend_args_fields_into_flags_at_the_field_line() -> None:
    flags = _flags("0.14.0")
    host = flags["--host"]
    assert (host.provenance.path, host.provenance.line, host.field) == ("vllm/entrypoints/openai/cli_args.py", 76, None)
    assert flags["--enable-auto-tool-choice"].negation == "--no-enable-auto-tool-choice"
    assert flags["--uvicorn-log-level"].choices == ["critical", "debug", "error", "info", "trace", "warning"]
    assert [name for name, flag in flags.items() if flag.deprecated] == ["--disable-log-requests"]


# 0.25.0 and 0.27.1 / 0.28.0


def test_0_25_0_counts_every_serve_flag() -> None:
    flags = _flags("0.25.0")
    assert len(flags) == 270
    assert flags["--calculate-kv-scales"].deprecated  # its CacheConfig docstring says so
    assert flags["--port"].provenance.path == "vllm/entrypoints/openai/cli_args.py"


def test_calculate_kv_scales_is_deprecated_at_0_27_1_and_gone_at_0_28_0() -> None:
    before = _flags("0.27.1")["--calculate-kv-scales"]
    assert (before.deprecated, before.negation, before.field) == (
        True,
        "--no-calculate-kv-scales",
        "calculate_kv_scales",
    )
    assert "--calculate-kv-scales" not in _flags("0.28.0")


# 0.32.0


def test_0_32_0_resolves_the_cache_dtype_literal_alias_for_kv_cache_dtype() -> None:
    kv = _flags("0.32.0")["--kv-cache-dtype"]
    assert kv.choices == CACHE_DTYPE_0_32_0
    assert len(kv.choices) == 19
    assert (kv.provenance.path, kv.provenance.line, kv.field) == ("vllm/engine/arg_utils.py", 1365, "kv_cache_dtype")


def test_0_32_0_knows_aliases_server_flags_and_deprecations() -> None:
    flags = _flags("0.32.0")
    assert len(flags) == 316
    assert flags["--quantization"].aliases == ["-q"]
    assert flags["--tensor-parallel-size"].aliases == ["-tp"]
    assert flags["--api-server-count"].aliases == ["-asc"]
    assert flags["--gpu-memory-utilization"].aliases == ["--device-memory-utilization"]
    assert {"--host", "--port", "--api-key"} <= set(flags)
    assert flags["--api-key"].provenance.path == "vllm/entrypoints/launchers/cli_args.py"
    assert sorted(name for name, flag in flags.items() if flag.deprecated) == [
        "--disable-cascade-attn",
        "--log-config-file",
    ]
    assert flags["--disable-cascade-attn"].negation == "--no-disable-cascade-attn"
    assert flags["--data-parallel-multi-port-external-lb"].negation is None  # action="store_true"
    assert "model_tag" not in flags and "--calculate-kv-scales" not in flags


# layouts we do not know


def _tree(root: Path, files: dict[str, str]) -> SourceTree:
    for relpath, source in files.items():
        path = root / relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source, encoding="utf-8")
    return SourceTree(root, "v9.9.9")


@pytest.mark.parametrize(
    "files",
    [
        {"vllm/__init__.py": ""},
        {"vllm/engine/arg_utils.py": "class EngineArgs:\n    model: str = 'x'\n"},
        {"vllm/entrypoints/cli/serve.py": "from vllm.nowhere import make_arg_parser\nmake_arg_parser(p)\n"},
    ],
    ids=["empty", "no-parser-builder", "builder-missing"],
)
def test_an_unrecognised_layout_gives_no_flags_and_a_note(tmp_path: Path, files: dict[str, str]) -> None:
    result = extract_cli_flags(_tree(tmp_path, files))
    assert result.entries == []
    assert result.note is not None and "not recognised" in result.note


def _choices(version: str, flag: str) -> list[str] | None:
    return next(f.choices for f in extract_cli_flags(release_tree(version)).entries if f.name == flag)


def test_collect_detailed_traces_also_takes_the_comma_joined_pairs_until_v0_31_0() -> None:
    pairs = ["model,worker", "model,all", "worker,model", "worker,all", "all,model", "all,worker"]
    assert _choices("0.27.1", "--collect-detailed-traces") == ["all", "model", "worker", *pairs]
    assert _choices("0.31.0", "--collect-detailed-traces") == ["all", "model", "worker"]


def test_mm_processor_device_takes_auto_cpu_and_each_platform_device_type() -> None:
    # arg_utils: ["auto", "cpu"] + [current_platform.device_type]; CUDA and ROCm say "cuda", XPU "xpu".
    assert _choices("0.28.0", "--mm-processor-device") == ["auto", "cpu", "cuda", "xpu"]
