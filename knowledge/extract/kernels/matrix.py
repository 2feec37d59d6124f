"""The linear kernels of one tag: the CUDA and ROCm candidate lists in priority order, the `--linear-backend` map,
and per scheme, platform and GPU capability the kernel vLLM's chooser picks, with every candidate it rejected and why.

Two layouts: `vllm/model_executor/kernels/linear/__init__.py` (v0.17.0 on, one module holding every list
keyed by platform) and `vllm/model_executor/layers/quantization/kernels/{mixed_precision,scaled_mm}`
(v0.6 to v0.14: a mixed-precision list and the int8 scaled-mm list). Releases with neither keep no lists.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, TypeVar, cast

import tree_sitter

from vllm_quant_mcp.knowledge.extract.attention.select import CUDA_GRID, ROCM_GRID
from vllm_quant_mcp.knowledge.extract.engine import Cap, ClassRef, Member, Modules, Scope, Shared, class_ref
from vllm_quant_mcp.knowledge.extract.engine.syntax import line, text
from vllm_quant_mcp.knowledge.extract.env_vars import extract_env_vars
from vllm_quant_mcp.knowledge.extract.kernels.constants import Constants
from vllm_quant_mcp.knowledge.extract.kernels.moe import ASSUMED as MOE_ASSUMED
from vllm_quant_mcp.knowledge.extract.kernels.moe import MOE_SCHEMES, ORACLE, PARALLEL, MoeSelector, oracle_select
from vllm_quant_mcp.knowledge.extract.kernels.schemes import SCHEMES
from vllm_quant_mcp.knowledge.extract.kernels.select import KernelSelector
from vllm_quant_mcp.knowledge.extract.result import Extracted, per_tree
from vllm_quant_mcp.knowledge.registry.kernels import (
    KernelList,
    KernelOutcome,
    KernelSelection,
    KernelSupport,
    LinearBackend,
    MoeOutcome,
    MoeSelection,
)
from vllm_quant_mcp.knowledge.sources.tree import SourceTree

__all__ = ["LINEAR", "extract_kernel_lists", "extract_kernels"]

_Outcome = TypeVar("_Outcome", bound=KernelOutcome | MoeOutcome)
_Selection = TypeVar("_Selection", bound=KernelSelection | MoeSelection)

LINEAR = "vllm/model_executor/kernels/linear/__init__.py"
_OLD = "vllm/model_executor/layers/quantization/kernels"
# list name as this package knows it -> where older releases keep it, and under which name
_OLD_LISTS = {
    "_POSSIBLE_KERNELS": (f"{_OLD}/mixed_precision/__init__.py", "_POSSIBLE_KERNELS"),
    "_POSSIBLE_INT8_KERNELS": (f"{_OLD}/scaled_mm/__init__.py", "_POSSIBLE_KERNELS"),
}
BACKEND_MAP = "_LINEAR_BACKEND_KERNEL_MAP"
ASSUMED = (
    "CUDA, and ROCm on MI300X (gfx942, 9.4) and MI355X (gfx950, 9.5); a 4096 x 4096 linear layer at tensor parallel"
    " 1 with bfloat16 activations; VLLM_DISABLED_KERNELS unset and every other VLLM_* at its envs.py default (on "
    "ROCm, VLLM_ROCM_USE_AITER and VLLM_ROCM_USE_SKINNY_GEMM as the release defaults them); --linear-backend auto "
    "unless an outcome says otherwise; an optional package a kernel probes for (humming, flashinfer, deep_gemm, "
    "conch) installed, stated per kernel as a condition"
)


def extract_kernels(tree: SourceTree) -> Extracted[KernelSupport]:
    """The `kernel_support` field: the selections, per scheme and GPU."""
    found = _derived(tree)
    return Extracted(found.entries[1], note=found.note, warnings=found.warnings)


def extract_kernel_lists(tree: SourceTree) -> Extracted[list[KernelList]]:
    """The `kernels` kind: the CUDA lists (and ROCm members, `name[ROCM]`) in priority order, so that diff_tags shows
    a reordering."""
    found = _derived(tree)
    return Extracted(found.entries[0], note=found.note, warnings=found.warnings)


@per_tree
def _derived(tree: SourceTree) -> Extracted[tuple[list[KernelList], KernelSupport]]:
    locations = _locations(tree)
    if not locations:
        return Extracted(
            ([], KernelSupport()),
            note=f"Neither {LINEAR} nor {_OLD}/ is in this release: its linear kernels are chosen inside each "
            "quantization method, with no candidate lists to replay.",
        )
    modules = Modules(tree)
    env = {e.name: e.default for e in extract_env_vars(tree).entries}
    humming = tree.exists(LINEAR) and "prioritize_humming(" in tree.read_text(LINEAR)
    cuda = KernelSelector(modules, Constants(modules, Shared()), env, humming)
    lists = _lists(tree, locations, cuda)
    backends = _backend_map(tree, modules, cuda)
    covers = {b.name: b.kernels for b in backends}
    selections = _selections(lists, cuda, covers, CUDA_GRID)
    moe = _moe(tree, MoeSelector(cuda, cuda.constants), CUDA_GRID)
    shown = [entry for entry, _ in lists.values()]
    # ROCm: one selector per GPU, as the FP8 constants hold the dtype that GPU's fp8_dtype() answers
    for cap in ROCM_GRID:
        constants = Constants(modules, Shared(), "rocm", cap)
        rocm = KernelSelector(modules, constants, env, humming, "rocm")
        on_rocm = _lists(tree, locations, rocm)
        shown += [e for name, (e, _) in on_rocm.items() if cap == ROCM_GRID[0] and e.name != name]
        selections = _merged(selections, _selections(on_rocm, rocm, covers, (cap,)))
        moe = _merged(moe, _moe(tree, MoeSelector(rocm, constants), (cap,)))
    support = KernelSupport(
        assumptions=[ASSUMED],
        backends=backends,
        selections=selections,
        moe_assumptions=[MOE_ASSUMED] if tree.exists(f"{ORACLE}/__init__.py") else [],
        moe=moe,
    )
    return Extracted((shown, support))


def _lists(
    tree: SourceTree, locations: dict[str, tuple[str, str]], selector: KernelSelector
) -> dict[str, tuple[KernelList, list[ClassRef]]]:
    """Each list by the name the schemes know it, as its platform's member (a dict keyed by PlatformEnum) or whole
    (an older list every platform walks); a member other than CUDA's is named `name[ROCM]`, so the kind keeps them
    apart."""
    it = selector.interpreter(None)
    member = selector.platform.upper()
    lists: dict[str, tuple[KernelList, list[ClassRef]]] = {}
    for name, (path, variable) in locations.items():
        index = selector.modules.index(path)
        node = index.assignment(variable) if index is not None else None
        if node is None:
            continue
        value, _ = it.evaluate(node, Scope(path))
        shown, at = name, line(node)
        if isinstance(value, dict):
            value = next((v for k, v in value.items() if isinstance(k, Member) and k.name == member), [])
            shown = name if member == "CUDA" else f"{name}[{member}]"
            at = _member_line(node, member) or at
        refs = [ref for ref in (class_ref(v) for v in value) if ref is not None] if isinstance(value, list) else []
        entry = KernelList(name=shown, provenance=tree.provenance(path, at), kernels=[r.name for r in refs])
        lists[name] = (entry, refs)
    selector.paths = {ref.path for _, refs in lists.values() for ref in refs}
    return lists


def _member_line(dictionary: tree_sitter.Node, member: str) -> int | None:
    """The line of the `PlatformEnum.<member>: [...]` pair: the list walked on that platform, not the dict's start."""
    for pair in (c for c in dictionary.named_children if c.type == "pair"):
        key = pair.child_by_field_name("key")
        if key is not None and text(key).rsplit(".", 1)[-1] == member:
            return line(pair)
    return None


