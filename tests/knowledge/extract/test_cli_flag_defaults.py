"""Golden tests for the defaults of `vllm serve` flags, oldest release first.

Each expected value and line was read by hand from the release files: EngineArgs in
vllm/engine/arg_utils.py (0.4.1-0.7.0), the config dataclasses in vllm/config.py (0.9.2) and
vllm/config/*.py (later), and the `default` keywords of the add_argument calls.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support.releases import release_tree

from vllm_quant_mcp.knowledge.extract.cli_flags.defaults import Default, field_default
from vllm_quant_mcp.knowledge.extract.cli_flags.flags import extract_cli_flags
from vllm_quant_mcp.knowledge.extract.engine import Modules
from vllm_quant_mcp.knowledge.registry.model import CliFlag
from vllm_quant_mcp.knowledge.sources.tree import SourceTree


def _flags(version: str) -> dict[str, CliFlag]:
    return {flag.name: flag for flag in extract_cli_flags(release_tree(version)).entries}


def _stated(flag: CliFlag) -> tuple[object, str, int] | None:
    where = flag.default_provenance
    return (flag.default, where.path, where.line) if where is not None else None


# gpu_memory_utilization: 0.90 on EngineArgs (`default=EngineArgs.gpu_memory_utilization`), then 0.9 on
# CacheConfig (EngineArgs' field reads `CacheConfig.gpu_memory_utilization`), 0.92 from 0.20.0.
GPU_MEMORY_UTILIZATION = [
    ("0.4.1", 0.9, "vllm/engine/arg_utils.py", 37),
    ("0.6.0", 0.9, "vllm/engine/arg_utils.py", 88),
    ("0.9.2", 0.9, "vllm/config.py", 1494),
    ("0.19.1", 0.9, "vllm/config/cache.py", 41),
    ("0.20.0", 0.92, "vllm/config/cache.py", 66),
    ("0.30.0", 0.92, "vllm/config/cache.py", 103),
    ("0.31.0", 0.92, "vllm/config/cache.py", 103),
    ("0.33.0", 0.92, "vllm/config/cache.py", 215),
]


@pytest.mark.parametrize(("version", "value", "path", "line"), GPU_MEMORY_UTILIZATION, ids=lambda v: str(v))
def test_gpu_memory_utilization_default_is_read_from_the_line_that_states_it(
    version: str, value: float, path: str, line: int
) -> None:
    flag = _flags(version)["--gpu-memory-utilization"]
    assert _stated(flag) == (value, path, line)
    assert flag.default_expression is None
    assert flag.default_provenance is not None
    assert flag.default_provenance.permalink.endswith(f"/blob/v{version}/{path}#L{line}")


def test_gpu_memory_utilization_default_rises_from_0_9_to_0_92_at_v0_20_0() -> None:
    assert _flags("0.19.1")["--gpu-memory-utilization"].default == 0.9
    assert _flags("0.20.0")["--gpu-memory-utilization"].default == 0.92


@pytest.mark.parametrize(
    ("version", "path", "line"),
    [
        ("0.4.1", "vllm/engine/arg_utils.py", 28),  # max_model_len: Optional[int] = None
        ("0.9.2", "vllm/config.py", 290),  # SkipValidation[int] = None
        ("0.33.0", "vllm/config/model.py", 249),  # Field(default=None, ge=-1)
    ],
)
def test_max_model_len_defaults_to_a_stated_none(version: str, path: str, line: int) -> None:
    flag = _flags(version)["--max-model-len"]
    assert _stated(flag) == (None, path, line)
    assert flag.default_expression is None  # None as written, not a default we could not read


def test_block_size_is_16_on_engine_args_then_none_on_cache_config() -> None:
    assert _stated(_flags("0.6.0")["--block-size"]) == (16, "vllm/engine/arg_utils.py", 82)
    assert _stated(_flags("0.19.1")["--block-size"]) == (None, "vllm/config/cache.py", 36)
    assert _stated(_flags("0.33.0")["--block-size"]) == (None, "vllm/config/cache.py", 187)


def test_server_flags_read_their_default_keyword_or_frontend_field() -> None:
    assert _stated(_flags("0.4.1")["--port"]) == (8000, "vllm/entrypoints/openai/cli_args.py", 29)
    assert _stated(_flags("0.33.0")["--port"]) == (8000, "vllm/entrypoints/common/cli_args.py", 295)
    assert _stated(_flags("0.33.0")["--kv-cache-dtype"]) == ("auto", "vllm/config/cache.py", 235)


def test_a_default_written_into_the_kwargs_wins_over_the_config_field() -> None:
    # CacheConfig.enable_prefix_caching = True (cache.py:66), but add_cli_args splats {**kw, "default": None}.
    flag = _flags("0.19.1")["--enable-prefix-caching"]
    assert _stated(flag) == (None, "vllm/engine/arg_utils.py", 1000)


def test_a_computed_default_keeps_its_expression_and_no_value() -> None:
    flags = _flags("0.33.0")
    additional = flags["--additional-config"]
    assert (additional.default, additional.default_expression) == (None, "Field(default_factory=dict)")
    # DEFAULT_SAFETENSORS_PREFETCH_BLOCK_SIZE = 16 * 1024 * 1024 is followed to the constant, and not computed.
    prefetch = flags["--safetensors-prefetch-block-size"]
    assert (prefetch.default, prefetch.default_expression) == (None, "16 * 1024 * 1024")
    assert prefetch.default_provenance is not None
    assert (prefetch.default_provenance.path, prefetch.default_provenance.line) == ("vllm/config/load.py", 13)
    assert flags["--log-error-stack"].default_expression == "envs.VLLM_SERVER_DEV_MODE"


def test_a_flag_whose_source_states_no_default_has_none_and_no_line() -> None:
    flag = _flags("0.33.0")["--disable-log-stats"]  # action="store_true", no default keyword
    assert (flag.default, flag.default_provenance, flag.default_expression) == (None, None, None)


def _tree(root: Path, files: dict[str, str]) -> SourceTree:
    for relpath, source in files.items():
        path = root / relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source, encoding="utf-8")
    return SourceTree(root, "v9.9.9")


def test_fields_that_read_each_other_end_as_an_expression_not_a_loop(tmp_path: Path) -> None:
    source = "class A:\n    x: int = B.x\n\n\nclass B:\n    x: int = A.x\n"
    modules = Modules(_tree(tmp_path, {"vllm/config.py": source}))
    cls = modules.find_class("A", "vllm/config.py")
    assert cls is not None
    found = field_default(modules.fields(cls)["x"], modules)
    assert isinstance(found, Default) and found.value is None
    assert found.expression in {"A.x", "B.x"}
