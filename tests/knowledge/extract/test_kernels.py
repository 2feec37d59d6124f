"""The linear kernel vLLM picks on real releases, per scheme and GPU, with the candidates it rejected and why.

Expected kernels were read by hand from each release's vllm/model_executor/kernels/linear/__init__.py lists
and the kernels' `is_supported` / `get_min_capability` / `can_implement` (the lines each test names), and the
v0.26.0 FP8 answer on SM90 is what vLLM logged on an H200 (issue 23), not from this extractor. ROCm answers are
for MI300X (gfx942, capability 9.4) and MI355X (gfx950, 9.5), with the VLLM_ROCM_* defaults of vllm/envs.py.
"""

from __future__ import annotations

from support.releases import release_tree

from vllm_quant_mcp.knowledge.extract.engine import Cap, Modules, Shared
from vllm_quant_mcp.knowledge.extract.kernels.constants import Constants
from vllm_quant_mcp.knowledge.extract.kernels.matrix import extract_kernel_lists, extract_kernels
from vllm_quant_mcp.knowledge.registry.diff import diff_kind
from vllm_quant_mcp.knowledge.registry.kernels import KernelOutcome, KernelSupport, MoeOutcome


def _support(version: str) -> KernelSupport:
    return extract_kernels(release_tree(version)).entries


def _outcome(
    support: KernelSupport, scheme: str, cap: str, backend: str = "auto", platform: str = "cuda"
) -> KernelOutcome:
    selection = next(s for s in support.selections if s.name == scheme)
    return next(
        o
        for o in selection.outcomes
        if cap in o.capabilities and o.linear_backend == backend and o.platform == platform
    )


def _source_line(version: str, path: str, line: int) -> str:
    return (release_tree(version).root / path).read_text(encoding="utf-8").splitlines()[line - 1]


def test_a_release_before_the_kernel_lists_says_so_instead_of_listing_no_kernels() -> None:
    extracted = extract_kernel_lists(release_tree("0.4.1"))
    assert extracted.entries == [] and extracted.note is not None and "no candidate lists" in extracted.note


def test_gptq_w4a16_at_v0_14_0_reads_the_older_mixed_precision_list_and_picks_machete_on_h100_marlin_on_a100() -> None:
    support = _support("0.14.0")
    (mp,) = [
        entry for entry in extract_kernel_lists(release_tree("0.14.0")).entries if entry.name == "_POSSIBLE_KERNELS"
    ]
    assert mp.provenance.path == "vllm/model_executor/layers/quantization/kernels/mixed_precision/__init__.py"
    assert _outcome(support, "gptq-w4a16", "9.0").kernel == "MacheteLinearKernel"
    a100 = _outcome(support, "gptq-w4a16", "8.0")
    assert (a100.verdict, a100.kernel) == ("yes", "MarlinLinearKernel")
    machete = next(v for v in a100.considered if v.kernel == "MacheteLinearKernel")
    assert machete.verdict == "no" and "requires capability 90" in machete.checks[0].why


def test_online_fp8_on_h200_at_v0_26_0_is_cutlass_after_marlin_and_flashinfer_refuse_as_vllm_logged() -> None:
    outcome = _outcome(_support("0.26.0"), "fp8-tensor", "9.0")
    assert (outcome.verdict, outcome.kernel) == ("yes", "CutlassFP8ScaledMMLinearKernel")
    marlin, flashinfer, cutlass = outcome.considered
    assert marlin.kernel == "MarlinFP8ScaledMMLinearKernel" and marlin.verdict == "no"
    assert "VLLM_TEST_FORCE_FP8_MARLIN" in marlin.checks[0].why
    assert flashinfer.verdict == "no" and flashinfer.checks[0].path.endswith("scaled_mm/flashinfer.py")
    assert "requires compute capability 100" in _source_line(
        "0.26.0", flashinfer.checks[0].path, flashinfer.checks[0].line
    )
    assert cutlass.verdict == "yes"


def test_fp8_w8a8_at_v0_26_0_is_marlin_weight_only_on_a100_cutlass_on_h100_flashinfer_on_b200() -> None:
    support = _support("0.26.0")
    assert _outcome(support, "fp8-tensor", "8.0").kernel == "MarlinFP8ScaledMMLinearKernel"
    assert _outcome(support, "fp8-tensor", "9.0").kernel == "CutlassFP8ScaledMMLinearKernel"
    b200 = _outcome(support, "fp8-tensor", "10.0")
    assert (b200.verdict, b200.kernel) == ("yes", "FlashInferFP8ScaledMMLinearKernel")
    assert b200.considered[-1].conditions == ["has_flashinfer() holds (the package is installed)"]


