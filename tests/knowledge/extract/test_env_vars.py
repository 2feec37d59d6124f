"""Golden tests: the VLLM_* environment variables of real releases and their defaults, oldest first.

Names were read from the `environment_variables` dict of each sdist's vllm/envs.py
with grep/awk (counts cross-checked against Python's ast on every release);
defaults were read by eye from the getter lines cited beside each check.
"""

from __future__ import annotations

from support.releases import release_tree

from vllm_quant_mcp.knowledge.extract.env_vars import extract_env_vars
from vllm_quant_mcp.knowledge.registry.model import EnvVar

NON_VLLM_0_33 = [
    "MAX_JOBS",
    "NVCC_THREADS",
    "CMAKE_BUILD_TYPE",
    "VERBOSE",
    "CUDA_HOME",
    "LD_LIBRARY_PATH",
    "LOCAL_RANK",
    "CUDA_VISIBLE_DEVICES",
    "S3_ACCESS_KEY_ID",
    "S3_SECRET_ACCESS_KEY",
    "S3_ENDPOINT_URL",
    "NO_COLOR",
    "FORCE_COLOR",
    "MOONCAKE_PREFERRED_SEGMENT",
    "MOONCAKE_REQUESTER_LOCAL_HOSTNAME",
]


def _by_name(version: str) -> dict[str, EnvVar]:
    return {e.name: e for e in extract_env_vars(release_tree(version)).entries}


def test_0_4_1_has_no_envs_py_and_says_so() -> None:
    result = extract_env_vars(release_tree("0.4.1"))
    assert result.entries == []
    assert result.note == "no vllm/envs.py at this tag"


def test_0_6_0_lists_the_fifty_vllm_names_in_dict_order() -> None:
    result = extract_env_vars(release_tree("0.6.0"))
    assert [e.name for e in result.entries] == [
        "VLLM_TARGET_DEVICE",
        "VLLM_USE_PRECOMPILED",
        "VLLM_CONFIG_ROOT",
        "VLLM_CACHE_ROOT",
        "VLLM_HOST_IP",
        "VLLM_PORT",
        "VLLM_RPC_BASE_PATH",
        "VLLM_USE_MODELSCOPE",
        "VLLM_INSTANCE_ID",
        "VLLM_RINGBUFFER_WARNING_INTERVAL",
        "VLLM_NCCL_SO_PATH",
        "VLLM_USE_TRITON_FLASH_ATTN",
        "VLLM_TEST_DYNAMO_GRAPH_CAPTURE",
        "VLLM_DYNAMO_USE_CUSTOM_DISPATCHER",
        "VLLM_ENGINE_ITERATION_TIMEOUT_S",
        "VLLM_API_KEY",
        "VLLM_USAGE_STATS_SERVER",
        "VLLM_NO_USAGE_STATS",
        "VLLM_DO_NOT_TRACK",
        "VLLM_USAGE_SOURCE",
        "VLLM_CONFIGURE_LOGGING",
        "VLLM_LOGGING_CONFIG_PATH",
        "VLLM_LOGGING_LEVEL",
        "VLLM_TRACE_FUNCTION",
        "VLLM_ATTENTION_BACKEND",
        "VLLM_USE_FLASHINFER_SAMPLER",
        "VLLM_PP_LAYER_PARTITION",
        "VLLM_CPU_KVCACHE_SPACE",
        "VLLM_CPU_OMP_THREADS_BIND",
        "VLLM_OPENVINO_KVCACHE_SPACE",
        "VLLM_OPENVINO_CPU_KV_CACHE_PRECISION",
        "VLLM_OPENVINO_ENABLE_QUANTIZED_WEIGHTS",
        "VLLM_USE_RAY_SPMD_WORKER",
        "VLLM_USE_RAY_COMPILED_DAG",
        "VLLM_USE_RAY_COMPILED_DAG_NCCL_CHANNEL",
        "VLLM_WORKER_MULTIPROC_METHOD",
        "VLLM_ASSETS_CACHE",
        "VLLM_IMAGE_FETCH_TIMEOUT",
        "VLLM_AUDIO_FETCH_TIMEOUT",
        "VLLM_XLA_CACHE_PATH",
        "VLLM_FUSED_MOE_CHUNK_SIZE",
        "VLLM_NO_DEPRECATION_WARNING",
        "VLLM_KEEP_ALIVE_ON_ENGINE_DEATH",
        "VLLM_ALLOW_LONG_MAX_MODEL_LEN",
        "VLLM_TEST_FORCE_FP8_MARLIN",
        "VLLM_RPC_GET_DATA_TIMEOUT_MS",
        "VLLM_ALLOW_ENGINE_USE_RAY",
        "VLLM_PLUGINS",
        "VLLM_TORCH_PROFILER_DIR",
        "VLLM_USE_TRITON_AWQ",
    ]


def test_0_6_0_defaults_come_from_the_getter_not_the_stale_type_checking_block() -> None:
    env = _by_name("0.6.0")
    assert env["VLLM_TARGET_DEVICE"].default == "cuda"
    assert env["VLLM_LOGGING_LEVEL"].default == "INFO"
    assert env["VLLM_WORKER_MULTIPROC_METHOD"].default == "fork"
    # getter: os.getenv("VLLM_FUSED_MOE_CHUNK_SIZE", "32768"); TYPE_CHECKING says 64 * 1024
    assert env["VLLM_FUSED_MOE_CHUNK_SIZE"].default == "32768"
    # getter: bool(os.environ.get("VLLM_USE_PRECOMPILED")): unset means unset
    assert env["VLLM_USE_PRECOMPILED"].default is None
    # computed from get_default_cache_root(): not guessed
    assert env["VLLM_CACHE_ROOT"].default is None


