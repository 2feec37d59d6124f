"""The attention support matrix of one tag: per backend its lists and capability rule, and per KV dtype, mode and
GPU capability the backend vLLM's selector picks, or why none.

Read from the source the selector itself runs (vllm/platforms/cuda.py `_get_backend_priorities`,
each backend's `supports_*` classmethods) through the three-valued interpreter, for a grid of
compute capabilities and three model shapes (dense, MLA, sparse MLA), with the defaults a plain
`vllm serve` has: bfloat16, no sinks, no multimodal prefix, VLLM_* variables unset.
ROCm selectors before v0.18.0 never validate a backend's lists, so no ROCm answer is derived there.
"""

from __future__ import annotations

from typing import Any

from vllm_quant_mcp.knowledge.extract.attention.select import ASSUMED, CUDA_GRID, REGISTRY, ROCM_GRID, Selector
from vllm_quant_mcp.knowledge.extract.engine import Cap, ClassRef, Modules, Unknown
from vllm_quant_mcp.knowledge.extract.engine.syntax import NotLiteral, line, literal, matches, text
from vllm_quant_mcp.knowledge.extract.env_vars import extract_env_vars
from vllm_quant_mcp.knowledge.extract.kv_cache import extract_kv_cache_dtypes
from vllm_quant_mcp.knowledge.extract.result import Extracted
from vllm_quant_mcp.knowledge.registry.matrix import (
    AttentionBackendInfo,
    AttentionSupport,
    KvSelection,
    Mode,
)
from vllm_quant_mcp.knowledge.sources.tree import SourceTree

__all__ = ["REGISTRY", "extract_attention"]

PLATFORMS = {
    "cuda": "vllm/platforms/cuda.py",
    "rocm": "vllm/platforms/rocm.py",
    "cpu": "vllm/platforms/cpu.py",
    "xpu": "vllm/platforms/xpu.py",
}
MODES: tuple[Mode, ...] = ("dense", "mla", "sparse_mla")


def extract_attention(tree: SourceTree) -> Extracted[AttentionSupport]:
    if not tree.exists(REGISTRY):
        return Extracted(AttentionSupport(), note=f"{REGISTRY} is not in this release; no support matrix derived.")
    modules = Modules(tree)
    members = _members(tree, modules)
    platforms = _platform_refs(tree)
    env = {e.name: e.default for e in extract_env_vars(tree).entries}
    kv_dtypes = [k.name for k in extract_kv_cache_dtypes(tree).entries]
    classes = {name: ref for name, (_, ref, _) in members.items() if ref is not None}
    warnings: list[str] = []
    selector = Selector(tree, modules, "cuda", classes, env)
    on_rocm = Selector(tree, modules, "rocm", classes, env, constructors=selector.constructors)
    backends = [
        _backend_info(
            tree,
            modules,
            on_rocm if platforms.get(name) == {"rocm"} else selector,
            name,
            path_line,
            ref,
            platforms,
            note,
        )
        for name, (path_line, ref, note) in members.items()
    ]
    cuda = _selections(tree, modules, selector, kv_dtypes, CUDA_GRID, warnings)
    rocm: list[KvSelection] = []
    if _rocm_validates(modules):
        rocm = _selections(tree, modules, on_rocm, kv_dtypes, ROCM_GRID, warnings)
    else:
        warnings.append("The ROCm selector of this release never checks a backend's KV dtypes; no ROCm answers.")
    support = AttentionSupport(assumptions=[ASSUMED], backends=backends, cuda=cuda, rocm=rocm)
    return Extracted(support, warnings=warnings)


def _members(tree: SourceTree, modules: Modules) -> dict[str, tuple[int, ClassRef | None, str | None]]:
    """Enum member -> (its line, the class it names, a note when the class is not plain source)."""
    found: dict[str, tuple[int, ClassRef | None, str | None]] = {}
    for captures in matches("attention/registry", tree.parse(REGISTRY).root_node):
        if "member.name" not in captures:
            continue
        name = text(captures["member.name"][0])
        node = captures["member.path"][0]
        try:
            dotted = literal(node)
        except NotLiteral:
            dotted = None
        ref, note = None, None
        if isinstance(dotted, str) and "." in dotted:
            module, _, cls = dotted.rpartition(".")
            path = modules.module_path(module, REGISTRY)
            ref = modules.find_class(cls, path) if path is not None else None
            if ref is None:
                note = f"{dotted} is not a class in this release's Python source (built by a factory, or absent)."
        else:
            note = "a placeholder member with no backend class"
        found.setdefault(name, (line(captures["member.name"][0]), ref, note))
    return found


