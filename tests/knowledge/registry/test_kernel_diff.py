"""Kernel picks compared between real releases: what a scheme gets on a GPU that changed, each side cited at its tag.

The registries are the bundled ones (derived from the releases); the lines each side cites are read back
from the real release trees, so the test holds the diff to vLLM's source, not to our copy of it.
"""

from __future__ import annotations

import pytest
from support.releases import release_tree

from vllm_quant_mcp.knowledge.extract.kernels.matrix import extract_kernels
from vllm_quant_mcp.knowledge.registry.kernel_diff import KernelChange, diff_kernel_support
from vllm_quant_mcp.knowledge.registry.matrix import Check
from vllm_quant_mcp.knowledge.registry.model import Registry
from vllm_quant_mcp.knowledge.registry.store import Store


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    return Store(tmp_path_factory.mktemp("store"))


def _picks(store: Store, old: str, new: str) -> list[KernelChange]:
    return diff_kernel_support(store.load_registry(old).kernel_support, store.load_registry(new).kernel_support)


def _line(version: str, check: Check) -> str:
    return release_tree(version).read_text(check.path).splitlines()[check.line - 1]


def test_gptq_w4a16_on_sm90_keeps_machete_from_v0_31_0_to_v0_32_0_while_humming_moves_ahead_of_marlin_behind_it(
    store: Store,
) -> None:
    (change,) = [c for c in _picks(store, "v0.31.0", "v0.32.0") if (c.layer, c.scheme) == ("linear", "gptq-w4a16")]
    assert (change.backend, change.capabilities) == ("auto", ["9.0"])
    before, after = change.before, change.after
    assert before is not None and after is not None
    assert (before.verdict, before.kernel, before.runner_up) == ("yes", "MacheteLinearKernel", "MarlinLinearKernel")
    assert (after.verdict, after.kernel, after.runner_up) == ("yes", "MacheteLinearKernel", "HummingLinearKernel")
    # v0.31.0 walks the list as written; v0.32.0 reorders it first (priority.py's rule, SM 9.0 preferred). The list
    # cited is the CUDA member of _POSSIBLE_KERNELS, at its own line.
    (walked,) = before.decided_by
    assert _line("0.31.0", walked).strip() == "PlatformEnum.CUDA: ["
    rule, listed = after.decided_by
    assert _line("0.32.0", rule) == "def prioritize_humming("
    assert "_HUMMING_PREFERRED_CAPABILITIES = frozenset({90})" in release_tree("0.32.0").read_text(rule.path)
    assert _line("0.32.0", listed).strip() == "PlatformEnum.CUDA: ["
    assert "_POSSIBLE_KERNELS: dict[" in _line("0.32.0", listed.model_copy(update={"line": listed.line - 1}))
    assert "prioritize_humming" not in release_tree("0.31.0").read_text(walked.path)


def test_a_backend_value_is_not_reported_changed_by_a_reorder_it_narrows_away(store: Store) -> None:
    """--linear-backend marlin narrows the list to Marlin's kernels, so Humming moving ahead of Marlin changes
    nothing under it, though the walk on SM 9.0 records the reorder."""
    changes = _picks(store, "v0.31.0", "v0.32.0")
    assert not [c for c in changes if c.scheme == "gptq-w4a16" and c.backend == "marlin"]
    outcomes = next(s for s in store.load_registry("v0.32.0").kernel_support.selections if s.name == "gptq-w4a16")
    assert any(o.linear_backend == "marlin" and o.reordered is not None for o in outcomes.outcomes)


def test_a_moe_backend_value_new_at_the_target_has_no_before(store: Store) -> None:
    # one change per reason the GPUs give (B200 refuses the parallel config, the others the device)
    found = [
        c
        for c in _picks(store, "v0.31.0", "v0.32.0")
        if c.backend == "flashinfer_moe_ep_cutedsl" and c.platform == "cuda"
    ]
    assert found and {(c.layer, c.scheme, c.parallel, c.before) for c in found} == {("moe", "nvfp4", "tp", None)}
    assert {c.after.kernel for c in found if c.after is not None} == {"FLASHINFER_MOE_EP_CUTEDSL"}
    assert sorted(cap for c in found for cap in c.capabilities) == sorted(
        ["8.0", "8.9", "9.0", "10.0", "10.3", "12.0", "12.1"]
    )


def test_the_rocm_walk_of_a_moe_backend_value_new_at_v0_32_0_is_its_own_change_refused_on_mi300x_and_mi355x() -> None:
    old, new = (extract_kernels(release_tree(v)).entries for v in ("0.31.0", "0.32.0"))
    (rocm,) = [c for c in diff_kernel_support(old, new) if c.platform == "rocm"]
    assert (rocm.layer, rocm.scheme, rocm.backend, rocm.capabilities, rocm.before) == (
        "moe", "nvfp4", "flashinfer_moe_ep_cutedsl", ["9.4", "9.5"], None,
    )  # fmt: skip
    # v0.32.0 fused_moe/flashinfer_moe_ep.py:43-47 supports_current_device: capability (9, 4) / (9, 5) is not in
    # _SUPPORTED_CAPABILITIES, so FlashInferMoeEpExperts.is_supported_config (experts/flashinfer_moe_ep.py) refuses
    assert rocm.after is not None and (rocm.after.verdict, rocm.after.kernel) == ("no", "FLASHINFER_MOE_EP_CUTEDSL")
    refused = rocm.after.decided_by[1]
    assert refused.path.endswith("flashinfer_moe_ep.py") and "does not support current device" in refused.why


def test_a_hop_whose_walks_pick_the_same_kernels_reports_no_kernel_change_though_their_lines_moved(
    store: Store,
) -> None:
    old, new = store.load_registry("v0.25.1"), store.load_registry("v0.26.0")
    assert diff_kernel_support(old.kernel_support, new.kernel_support) == []
    assert _lines(old) != _lines(new)  # the lists and checks moved: lines alone are no change


def _lines(registry: Registry) -> list[int]:
    return [s.provenance.line for s in registry.kernel_support.selections]