def _selections(
    lists: dict[str, tuple[KernelList, list[ClassRef]]],
    selector: KernelSelector,
    covers: dict[str, list[str]],
    grid: tuple[Cap, ...],
) -> list[KernelSelection]:
    """Per scheme whose list this release has, the kernel picked per GPU of the grid and --linear-backend value."""
    selections: list[KernelSelection] = []
    for scheme in SCHEMES:
        found = next((lists[n] for n in scheme.lists if n in lists), None)
        config = scheme.config(selector.constants)
        if found is None or config is None:
            continue
        entry, refs = found
        walked: list[KernelOutcome] = []
        for backend in ["auto", *(b for b, kernels in covers.items() if set(kernels) & set(entry.kernels))]:
            for cap in grid:
                walked.append(
                    selector.select(scheme.name, entry.name, refs, config, cap, backend, set(covers.get(backend, [])))
                )
        outcomes = _grouped(walked)
        selections.append(
            KernelSelection(
                name=scheme.name,
                provenance=entry.provenance,
                scheme=scheme.words,
                weight_only=scheme.weight_only,
                outcomes=outcomes,
            )
        )
    return selections


def _moe(tree: SourceTree, selector: MoeSelector, grid: tuple[Cap, ...]) -> list[MoeSelection]:
    """Per MoE scheme whose oracle this release has, the backend picked per GPU and parallel layout."""
    found: list[MoeSelection] = []
    for scheme in MOE_SCHEMES:
        path = f"{ORACLE}/{scheme.oracle}.py"
        index = selector.modules.index(path)
        select = oracle_select(index.functions) if index else None
        if select is None:
            continue
        walked = [selector.select(scheme, parallel, cap) for parallel in PARALLEL for cap in grid]
        values = selector.forced_values(scheme)
        walked += [selector.forced(scheme, value, cap) for value in values for cap in grid]
        outcomes = _grouped(o for o in walked if o is not None)
        if outcomes:
            at = tree.provenance(path, line(select))
            found.append(
                MoeSelection(
                    name=scheme.name, provenance=at, scheme=scheme.words, outcomes=outcomes, forced=values,
                    unmapped=selector.unmapped(scheme) if values else None,
                )
            )  # fmt: skip
    return found