def test_channelwise_fp8_on_b200_at_v0_26_0_skips_flashinfer_whose_can_implement_wants_per_tensor_scales() -> None:
    b200 = _outcome(_support("0.26.0"), "fp8-channel", "10.0")
    flashinfer = next(v for v in b200.considered if v.kernel == "FlashInferFP8ScaledMMLinearKernel")
    assert flashinfer.verdict == "no" and "per tensor activation and weight scales" in flashinfer.checks[0].why
    assert b200.kernel == "CutlassFP8ScaledMMLinearKernel"


def test_gptq_w4a16_on_h100_at_v0_31_0_is_machete_and_marlin_behind_it_without_a_humming_rule() -> None:
    outcome = _outcome(_support("0.31.0"), "gptq-w4a16", "9.0")
    assert (outcome.kernel, outcome.reordered) == ("MacheteLinearKernel", None)
    assert outcome.runner_up is not None and outcome.runner_up.kernel == "MarlinLinearKernel"


def test_gptq_w4a16_on_h100_from_v0_32_0_puts_humming_ahead_of_marlin_so_disabling_machete_lands_on_humming() -> None:
    for version in ("0.32.0", "0.33.0"):
        outcome = _outcome(_support(version), "gptq-w4a16", "9.0")
        assert outcome.kernel == "MacheteLinearKernel"
        assert outcome.reordered is not None and outcome.reordered.path.endswith("humming/priority.py")
        assert "def prioritize_humming" in _source_line(version, outcome.reordered.path, outcome.reordered.line)
        assert outcome.runner_up is not None and outcome.runner_up.kernel == "HummingLinearKernel"
        assert outcome.runner_up.conditions == ["has_humming() holds (the package is installed)"]
        forced = _outcome(_support(version), "gptq-w4a16", "9.0", backend="marlin")
        assert (forced.verdict, forced.kernel) == ("yes", "MarlinLinearKernel")


def test_the_humming_rule_leaves_other_gpus_in_list_order_at_v0_33_0() -> None:
    outcome = _outcome(_support("0.33.0"), "gptq-w4a16", "8.0")
    assert outcome.reordered is None and outcome.kernel == "MarlinLinearKernel"


def test_a_linear_backend_with_no_kernel_in_the_list_is_not_walked_at_v0_33_0() -> None:
    selection = next(s for s in _support("0.33.0").selections if s.name == "gptq-w4a16")
    assert "deep_gemm" not in {o.linear_backend for o in selection.outcomes}


def test_nvfp4_linear_at_v0_33_0_uses_flashinfer_cutedsl_on_b200_and_is_conditional_on_a_compiled_op_on_h100() -> None:
    support = _support("0.33.0")
    b200 = _outcome(support, "nvfp4", "10.0")
    assert b200.kernel == "FlashInferCuteDslNvFp4LinearKernel"
    h100 = _outcome(support, "nvfp4", "9.0")
    assert h100.verdict == "conditional"
    cutlass = next(v for v in h100.considered if v.kernel == "CutlassNvFp4LinearKernel")
    assert cutlass.verdict == "conditional" and "cutlass_scaled_mm_supports_fp4" in cutlass.checks[0].why


def _moe(support: KernelSupport, scheme: str, cap: str, parallel: str, platform: str = "cuda") -> MoeOutcome:
    selection = next(s for s in support.moe if s.name == scheme)
    return next(
        o
        for o in selection.outcomes
        if cap in o.capabilities and o.parallel == parallel and o.platform == platform and o.moe_backend == "auto"
    )


def test_fp8_moe_on_h200_at_v0_26_0_is_triton_as_vllm_logged_and_marlin_on_a100() -> None:
    support = _support("0.26.0")
    h200 = _moe(support, "fp8-tensor", "9.0", "tp")
    assert (h200.verdict, h200.backend, h200.experts) == ("yes", "TRITON", "TritonExperts")
    assert h200.order[0] == "AITER" and "VLLM_CUTLASS" not in h200.order  # dropped: allow_vllm_cutlass is False
    refused = {v.kernel.split(":")[0] for v in h200.considered if v.verdict == "no"}
    assert {"AITER", "FLASHINFER_TRTLLM", "FLASHINFER_CUTLASS", "DEEPGEMM"} <= refused
    assert _moe(support, "fp8-tensor", "8.0", "tp").backend == "MARLIN"


