"""The attention support matrix of real releases: which backend vLLM's selector picks, or why none.

Expected outcomes were read by hand from each release's vllm/platforms/cuda.py priority lists and
the backends' `supports_*` methods (the lines each test names), not from this extractor.
"""

from __future__ import annotations

import ast

from support.releases import release_tree

from vllm_quant_mcp.knowledge.extract.attention.build import Constructors
from vllm_quant_mcp.knowledge.extract.attention.matrix import extract_attention
from vllm_quant_mcp.knowledge.extract.attention.select import CUDA_GRID, Selector
from vllm_quant_mcp.knowledge.extract.engine import Modules
from vllm_quant_mcp.knowledge.extract.env_vars import extract_env_vars
from vllm_quant_mcp.knowledge.registry.matrix import AttentionSupport, CapOutcome
from vllm_quant_mcp.knowledge.sources.tree import SourceTree


def _support(version: str) -> AttentionSupport:
    return extract_attention(release_tree(version)).entries


def _outcome(support: AttentionSupport, name: str, cap: str) -> CapOutcome:
    selection = next(s for s in support.cuda if s.name == name)
    return next(o for o in selection.outcomes if cap in o.capabilities)


def _source_line(version: str, path: str, line: int) -> str:
    return (release_tree(version).root / path).read_text(encoding="utf-8").splitlines()[line - 1]


def test_fp8_e5m2_kv_on_h100_and_a100_at_v0_32_0_runs_on_flashinfer_after_flash_attention_rejects_it() -> None:
    support = _support("0.32.0")
    for cap in ("9.0", "8.0"):
        outcome = _outcome(support, "dense:fp8_e5m2", cap)
        assert (outcome.verdict, outcome.backend) == ("yes", "FLASHINFER")
        (flash,) = [b for b in outcome.considered if b.backend == "FLASH_ATTN"]
        assert flash.verdict == "no" and "supports_kv_cache_dtype" in flash.checks[0].why
        check = flash.checks[0]  # the `return` that decided, under the list test that rejects e5m2
        assert _source_line("0.32.0", check.path, check.line).strip() == "return False"
        assert "not in cls.supported_kv_cache_dtypes" in _source_line("0.32.0", check.path, check.line - 1)


def test_nvfp4_kv_on_sm90_has_no_backend_at_v0_31_0_and_runs_on_flashinfer_at_v0_32_0() -> None:
    before = _outcome(_support("0.31.0"), "dense:nvfp4", "9.0")
    assert (before.verdict, before.backend) == ("no", None)
    assert {b.backend for b in before.considered} >= {"FLASH_ATTN", "FLASHINFER", "TRITON_ATTN"}
    after = _outcome(_support("0.32.0"), "dense:nvfp4", "9.0")
    assert (after.verdict, after.backend) == ("yes", "FLASHINFER")


def test_nvfp4_4over6_stays_refused_on_the_fa2_path_of_sm90_at_v0_32_0() -> None:
    assert _outcome(_support("0.32.0"), "dense:nvfp4_4over6", "9.0").verdict == "no"


def test_fp8_kv_on_h100_depends_on_whether_the_wheel_has_flash_attention_3_and_says_where() -> None:
    outcome = _outcome(_support("0.32.0"), "dense:fp8", "9.0")
    assert (outcome.verdict, outcome.backend) == ("conditional", "FLASHINFER")
    flash = outcome.considered[0]
    assert flash.backend == "FLASH_ATTN" and flash.verdict == "conditional"
    fa3 = next(c for c in flash.checks if "FA3_AVAILABLE" in c.why)
    assert "FA3_AVAILABLE" in _source_line("0.32.0", fa3.path, fa3.line)


