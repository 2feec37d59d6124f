"""Golden tests: the --quantization methods of real releases, one per layout, oldest first.

Expected lists were read by hand from vllm/model_executor/layers/quantization/__init__.py of each sdist.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from support.releases import release_tree

from vllm_quant_mcp.knowledge.extract.engine import language
from vllm_quant_mcp.knowledge.extract.quantization import extract_quantization_methods
from vllm_quant_mcp.knowledge.registry.model import QuantizationMethod
from vllm_quant_mcp.knowledge.sources.tree import SourceTree

QUANT = "vllm/model_executor/layers/quantization"


def _methods(version: str) -> dict[str, QuantizationMethod]:
    return {m.name: m for m in extract_quantization_methods(release_tree(version)).entries}


def test_0_4_0_private_registry_holds_every_method_and_the_arg_utils_choices_say_which_the_cli_accepts() -> None:
    # 0.4.0 has no sdist: release_tree unpacks the wheel. marlin is registered but not in argparse's choices.
    result = extract_quantization_methods(release_tree("0.4.0"))
    summary = [(m.name, m.config_class, m.config_path, m.min_capability, m.accepted_by_cli) for m in result.entries]
    assert summary == [
        ("awq", "AWQConfig", f"{QUANT}/awq.py", 75, True),
        ("gptq", "GPTQConfig", f"{QUANT}/gptq.py", 60, True),
        ("squeezellm", "SqueezeLLMConfig", f"{QUANT}/squeezellm.py", 70, True),
        ("marlin", "MarlinConfig", f"{QUANT}/marlin.py", 80, False),
    ]
    assert [m.provenance.line for m in result.entries] == [11, 12, 13, 14]
    assert not any(m.deprecated for m in result.entries)
    assert result.note is None and result.warnings == []


def test_0_4_1_dict_keys_are_the_methods_with_the_classes_they_map_to() -> None:
    result = extract_quantization_methods(release_tree("0.4.1"))
    summary = [(m.name, m.config_class, m.config_path, m.min_capability) for m in result.entries]
    assert summary == [
        ("aqlm", "AQLMConfig", f"{QUANT}/aqlm.py", 70),
        ("awq", "AWQConfig", f"{QUANT}/awq.py", 75),
        ("fp8", "FP8Config", f"{QUANT}/fp8.py", 90),
        ("gptq", "GPTQConfig", f"{QUANT}/gptq.py", 60),
        ("squeezellm", "SqueezeLLMConfig", f"{QUANT}/squeezellm.py", 70),
        ("marlin", "MarlinConfig", f"{QUANT}/marlin.py", 80),
    ]
    assert all(m.accepted_by_cli and not m.deprecated for m in result.entries)
    assert result.entries[0].provenance.line == 13
    assert result.note is None


def test_0_6_3_dict_layout_keeps_source_order_and_leaves_raising_capabilities_empty() -> None:
    methods = _methods("0.6.3")
    assert list(methods) == [
        "aqlm",
        "awq",
        "deepspeedfp",
        "tpu_int8",
        "fp8",
        "fbgemm_fp8",
        "modelopt",
        "marlin",
        "gguf",
        "gptq_marlin_24",
        "gptq_marlin",
        "awq_marlin",
        "gptq",
        "compressed-tensors",
        "bitsandbytes",
        "qqq",
        "experts_int8",
        "neuron_quant",
        "ipex",
    ]
    assert methods["tpu_int8"].config_class == "Int8TpuConfig"
    assert methods["tpu_int8"].min_capability is None  # raises NotImplementedError
    assert methods["ipex"].min_capability == -1
    assert methods["modelopt"].config_class == "ModelOptFp8Config"
    assert methods["modelopt"].min_capability == 89
    assert methods["compressed-tensors"].config_path == f"{QUANT}/compressed_tensors/compressed_tensors.py"


def test_0_7_0_list_layout_resolves_classes_through_imports_inside_get_quantization_config() -> None:
    methods = _methods("0.7.0")
    assert list(methods) == [
        "aqlm",
        "awq",
        "deepspeedfp",
        "tpu_int8",
        "fp8",
        "fbgemm_fp8",
        "modelopt",
        "marlin",
        "gguf",
        "gptq_marlin_24",
        "gptq_marlin",
        "awq_marlin",
        "gptq",
        "compressed-tensors",
        "bitsandbytes",
        "qqq",
        "hqq",
        "experts_int8",
        "neuron_quant",
        "ipex",
        "quark",
    ]
    assert (methods["hqq"].config_class, methods["hqq"].config_path, methods["hqq"].min_capability) == (
        "HQQMarlinConfig",
        f"{QUANT}/hqq_marlin.py",
        80,
    )
    assert (methods["quark"].config_class, methods["quark"].config_path) == ("QuarkConfig", f"{QUANT}/quark/quark.py")
    assert methods["quark"].provenance.line == 29
    assert not any(m.deprecated for m in methods.values())


def test_0_14_0_literal_layout_marks_deprecated_methods_and_inherits_min_capability() -> None:
    result = extract_quantization_methods(release_tree("0.14.0"))
    methods = {m.name: m for m in result.entries}
    assert list(methods) == [
        "awq",
        "deepspeedfp",
        "fp8",
        "ptpc_fp8",
        "fbgemm_fp8",
        "fp_quant",
        "modelopt",
        "modelopt_fp4",
        "bitblas",
        "gguf",
        "gptq_marlin_24",
        "gptq_marlin",
        "gptq_bitblas",
        "awq_marlin",
        "gptq",
        "compressed-tensors",
        "bitsandbytes",
        "hqq",
        "experts_int8",
        "ipex",
        "quark",
        "moe_wna16",
        "torchao",
        "auto-round",
        "rtn",
        "inc",
        "mxfp4",
        "petit_nvfp4",
        "cpu_awq",
    ]
    assert [m.name for m in result.entries if m.deprecated] == [
        "deepspeedfp",
        "ptpc_fp8",
        "fbgemm_fp8",
        "fp_quant",
        "bitblas",
        "gptq_marlin_24",
        "gptq_bitblas",
        "hqq",
        "experts_int8",
        "ipex",
        "auto-round",
        "rtn",
        "petit_nvfp4",
    ]
    # PTPCFp8Config(Fp8Config) has no get_min_capability of its own: Fp8Config's 75 applies.
    assert (methods["ptpc_fp8"].config_class, methods["ptpc_fp8"].min_capability) == ("PTPCFp8Config", 75)
    assert methods["inc"].min_capability is None  # raise AssertionError
    assert methods["auto-round"].config_class == "AutoRoundConfig"
    assert methods["awq"].provenance.line == 13
    assert any("tpu_int8" in w for w in result.warnings)  # deprecated but no longer listed


def test_0_20_0_records_table_only_keys_as_not_accepted_by_cli_and_online_schemes_by_their_loop() -> None:
    methods = _methods("0.20.0")
    assert [name for name, m in methods.items() if m.accepted_by_cli] == [
        "awq",
        "fp8",
        "fbgemm_fp8",
        "fp_quant",
        "modelopt",
        "modelopt_fp4",
        "modelopt_mxfp8",
        "modelopt_mixed",
        "gguf",
        "gptq_marlin",
        "awq_marlin",
        "gptq",
        "humming",
        "compressed-tensors",
        "bitsandbytes",
        "experts_int8",
        "quark",
        "moe_wna16",
        "torchao",
        "inc",
        "mxfp4",
        "gpt_oss_mxfp4",
        "deepseek_v4_fp8",
        "cpu_awq",
        "online",
        "fp8_per_tensor",
        "fp8_per_block",
        "int8_per_channel_weight_only",
        "mxfp8",
    ]
    auto_round = methods["auto-round"]
    assert (auto_round.accepted_by_cli, auto_round.config_class) == (False, "INCConfig")
    assert auto_round.provenance.line == 164  # its key in method_to_config
    for shorthand in ("fp8_per_tensor", "fp8_per_block", "int8_per_channel_weight_only", "mxfp8"):
        assert methods[shorthand].config_class == "OnlineQuantizationConfig"
        assert methods[shorthand].config_path == f"{QUANT}/online/base.py"
    assert methods["deepseek_v4_fp8"].config_path == "vllm/model_executor/models/deepseek_v4.py"
    assert methods["cpu_awq"].min_capability == -1
    assert [m.name for m in methods.values() if m.deprecated] == ["fbgemm_fp8", "fp_quant"]


def test_0_32_0_has_thirty_methods_with_awq_and_gptq_aliases_sharing_one_class() -> None:
    result = extract_quantization_methods(release_tree("0.32.0"))
    methods = {m.name: m for m in result.entries}
    assert list(methods) == [
        "awq",
        "auto_awq",
        "fp8",
        "fbgemm_fp8",
        "fp_quant",
        "modelopt",
        "modelopt_fp4",
        "modelopt_mxfp8",
        "modelopt_mixed",
        "auto_gptq",
        "gptq",
        "gptq_marlin",
        "awq_marlin",
        "humming",
        "compressed-tensors",
        "experts_int8",
        "quark",
        "moe_wna16",
        "torchao",
        "inc",
        "mxfp4",
        "gpt_oss_mxfp4",
        "deepseek_v4_fp8",
        "online",
        "fp8_per_tensor",
        "fp8_per_block",
        "fp8_per_channel",
        "int8_per_channel_weight_only",
        "nvfp4_per_token",
        "mxfp8",
    ]
    assert all(m.accepted_by_cli for m in result.entries)
    for alias in ("awq", "awq_marlin", "auto_awq"):
        assert (methods[alias].config_class, methods[alias].config_path, methods[alias].min_capability) == (
            "AutoAWQConfig",
            f"{QUANT}/auto_awq.py",
            75,
        )
    for alias in ("gptq", "gptq_marlin", "auto_gptq"):
        assert (methods[alias].config_class, methods[alias].min_capability) == ("AutoGPTQConfig", 60)
    assert [m.name for m in result.entries if m.deprecated] == ["fbgemm_fp8", "fp_quant"]
    assert methods["fp_quant"].min_capability == 100
    assert methods["inc"].config_path == f"{QUANT}/inc/inc.py"  # re-exported by inc/__init__.py
    # The checkpoint table entry wins over the online-shorthand setdefault loop.
    assert methods["mxfp8"].config_class == "ModelOptMxFp8Config"
    assert methods["fp8_per_channel"].config_class == "OnlineQuantizationConfig"
    awq = methods["awq"].provenance
    assert (awq.path, awq.line) == (f"{QUANT}/__init__.py", 16)
    assert awq.permalink == f"https://github.com/vllm-project/vllm/blob/v0.32.0/{QUANT}/__init__.py#L16"


def test_0_32_0_deepseek_v4_fp8_keeps_what_both_platform_branches_share() -> None:
    result = extract_quantization_methods(release_tree("0.32.0"))
    deepseek = next(m for m in result.entries if m.name == "deepseek_v4_fp8")
    # deepseek_config is DeepseekV4FP8Config from models/deepseek_v41 on CUDA/ROCm, models/deepseek_v4 elsewhere.
    assert (deepseek.config_class, deepseek.config_path, deepseek.min_capability) == ("DeepseekV4FP8Config", None, 75)
    assert any("deepseek_config" in w for w in result.warnings)


def test_a_tree_without_the_quantization_package_yields_nothing_and_says_why(tmp_path: Path) -> None:
    result = extract_quantization_methods(SourceTree(tmp_path, "v0.0.0"))
    assert result.entries == []
    assert result.note is not None and f"{QUANT}/__init__.py" in result.note


def test_a_private_registry_with_computed_cli_choices_keeps_every_key_and_warns(tmp_path: Path) -> None:
    init = tmp_path / QUANT / "__init__.py"
    init.parent.mkdir(parents=True)
    init.write_text('_QUANTIZATION_CONFIG_REGISTRY = {"awq": AWQConfig, "marlin": MarlinConfig}\n', encoding="utf-8")
    arg_utils = tmp_path / "vllm/engine/arg_utils.py"
    arg_utils.parent.mkdir(parents=True)
    arg_utils.write_text("parser.add_argument('--quantization', choices=[*METHODS, None])\n", encoding="utf-8")
    result = extract_quantization_methods(SourceTree(tmp_path, "v0.4.0"))
    assert [(m.name, m.accepted_by_cli) for m in result.entries] == [("awq", True), ("marlin", True)]
    assert any("no literal --quantization choices in vllm/engine/arg_utils.py" in w for w in result.warnings)


def test_an_unknown_layout_yields_nothing_and_says_why(tmp_path: Path) -> None:
    init = tmp_path / QUANT / "__init__.py"
    init.parent.mkdir(parents=True)
    init.write_text("QUANTIZATION_METHODS = load_methods()\n", encoding="utf-8")
    result = extract_quantization_methods(SourceTree(tmp_path, "v9.9.9"))
    assert result.entries == []
    assert result.note is not None and "does not know this layout" in result.note


@pytest.mark.parametrize("name", ["quantization", "quantization_resolver"])
def test_a_malformed_query_fails_loudly_instead_of_finding_nothing(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # Stand-in for a corrupted .scm shipped in the package: the real text with its last ")" cut.
    original = language.query_source
    text = original(name)
    cut = text.rindex(")")
    broken = text[:cut] + text[cut + 1 :]
    monkeypatch.setattr(language, "query_source", lambda n: broken if n == name else original(n))
    language.query.cache_clear()
    try:
        with pytest.raises(language.QueryLoadError, match=re.escape(f"{name}.scm does not compile")):
            # A fresh tree: extractors run once per tree, and the cached one already has its answer.
            real = release_tree("0.32.0")
            extract_quantization_methods(SourceTree(real.root, real.tag))
    finally:
        language.query.cache_clear()


def test_min_capability_points_at_the_return_that_states_it_even_in_a_base_class() -> None:
    tree = release_tree("0.32.0")
    methods = {m.name: m for m in extract_quantization_methods(tree).entries}
    for name in ("fp8", "awq", "modelopt"):
        where = methods[name].min_capability_provenance
        assert where is not None
        line = (tree.root / where.path).read_text(encoding="utf-8").splitlines()[where.line - 1]
        assert line.strip() == f"return {methods[name].min_capability}", (name, line)


@pytest.mark.parametrize("cut", [False, True])
def test_a_config_class_whose_lines_do_not_parse_on_their_own_is_read_from_the_whole_file(
    tmp_path: Path, cut: bool
) -> None:
    """A string continued at column 0 looks like a new statement: the class cut there does not parse alone."""
    quant = tmp_path / QUANT
    quant.mkdir(parents=True)
    (quant / "__init__.py").write_text(
        "from vllm.model_executor.layers.quantization.foo import FooConfig\n"
        '_QUANTIZATION_CONFIG_REGISTRY = {"foo": FooConfig}\n',
        encoding="utf-8",
    )
    note = '    NOTE = ("a"\n"b")\n' if cut else '    NOTE = ("a"\n            "b")\n'
    (quant / "foo.py").write_text(
        "import torch\n\n\nclass FooConfig(QuantizationConfig):\n" + note + "\n    @classmethod\n"
        "    def get_min_capability(cls) -> int:\n        return 80\n\n\nclass FooLinearMethod:\n    pass\n",
        encoding="utf-8",
    )
    (tmp_path / "vllm/engine").mkdir(parents=True)
    (tmp_path / "vllm/engine/arg_utils.py").write_text("parser.add_argument('--quantization')\n", encoding="utf-8")
    [method] = extract_quantization_methods(SourceTree(tmp_path, "v0.4.1")).entries
    assert (method.name, method.config_class, method.min_capability) == ("foo", "FooConfig", 80)
    at = method.min_capability_provenance
    assert at is not None and at.line == 10  # the `return 80`