def _platform_refs(tree: SourceTree) -> dict[str, set[str]]:
    """Backend name -> the platforms whose selector file names it."""
    named: dict[str, set[str]] = {}
    for platform, path in PLATFORMS.items():
        if not tree.exists(path):
            continue
        for captures in matches("attention/registry", tree.parse(path).root_node):
            if "ref.member" in captures:
                named.setdefault(text(captures["ref.member"][0]), set()).add(platform)
    return named


def _backend_info(
    tree: SourceTree,
    modules: Modules,
    selector: Selector,
    name: str,
    enum_line: int,
    ref: ClassRef | None,
    platforms: dict[str, set[str]],
    note: str | None,
) -> AttentionBackendInfo:
    info: dict[str, Any] = {
        "name": name,
        "provenance": tree.provenance(REGISTRY, enum_line),
        "platforms": sorted(platforms.get(name, ())),
        "note": note,
    }
    if ref is None:
        return AttentionBackendInfo(**info)
    grid = ROCM_GRID if selector.platform == "rocm" else CUDA_GRID
    plain = selector.interpreter(grid[0])
    kv = plain.class_attribute(ref, "supported_kv_cache_dtypes")
    where = _attribute_line(modules, ref, "supported_kv_cache_dtypes")
    heads = plain.call_method(ref, "get_supported_head_sizes")
    yes, maybe = [], []
    for cap in grid:
        verdict = selector.interpreter(cap).call_method(ref, "supports_compute_capability", capability=cap)
        if isinstance(verdict, Unknown):
            maybe.append(str(cap))
        elif verdict:
            yes.append(str(cap))
    return AttentionBackendInfo(
        **info,
        class_name=ref.name,
        class_provenance=tree.provenance(ref.path, line(ref.node)),
        mla=_flag(plain.call_method(ref, "is_mla")),
        sparse=_flag(plain.call_method(ref, "is_sparse")),
        kv_cache_dtypes=[k for k in kv if isinstance(k, str)] if isinstance(kv, list | tuple) else None,
        kv_provenance=tree.provenance(*where) if where is not None else None,
        head_sizes=heads if isinstance(heads, list) and heads and all(type(h) is int for h in heads) else None,
        capabilities=yes,
        conditional_capabilities=maybe,
    )


def _flag(value: object) -> bool | None:
    return value if isinstance(value, bool) else None


def _attribute_line(modules: Modules, ref: ClassRef, attr: str) -> tuple[str, int] | None:
    """Where a class attribute is assigned, following the bases as Python would."""
    todo, seen = [ref], 0
    while todo and seen < 12:
        current, seen = todo.pop(0), seen + 1
        body = current.node.child_by_field_name("body")
        for child in body.named_children if body is not None else []:
            stmt = child.named_children[0] if child.type == "expression_statement" and child.named_children else None
            left = stmt.child_by_field_name("left") if stmt is not None and stmt.type == "assignment" else None
            if stmt is not None and left is not None and text(left) == attr:
                return current.path, line(stmt)
        todo = modules.bases(current) + todo
    return None


def _rocm_validates(modules: Modules) -> bool:
    index = modules.index(PLATFORMS["rocm"])
    return index is not None and "_get_backend_priorities" in index.functions


def _selections(
    tree: SourceTree,
    modules: Modules,
    selector: Selector,
    kv_dtypes: list[str],
    grid: tuple[Cap, ...],
    warnings: list[str],
) -> list[KvSelection]:
    platform = selector.platform
    path = PLATFORMS[platform]
    index = modules.index(path)
    if index is None or "_get_backend_priorities" not in index.functions:
        warnings.append(f"{path} has no _get_backend_priorities at this tag; no {platform} selection derived.")
        return []
    where = tree.provenance(path, line(index.functions["_get_backend_priorities"]))
    out = []
    for mode in MODES:
        for kv in kv_dtypes:
            outcomes = selector.outcomes(mode, kv, grid)
            out.append(
                KvSelection(
                    name=f"{mode}:{kv}",
                    provenance=where,
                    platform="cuda" if platform == "cuda" else "rocm",
                    mode=mode,
                    kv_cache_dtype=kv,
                    outcomes=outcomes,
                )
            )
    return out
