"""Golden tests: online-quantization shorthands and config keys of real releases, oldest first.

Expected lists were read from vllm/config/quantization.py of each sdist with
grep/sed and cross-checked against Python's ast on every release.
"""

from __future__ import annotations

from support.releases import release_tree

from vllm_quant_mcp.knowledge.extract.online import extract_online_quantization

PATH = "vllm/config/quantization.py"


def _by_kind(version: str) -> tuple[list[str], list[str]]:
    entries = extract_online_quantization(release_tree(version)).entries
    return (
        [e.name for e in entries if e.kind == "shorthand"],
        [e.name for e in entries if e.kind == "config_key"],
    )


def test_releases_before_0_20_have_no_file_and_say_so() -> None:
    for version in ("0.6.0", "0.11.1", "0.19.0"):
        result = extract_online_quantization(release_tree(version))
        assert result.entries == []
        assert result.note == f"no {PATH} at this tag"


def test_0_20_0_reads_shorthands_from_the_online_quant_scheme_enum_and_keys_from_its_dataclass() -> None:
    shorthands, keys = _by_kind("0.20.0")
    assert shorthands == ["fp8_per_tensor", "fp8_per_block", "int8_per_channel_weight_only", "mxfp8", "online"]
    assert keys == ["global_scheme", "linear_scheme_override", "moe_scheme_override", "ignore"]


def test_0_22_0_reads_online_shorthands_then_dataclass_fields_then_quant_key_names() -> None:
    shorthands, keys = _by_kind("0.22.0")
    assert shorthands == ["fp8_per_tensor", "fp8_per_block", "mxfp8", "int8_per_channel_weight_only", "online"]
    assert keys == [
        "linear",
        "moe",
        "ignore",
        "fp8_per_tensor_static",
        "fp8_per_tensor_dynamic",
        "fp8_per_token",
        "fp8_per_block_static",
        "fp8_per_block_dynamic",
        "mxfp8",
        "mxfp4",
        "int8_per_channel_static",
    ]


def test_0_32_0_shorthands_and_keys() -> None:
    shorthands, keys = _by_kind("0.32.0")
    assert shorthands == [
        "fp8_per_tensor",
        "fp8_per_block",
        "fp8_per_channel",
        "mxfp8",
        "mxfp4",
        "int8_per_channel_weight_only",
        "nvfp4_per_token",
        "online",
    ]
    assert keys == [
        "linear",
        "moe",
        "ignore",
        "targets",
        "fp8_per_tensor_static",
        "fp8_per_tensor_dynamic",
        "fp8_per_token",
        "fp8_per_channel_static",
        "fp8_per_block_static",
        "fp8_per_block_dynamic",
        "mxfp8",
        "mxfp4",
        "nvfp4_per_token",
        "int8_per_channel_static",
        "int4_per_group_32",
    ]


def test_0_33_0_shorthands_and_keys_with_their_lines() -> None:
    result = extract_online_quantization(release_tree("0.33.0"))
    assert [(e.kind, e.name, e.provenance.line) for e in result.entries] == [
        ("shorthand", "fp8_per_tensor", 196),
        ("shorthand", "fp8_per_block", 200),
        ("shorthand", "fp8_per_channel", 206),
        ("shorthand", "mxfp8", 210),
        ("shorthand", "mxfp4", 214),
        ("shorthand", "int8_per_channel_weight_only", 219),
        ("shorthand", "nvfp4_per_token", 224),
        ("shorthand", "online", 233),
        ("config_key", "linear", 118),
        ("config_key", "moe", 121),
        ("config_key", "ignore", 124),
        ("config_key", "targets", 128),
        ("config_key", "fp8_per_tensor_static", 37),
        ("config_key", "fp8_per_tensor_dynamic", 38),
        ("config_key", "fp8_per_token", 39),
        ("config_key", "fp8_per_channel_static", 40),
        ("config_key", "fp8_per_block_static", 41),
        ("config_key", "fp8_per_block_dynamic", 42),
        ("config_key", "mxfp8", 43),
        ("config_key", "mxfp4", 44),
        ("config_key", "nvfp4_per_token", 45),
        ("config_key", "int8_per_channel_static", 46),
        ("config_key", "int8_per_group_32", 48),
        ("config_key", "int4_per_group_32", 50),
    ]
    assert result.note is None
    assert {e.provenance.path for e in result.entries} == {PATH}


def test_online_is_a_shorthand_that_quantizes_nothing_by_itself_and_takes_its_scheme_from_the_config() -> None:
    for version in ("0.20.0", "0.32.0"):
        (online,) = [e for e in extract_online_quantization(release_tree(version)).entries if e.name == "online"]
        source = (release_tree(version).root / PATH).read_text(encoding="utf-8").splitlines()
        assert '"online"' in source[online.provenance.line - 1]
        assert online.kind == "shorthand" and online.quantizes == []


def _shorthands(version: str) -> dict[str, object]:
    return {e.name: e for e in extract_online_quantization(release_tree(version)).entries if e.kind == "shorthand"}


def test_before_0_22_a_shorthand_is_the_global_scheme_and_quantizes_linear_and_moe_layers() -> None:
    assert {n: e.quantizes for n, e in _shorthands("0.20.0").items() if n != "online"} == {  # type: ignore[attr-defined]
        n: ["linear", "moe"] for n in ("fp8_per_tensor", "fp8_per_block", "int8_per_channel_weight_only", "mxfp8")
    }


def test_moe_only_shorthands_leave_linear_layers_unquantized_from_0_22() -> None:
    shorthands = _shorthands("0.32.0")
    assert shorthands["nvfp4_per_token"].quantizes == ["moe"]  # type: ignore[attr-defined]
    assert shorthands["int8_per_channel_weight_only"].weight_keys == {"moe": "kInt8StaticChannelSym"}  # type: ignore[attr-defined]
    assert shorthands["fp8_per_block"].quantizes == ["linear", "moe"]  # type: ignore[attr-defined]


def test_nvfp4_per_token_refuses_every_gpu_outside_the_sm100_family_at_its_moe_method() -> None:
    for version in ("0.26.0", "0.32.0"):
        (refusal,) = _shorthands(version)["nvfp4_per_token"].refusals  # type: ignore[attr-defined]
        assert (refusal.layer, refusal.family) == ("moe", 100)
        line = (release_tree(version).root / refusal.provenance.path).read_text(encoding="utf-8").splitlines()
        assert "is_device_capability_family(100)" in line[refusal.provenance.line - 2]
        assert "requires a Blackwell (SM100) GPU" in refusal.message


def test_fp8_per_channel_refuses_the_marlin_fp8_kernel_without_a_capability_family() -> None:
    (refusal,) = _shorthands("0.32.0")["fp8_per_channel"].refusals  # type: ignore[attr-defined]
    assert refusal.family is None and "MarlinFP8ScaledMMLinearKernel" in refusal.condition