def test_backends_carry_their_kv_list_and_the_capabilities_their_method_accepts() -> None:
    backends = {b.name: b for b in _support("0.32.0").backends}
    flash = backends["FLASH_ATTN"]
    assert flash.kv_cache_dtypes == ["auto", "float16", "bfloat16", "fp8", "fp8_e4m3"]
    assert flash.kv_provenance is not None
    assert "supported_kv_cache_dtypes" in _source_line("0.32.0", flash.kv_provenance.path, flash.kv_provenance.line)
    assert flash.capabilities == [str(c) for c in CUDA_GRID]  # capability >= DeviceCapability(8, 0)
    assert backends["FLASHINFER_MLA"].capabilities == ["10.0", "10.3"]  # capability.major == 10
    assert backends["FLASHINFER_MLA"].mla is True and flash.mla is False
    assert "cuda" in flash.platforms and "ROCM_ATTN" in backends and "rocm" in backends["ROCM_ATTN"].platforms


def test_the_rocm_selector_before_v0_18_validates_nothing_so_no_rocm_answer_is_derived() -> None:
    result = extract_attention(release_tree("0.17.0"))
    assert result.entries.rocm == []
    assert any("ROCm selector" in w for w in result.warnings)
    assert _support("0.19.0").rocm, "from v0.18.0 the ROCm selector validates, so answers are derived"


def test_answers_shared_across_capabilities_equal_those_derived_for_each_capability_alone() -> None:
    """The interpreter shares capability-free results between GPUs; each GPU answered alone must agree."""
    real = release_tree("0.32.0")
    tree = SourceTree(real.root, real.tag)
    modules = Modules(tree)
    env = {e.name: e.default for e in extract_env_vars(tree).entries}
    classes = {
        b.name: ref
        for b in _support("0.32.0").backends
        if b.class_name
        and b.class_provenance
        and (ref := modules.find_class(b.class_name, b.class_provenance.path)) is not None
    }
    shared = Selector(tree, modules, "cuda", classes, env)
    for kv in ("auto", "fp8", "fp8_e5m2", "nvfp4"):
        for mode in ("dense", "mla"):
            together = shared.outcomes(mode, kv, CUDA_GRID)  # type: ignore[arg-type]
            for cap in CUDA_GRID:
                alone = Selector(tree, modules, "cuda", classes, env).select(mode, kv, cap)  # type: ignore[arg-type]
                grouped = next(o for o in together if str(cap) in o.capabilities)
                assert grouped.model_copy(update={"capabilities": [str(cap)]}) == alone, (kv, mode, cap)


def test_constructor_raises_settled_with_the_gpu_left_open_equal_those_walked_gpu_by_gpu() -> None:
    """At v0.33.0 FlashInfer's builder reads the GPU for every KV dtype: one open walk must answer as seven would."""
    real = release_tree("0.33.0")
    tree = SourceTree(real.root, real.tag)
    modules = Modules(tree)
    env = {e.name: e.default for e in extract_env_vars(tree).entries}
    support = _support("0.33.0")
    classes = {
        b.name: ref
        for b in support.backends
        if b.class_name
        and b.class_provenance
        and (ref := modules.find_class(b.class_name, b.class_provenance.path)) is not None
    }
    selector = Selector(tree, modules, "cuda", classes, env)
    chosen = sorted({(s.mode, s.kv_cache_dtype, o.backend) for s in support.cuda for o in s.outcomes if o.backend})
    assert ("dense", "fp8", "FLASHINFER") in chosen
    for mode, kv, name in chosen:
        for cap in CUDA_GRID:
            head_size = 128 if mode == "dense" else 576
            alone, _ = Constructors().raises(selector.interpreter(cap), classes[name], kv, head_size)
            assert selector.construction(name, mode, kv, cap) == alone, (mode, kv, name, cap)


def test_releases_without_the_backend_registry_say_so() -> None:
    result = extract_attention(release_tree("0.11.0"))
    assert result.entries == AttentionSupport()
    assert result.note is not None and "registry.py is not in this release" in result.note