def test_0_6_0_a_getter_guarded_by_in_os_environ_defaults_to_its_else_branch() -> None:
    # lambda: int(os.getenv('VLLM_PORT', '0')) if 'VLLM_PORT' in os.environ else None
    assert _by_name("0.6.0")["VLLM_PORT"].default is None


def test_0_6_0_provenance_is_the_line_of_the_key() -> None:
    level = _by_name("0.6.0")["VLLM_LOGGING_LEVEL"].provenance
    assert (level.path, level.line) == ("vllm/envs.py", 251)
    assert level.permalink == "https://github.com/vllm-project/vllm/blob/v0.6.0/vllm/envs.py#L251"


def test_0_11_1_reads_env_with_choices_defaults() -> None:
    env = _by_name("0.11.1")
    assert len(env) == 195
    assert env["VLLM_WORKER_MULTIPROC_METHOD"].default == "fork"
    assert env["VLLM_ATTENTION_BACKEND"].default is None
    assert env["VLLM_USE_DEEP_GEMM"].default == "1"
    assert env["VLLM_TARGET_DEVICE"].provenance.line == 435


def test_0_22_0_counts_and_defaults() -> None:
    env = _by_name("0.22.0")
    assert len(env) == 249
    assert env["VLLM_WORKER_MULTIPROC_METHOD"].default == "fork"
    assert env["VLLM_TARGET_DEVICE"].provenance.line == 581


def test_0_32_0_has_301_vllm_names() -> None:
    env = _by_name("0.32.0")
    assert len(env) == 301
    assert env["VLLM_FLOAT32_MATMUL_PRECISION"].default == "highest"
    assert env["VLLM_FLOAT32_MATMUL_PRECISION"].provenance.line == 628


def test_0_33_0_names_defaults_and_skipped_note() -> None:
    result = extract_env_vars(release_tree("0.33.0"))
    names = [e.name for e in result.entries]
    assert len(names) == 303
    assert names[:3] == ["VLLM_TARGET_DEVICE", "VLLM_MAIN_CUDA_VERSION", "VLLM_FLOAT32_MATMUL_PRECISION"]
    assert names[-3:] == ["VLLM_ENABLE_HPC_OPS", "VLLM_SKIP_VERSION_SUFFIX", "VLLM_REQUEST_BODY_LOG_LEVEL"]
    assert result.note == f"15 names without the VLLM_ prefix skipped: {', '.join(NON_VLLM_0_33)}"


def test_0_33_0_default_spot_checks() -> None:
    env = _by_name("0.33.0")
    # env_with_choices("VLLM_FLOAT32_MATMUL_PRECISION", "highest", [...])
    assert env["VLLM_FLOAT32_MATMUL_PRECISION"].default == "highest"
    # env_with_choices("VLLM_GPU_SYNC_CHECK", None, ["warn", "error"])
    assert env["VLLM_GPU_SYNC_CHECK"].default is None
    # os.getenv("VLLM_SKIP_P2P_CHECK", "1") == "1"; TYPE_CHECKING still says False
    assert env["VLLM_SKIP_P2P_CHECK"].default == "1"
    # float(os.getenv("VLLM_LOG_STATS_INTERVAL", "10.")): as written
    assert env["VLLM_LOG_STATS_INTERVAL"].default == "10."
    # "VLLM_PORT": get_vllm_port, a helper: the TYPE_CHECKING `VLLM_PORT: int | None = None`
    assert env["VLLM_PORT"].default is None
    # "VLLM_USE_AOT_COMPILE": use_aot_compile, a helper: TYPE_CHECKING `VLLM_USE_AOT_COMPILE: bool = False`
    assert env["VLLM_USE_AOT_COMPILE"].default == "False"
    # int(os.getenv("VLLM_CPU_KVCACHE_SPACE", "0")) if "VLLM_CPU_KVCACHE_SPACE" in os.environ else None
    assert env["VLLM_CPU_KVCACHE_SPACE"].default is None
    # [] if "VLLM_DISABLED_KERNELS" not in os.environ else ...split(",")
    assert env["VLLM_DISABLED_KERNELS"].default == "[]"
    # bool(int(os.environ[...])) if "VLLM_USE_FLASHINFER_SAMPLER" in os.environ else True
    assert env["VLLM_USE_FLASHINFER_SAMPLER"].default == "True"
    assert env["VLLM_SKIP_P2P_CHECK"].provenance.line == 1214


def test_0_22_0_a_deprecated_env_keeps_vllms_own_message_naming_its_replacement_at_that_line() -> None:
    var = _by_name("0.22.0")["VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8"]
    assert var.removed_in == "v0.23"
    assert var.deprecation == "Use --moe-backend flashinfer_trtllm with --quantization_config.moe.activation mxfp8."
    assert var.deprecation_provenance is not None
    line = (release_tree("0.22.0").root / "vllm/envs.py").read_text(encoding="utf-8").splitlines()
    assert "Use --moe-backend flashinfer_trtllm with " in line[var.deprecation_provenance.line - 1]
    assert _by_name("0.22.0")["VLLM_USE_FLASHINFER_MOE_INT4"].deprecation is None