def test_block_fp8_moe_on_h100_at_v0_26_0_prefers_triton_for_tp_and_flashinfer_cutlass_with_expert_parallel() -> None:
    support = _support("0.26.0")
    assert _moe(support, "fp8-block", "9.0", "tp").backend == "TRITON"
    assert _moe(support, "fp8-block", "9.0", "ep8").backend == "FLASHINFER_CUTLASS"


def test_nvfp4_moe_at_v0_33_0_is_marlin_on_h100_and_flashinfer_trtllm_on_b200_with_or_without_expert_parallel() -> None:
    support = _support("0.33.0")
    for parallel in ("tp", "ep8"):
        h100 = _moe(support, "nvfp4", "9.0", parallel)
        assert h100.backend == "MARLIN" and h100.reordered is not None  # Humming ahead of Marlin, left open
        assert [v.kernel.split(":")[0] for v in h100.considered if v.verdict == "conditional"] == ["HUMMING"]
        b200 = _moe(support, "nvfp4", "10.0", parallel)
        assert (b200.verdict, b200.backend) == ("yes", "FLASHINFER_TRTLLM")


def test_the_fp8_list_moving_marlin_from_first_to_behind_cutlass_shows_as_a_changed_kernels_entry() -> None:
    old, new = (extract_kernel_lists(release_tree(v)).entries for v in ("0.26.0", "0.33.0"))
    (changed,) = [c for c in diff_kind(list(old), list(new), "kernels").changed if c.name == "_POSSIBLE_FP8_KERNELS"]
    before, after = changed.changes["kernels"].before, changed.changes["kernels"].after
    assert before[0] == "MarlinFP8ScaledMMLinearKernel" and after[0] == "FlashInferFP8ScaledMMLinearKernel"


def test_fp8_moe_at_v0_14_0_replays_the_oracles_check_chain_deep_gemm_only_below_tp_8() -> None:
    # v0.14.0's select_fp8_moe_backend returns the backend itself: DeepGEMM MoE is off by default at TP >= 8
    # (oracle/fp8.py:115), so block FP8 at TP 8 falls through to Triton; under EP the TP size is 1 and DeepGEMM,
    # an optional package, is taken where installed.
    support = _support("0.14.0")
    tp, ep = _moe(support, "fp8-block", "9.0", "tp"), _moe(support, "fp8-block", "9.0", "ep8")
    assert (tp.verdict, tp.backend, ep.verdict, ep.backend) == ("yes", "TRITON", "yes", "DEEPGEMM")
    (returned,) = tp.considered[0].checks
    assert _source_line("0.14.0", returned.path, returned.line).strip() == "return Fp8MoeBackend.TRITON"
    assert ep.considered[0].conditions and not tp.considered[0].conditions
    nvfp4 = _moe(support, "nvfp4", "10.0", "tp")  # cutlass_scaled_mm_supports_fp4 is a compiled op: left open
    assert nvfp4.verdict == "conditional" and "cutlass_scaled_mm_supports_fp4" in nvfp4.considered[0].checks[0].why


def test_fp8_moe_at_v0_17_0_asks_the_one_expert_class_each_backend_names_and_says_why_each_refuses() -> None:
    # v0.17.0's backend_to_kernel_cls returns a class, not a list: each backend's class is asked in turn.
    h100 = _moe(_support("0.17.0"), "fp8-tensor", "9.0", "tp")
    assert (h100.verdict, h100.backend, h100.experts) == ("yes", "TRITON", "TritonExperts")
    aiter = next(v for v in h100.considered if v.kernel.startswith("AITER"))
    assert aiter.verdict == "no" and "kernel does not support current device" in aiter.checks[0].why
    assert "{reason}" not in aiter.checks[0].why  # the f-string is filled in where its parts are known


def test_exllama_reads_the_weight_types_size_bits_and_refuses_bfloat16_activations_at_v0_33_0() -> None:
    # can_implement divides by c.weight_type.size_bits (uint4b8 = ScalarType.uint(4, 8): 4 bits) before it
    # compares the activation dtype: both are read now, where the first was left open.
    forced = _outcome(_support("0.33.0"), "gptq-w4a16", "9.0", "exllama")
    (exllama,) = forced.considered
    assert exllama.verdict == "no" and "float16 activations" in exllama.checks[0].why
    assert "float16" in _source_line("0.33.0", exllama.checks[0].path, exllama.checks[0].line)