def test_a_rocm_only_backend_is_judged_on_the_rocm_grid_with_the_head_sizes_its_source_lists() -> None:
    info = next(b for b in _support("0.32.0").backends if b.name == "ROCM_ATTN")
    assert info.platforms == ["rocm"] and info.capabilities == ["9.4", "9.5"]
    assert info.class_provenance is not None
    module = ast.parse((release_tree("0.32.0").root / info.class_provenance.path).read_text(encoding="utf-8"))
    (method,) = [n for n in ast.walk(module) if isinstance(n, ast.FunctionDef) and n.name == "get_supported_head_sizes"]
    (returned,) = [n.value for n in ast.walk(method) if isinstance(n, ast.Return)]
    assert info.head_sizes == ast.literal_eval(returned)


def test_on_mi300x_the_aiter_checks_are_replayed_both_ways_and_rocm_attn_wins_either_way_at_v0_32_0() -> None:
    # rocm.py at v0.32.0 appends ROCM_ATTN before the two aiter-gated appends (find_spec("aiter") decides those).
    body = [ln.strip() for ln in _source_line_range("0.32.0", "vllm/platforms/rocm.py", "_get_backend_priorities")]
    first = body.index("backends.append(AttentionBackendEnum.ROCM_ATTN)")
    assert first < body.index("if is_aiter_found_and_supported():")
    support = _support("0.32.0")
    for kv in ("auto", "fp8_e4m3", "fp8_e5m2"):
        selection = next(s for s in support.rocm if s.name == f"dense:{kv}")
        (outcome,) = selection.outcomes
        assert (outcome.capabilities, outcome.verdict, outcome.backend) == (["9.4", "9.5"], "yes", "ROCM_ATTN")


def _source_line_range(version: str, path: str, function: str) -> list[str]:
    lines = (release_tree(version).root / path).read_text(encoding="utf-8").splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith(f"def {function}("))
    end = next(i for i in range(start + 1, len(lines)) if lines[i] and not lines[i][0].isspace() and lines[i][0] != ")")
    return lines[start:end]


def test_nvfp4_kv_on_sm90_at_v0_24_0_is_selected_for_flashinfer_whose_builder_then_raises() -> None:
    outcome = _outcome(_support("0.24.0"), "dense:nvfp4", "9.0")
    assert (outcome.verdict, outcome.backend) == ("no", "FLASHINFER")
    (raised,) = outcome.construction
    assert raised.verdict == "no" and raised.path == "vllm/v1/attention/backends/flashinfer.py"
    assert raised.why.startswith(
        "FlashInferMetadataBuilder.__init__ raises ValueError: --kv-cache-dtype nvfp4 requires"
    )
    assert _source_line("0.24.0", raised.path, raised.line).strip() == "raise ValueError("
    assert "is_device_capability_family(100)" in _source_line("0.24.0", raised.path, raised.line - 1)


def test_nvfp4_kv_on_sm100_at_v0_24_0_passes_the_builder_check_and_runs_on_flashinfer() -> None:
    outcome = _outcome(_support("0.24.0"), "dense:nvfp4", "10.0")
    assert (outcome.verdict, outcome.backend, outcome.construction) == ("yes", "FLASHINFER", [])


def test_nvfp4_kv_on_sm90_at_v0_22_0_is_selected_and_no_constructor_raise_is_reached() -> None:
    outcome = _outcome(_support("0.22.0"), "dense:nvfp4", "9.0")
    assert (outcome.verdict, outcome.backend, outcome.construction) == ("yes", "FLASHINFER", [])


def test_fp8_kv_on_sm90_at_v0_24_0_meets_no_constructor_raise_on_either_backend() -> None:
    outcome = _outcome(_support("0.24.0"), "dense:fp8", "9.0")  # FLASH_ATTN if the wheel has FA3, else FLASHINFER
    assert (outcome.verdict, outcome.backend, outcome.construction) == ("conditional", "FLASHINFER", [])
    assert [(b.backend, b.verdict) for b in outcome.considered] == [
        ("FLASH_ATTN", "conditional"),
        ("FLASHINFER", "yes"),
    ]