def _merged(found: list[_Selection], more: list[_Selection]) -> list[_Selection]:
    """Selections of another walk (platform or GPU) added to those of the same scheme, outcome by outcome."""
    by_name = {s.name: s for s in found}
    for selection in more:
        earlier: _Selection | None = by_name.get(selection.name)
        if earlier is None:
            by_name[selection.name] = selection
            continue
        outcomes: list[Any] = _grouped([*earlier.outcomes, *selection.outcomes])
        by_name[selection.name] = cast(_Selection, earlier.model_copy(update={"outcomes": outcomes}))
    return list(by_name.values())


def _locations(tree: SourceTree) -> dict[str, tuple[str, str]]:
    if tree.exists(LINEAR):
        index_text = tree.read_text(LINEAR)
        names = sorted({w for w in index_text.split() if w.startswith("_POSSIBLE_") and w.endswith("_KERNELS:")})
        return {n.rstrip(":"): (LINEAR, n.rstrip(":")) for n in names}
    return {name: spot for name, spot in _OLD_LISTS.items() if tree.exists(spot[0])}


def _backend_map(tree: SourceTree, modules: Modules, selector: KernelSelector) -> list[LinearBackend]:
    """`_LINEAR_BACKEND_KERNEL_MAP`: each --linear-backend value and the kernel classes it covers."""
    index = modules.index(LINEAR)
    node = index.assignment(BACKEND_MAP) if index is not None else None
    if node is None:
        return []
    value, _ = selector.interpreter(None).evaluate(node, Scope(LINEAR))
    at = tree.provenance(LINEAR, line(node))
    backends: list[LinearBackend] = []
    for key, kernels in value.items() if isinstance(value, dict) else []:
        refs = [class_ref(k) for k in kernels] if isinstance(kernels, set | list) else []
        if isinstance(key, str):
            backends.append(
                LinearBackend(name=key, provenance=at, kernels=sorted(r.name for r in refs if r is not None))
            )
    return backends


def _grouped(outcomes: Iterable[_Outcome]) -> list[_Outcome]:
    """GPUs that meet the same outcome (same backend, same walk) share one entry, where the first of them stood.
    Each outcome is keyed once: keying every earlier one again per outcome made 10,886 dumps a release."""
    groups: dict[str, _Outcome] = {}
    for outcome in outcomes:
        key = _key(outcome)
        first: _Outcome | None = groups.get(key)
        if first is None:
            groups[key] = outcome
        else:
            merged = first.model_copy(update={"capabilities": [*first.capabilities, *outcome.capabilities]})
            groups[key] = cast(_Outcome, merged)  # model_copy keeps the class; mypy reads the bound's union
    return list(groups.values())


def _key(outcome: KernelOutcome | MoeOutcome) -> str:
    return str(outcome.model_dump_json(exclude={"capabilities"}))