def test_deep_gemm_block_fp8_compares_group_shapes_by_value_and_is_left_open_only_on_the_models_config() -> None:
    h100 = _outcome(_support("0.33.0"), "fp8-block", "9.0")
    deep_gemm = next(v for v in h100.considered if v.kernel == "DeepGemmFp8BlockScaledMMKernel")
    assert deep_gemm.verdict == "conditional"
    assert all("GroupShape" not in c.why for c in deep_gemm.checks)  # GroupShape(1, 128) equals the scheme's
    assert any("model" in c.why for c in deep_gemm.checks)
    assert len(deep_gemm.conditions) == len(set(deep_gemm.conditions))


def test_fp8_moe_at_v0_16_0_asks_flashinfer_trtllm_through_the_oracles_module_check_which_has_no_expert_class() -> None:
    # v0.16.0's backend_to_kernel_cls raises NotImplementedError for FLASHINFER_TRTLLM: the oracle's walk asks
    # is_supported_config_trtllm(config, weight_key, activation_key, activation_format) instead, and returns
    # (backend, None). Activations are named by the string "silu" there (the MoEActivation enum came later).
    support = _support("0.16.0")
    b200 = _moe(support, "fp8-block", "10.0", "tp")
    assert (b200.verdict, b200.backend, b200.experts) == ("yes", "FLASHINFER_TRTLLM", None)
    h100 = _moe(support, "fp8-block", "9.0", "tp")
    trtllm = next(v for v in h100.considered if v.kernel.startswith("FLASHINFER_TRTLLM"))
    assert trtllm.verdict == "no" and "is_supported_config_trtllm" in trtllm.checks[0].why
    assert (h100.verdict, h100.backend, h100.experts) == ("yes", "FLASHINFER_CUTLASS", "FlashInferExperts")


def test_fp8_w8a8_at_v0_32_0_is_rocm_skinny_gemm_on_mi300x_and_mi355x_where_h100_waits_on_a_compiled_op() -> None:
    support = _support("0.32.0")
    # linear/__init__.py:453-458, the ROCM member: three AITER kernels, then ROCmFP8ScaledMMLinearKernel
    for cap in ("9.4", "9.5"):
        rocm = _outcome(support, "fp8-tensor", cap, platform="rocm")
        assert (rocm.verdict, rocm.kernel) == ("yes", "ROCmFP8ScaledMMLinearKernel")
        aiter = rocm.considered[:3]
        assert [v.kernel for v in aiter] == [
            "AiterHipbMMPerTokenFp8ScaledMMLinearKernel",
            "AiterPreshuffledPerTokenFp8ScaledMMLinearKernel",
            "AiterPerTokenFp8ScaledMMLinearKernel",
        ]
        # scaled_mm/aiter.py:234-237: is_linear_hipbmm_enabled() is false with VLLM_ROCM_USE_AITER unset (envs.py)
        assert all(v.verdict == "no" and "VLLM_ROCM_USE_AITER=1" in v.checks[0].why for v in aiter)
        assert aiter[0].checks[0].path.endswith("scaled_mm/aiter.py") and aiter[0].checks[0].line == 235
        accepted = rocm.considered[-1].accepted
        assert accepted is not None
        # scaled_mm/rocm.py:107, ROCmFP8ScaledMMLinearKernel.can_implement: per-tensor scales on both sides
        assert (accepted.path.rsplit("/", 1)[-1], accepted.line) == ("rocm.py", 107)
        assert _source_line("0.32.0", accepted.path, accepted.line).strip() == "return True, None"
    h100 = _outcome(support, "fp8-tensor", "9.0")
    assert (h100.verdict, h100.kernel) == ("conditional", "PerTensorTorchFP8ScaledMMLinearKernel")
    cutlass = next(v for v in h100.considered if v.kernel == "CutlassFP8ScaledMMLinearKernel")
    assert "cutlass_scaled_mm_supports_fp8" in cutlass.checks[0].why
    lists = {e.name: e for e in extract_kernel_lists(release_tree("0.32.0")).entries}
    assert lists["_POSSIBLE_FP8_KERNELS[ROCM]"].kernels[3] == "ROCmFP8ScaledMMLinearKernel"
    assert lists["_POSSIBLE_FP8_KERNELS"].kernels[0] == "FlashInferFP8ScaledMMLinearKernel"  # the CUDA member


def test_gptq_w4a16_on_mi300x_at_v0_32_0_is_triton_w4a16_after_both_rdna_kernels_refuse_gfx942() -> None:
    outcome = _outcome(_support("0.32.0"), "gptq-w4a16", "9.4", platform="rocm")
    assert (outcome.verdict, outcome.kernel) == ("yes", "TritonW4A16LinearKernel")
    rdna3, hybrid, triton = outcome.considered
    # mixed_precision/rdna3_w4a16.py:41-42 `if not on_gfx1100()`; rdna_hybrid_w4a16.py:544-545 `if not _on_gfx1x()`
    assert rdna3.verdict == "no" and rdna3.checks[0].line == 42
    assert "requires gfx1100" in _source_line("0.32.0", rdna3.checks[0].path, rdna3.checks[0].line)
    assert hybrid.verdict == "no" and "only targets gfx11/gfx12" in hybrid.checks[0].why
    # mixed_precision/triton_w4a16.py:357, the last return of can_implement
    assert triton.accepted is not None and triton.accepted.path.endswith("triton_w4a16.py")
    assert triton.accepted.line == 357
    assert outcome.runner_up is not None and outcome.runner_up.kernel == "ConchLinearKernel"


def test_fp8_moe_on_mi300x_at_v0_32_0_is_triton_experts_after_aiter_refuses_with_vllm_rocm_use_aiter_unset() -> None:
    for parallel in ("tp", "ep8"):
        outcome = _moe(_support("0.32.0"), "fp8-tensor", "9.4", parallel, platform="rocm")
        assert (outcome.verdict, outcome.backend, outcome.experts) == ("yes", "TRITON", "TritonExperts")
        # oracle/fp8.py _get_priority_backends: AITER first; experts/rocm_aiter_moe.py:469-474 names the env var
        assert outcome.order[0] == "AITER"
        aiter = outcome.considered[0]
        assert aiter.kernel == "AITER: AiterExperts" and aiter.verdict == "no"
        assert "set VLLM_ROCM_USE_AITER=1" in aiter.checks[0].why and aiter.checks[0].line == 475
        # utils/deep_gemm.py:115 current_platform.support_deep_gemm(): RocmPlatform inherits interface.py:1368's False
        deep_gemm = next(v for v in outcome.considered if v.kernel.startswith("DEEPGEMM"))
        assert deep_gemm.verdict == "no"
        # experts/triton_moe.py:91, TritonExperts.is_supported_config's `return True, None`
        accepted = outcome.considered[-1].accepted
        assert accepted is not None
        assert _source_line("0.32.0", accepted.path, accepted.line).strip() == "return True, None"


def test_the_fp8_quant_keys_hold_fnuz_on_gfx942_and_e4m3fn_on_gfx950_as_rocm_fp8_dtype_answers() -> None:
    # quant_utils.py FP8_DTYPE = current_platform.fp8_dtype(); is_fp8_fnuz is `"gfx94" in ...`: of _GCN_ARCH at
    # v0.32.0 (platforms/rocm.py:1188-1190), of torch.cuda.get_device_properties(0).gcnArchName at v0.14.0 (:525-527)
    for version in ("0.14.0", "0.32.0"):
        modules = Modules(release_tree(version))
        dtypes = {
            cap: Constants(modules, Shared(), "rocm", cap).keys["kFp8StaticTensorSym"].attrs["dtype"]
            for cap in (Cap(9, 4), Cap(9, 5))
        }
        assert dtypes[Cap(9, 4)] == "float8_e4m3fnuz" and dtypes[Cap(9, 5)] == "float8_e4m3fn"
        assert Constants(modules, Shared()).keys["kFp8StaticTensorSym"].attrs["dtype"] == "float8_e4m3fn"


def test_the_rocm_members_show_in_diff_tags_as_their_own_kernels_entries_from_v0_17_0_to_v0_33_0() -> None:
    # v0.17.0 linear/__init__.py:137 ROCM: [ConchLinearKernel, ExllamaLinearKernel]; v0.33.0 :549 puts the RDNA and
    # Triton W4A16 kernels ahead, and the FP8 list (:468) the three AITER kernels ahead of ROCmFP8ScaledMMLinearKernel
    old, new = (extract_kernel_lists(release_tree(v)).entries for v in ("0.17.0", "0.33.0"))
    diff = diff_kind(list(old), list(new), "kernels")
    changed = {c.name: c.changes["kernels"] for c in diff.changed}
    assert changed["_POSSIBLE_KERNELS[ROCM]"].before == ["ConchLinearKernel", "ExllamaLinearKernel"]
    assert changed["_POSSIBLE_KERNELS[ROCM]"].after[:3] == [
        "RDNA3W4A16LinearKernel",
        "RDNAHybridW4A16LinearKernel",
        "TritonW4A16LinearKernel",
    ]
    assert changed["_POSSIBLE_FP8_KERNELS[ROCM]"].after[3] == "ROCmFP8ScaledMMLinearKernel"
    assert "_POSSIBLE_FP8_BLOCK_KERNELS[ROCM]" in {a.name for a in diff.added}
