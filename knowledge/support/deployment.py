"""A KV-dtype verdict for one deployment: the matrix's cell for the model's shape, then what the shape changes.

The matrix answers for its shape (dense head 128, MLA head 576, bfloat16, no sinks, default
attention config). Where the deployment differs, the difference is either settled from what the
registry holds (the selected backend's literal head-size list excludes the model's head size: vLLM
passes it over, so the cell's `yes` becomes `conditional`; a forced `--attention-backend` takes
that backend's own verdict from the cell) or named in `assumptions` as what the answer did not
read. Never silently: the judgement's `model` says which shape it is for. Last, an observation of the
real wheel on that GPU decides, where one was made for this input (knowledge/support/observed.py).
"""

from __future__ import annotations

from vllm_quant_mcp.knowledge.facts.kinds import Gpu
from vllm_quant_mcp.knowledge.facts.knowledge_base import KnowledgeBase
from vllm_quant_mcp.knowledge.registry.model import Registry

from .curated import kv_judgement
from .judgement import Judgement
from .observed import RegistryAt, with_observations
from .shape import DEFAULT_HEAD_SIZE, AttentionShape

__all__ = ["kv_for_deployment"]


def kv_for_deployment(
    kb: KnowledgeBase, registry: Registry, kv: str, gpu: Gpu, shape: AttentionShape, at: RegistryAt
) -> Judgement | None:
    """The verdict on `kv` for this model shape and these flags on `gpu`: observed where a run decides it, else the
    source's, else the knowledge base's; `at` loads another tag's registry (to carry an observation made there)."""
    judged = kv_judgement(kb, registry, kv, gpu, shape.mode)
    if judged is None:
        return None
    judged = judged.model_copy(update={"model": shape.describe()})
    if judged.basis != "source":
        return judged
    judged = _beyond_matrix(_forced_backend(judged, registry, gpu, shape), registry, shape)
    return with_observations(kb, judged, shape, gpu, registry, at)


def _forced_backend(judged: Judgement, registry: Registry, gpu: Gpu, shape: AttentionShape) -> Judgement:
    """`--attention-backend X`: vLLM validates X alone instead of walking the priority list."""
    forced = shape.flags.get("--attention-backend")
    if forced is None:
        return judged
    name = forced.upper()
    info = next((b for b in registry.attention.backends if b.name == name), None)
    if info is None:
        known = ", ".join(b.name for b in registry.attention.backends)
        return judged.model_copy(
            update={
                "verdict": "no",
                "via": None,
                "why": f"--attention-backend {forced} is not an AttentionBackendEnum member at {registry.tag}; "
                f"members: {known}.",
            }
        )
    kv = judged.subject.removeprefix("--kv-cache-dtype ")
    note = f"--attention-backend {name} forces the backend: the priority list is not walked."
    if info.kv_cache_dtypes is not None and kv != "auto" and kv not in info.kv_cache_dtypes:
        where = info.kv_provenance.permalink if info.kv_provenance else info.provenance.permalink
        return judged.model_copy(
            update={
                "verdict": "no",
                "via": None,
                "why": f"{note} {name}'s supported_kv_cache_dtypes ({', '.join(info.kv_cache_dtypes)}) exclude {kv} "
                f"at {registry.tag} ({where}): vLLM refuses it at selection.",
            }
        )
    if judged.via is not None and name in judged.via.split(" or "):
        return judged.model_copy(update={"assumptions": [*judged.assumptions, note]})
    return judged.model_copy(
        update={
            "verdict": "conditional",
            "via": name,
            "why": f"{note} {name} lists {kv} (or no KV list); its capability and shape checks on {gpu.id} were not "
            f"derived for a forced choice. The default selection: {judged.why}",
        }
    )


def _beyond_matrix(judged: Judgement, registry: Registry, shape: AttentionShape) -> Judgement:
    """Where the deployment leaves the matrix's shape: settle what the registry holds, name the rest."""
    notes: list[str] = []
    verdict, why = judged.verdict, judged.why
    derived = DEFAULT_HEAD_SIZE[shape.mode]
    backend = judged.via.split(" or ")[-1] if judged.via else None
    info = next((b for b in registry.attention.backends if b.name == backend), None) if backend else None
    if shape.head_size != derived:
        sizes = info.head_sizes if info is not None else None
        if sizes is not None and shape.head_size not in sizes and verdict == "yes":
            verdict = "conditional"
            why += (
                f" But the model's head size is {shape.head_size} and {backend} supports only "
                f"{', '.join(map(str, sizes))} (get_supported_head_sizes): vLLM passes it over for the next backend "
                f"in priority order, which the matrix (derived for head size {derived}) did not walk."
            )
        else:
            listed = (
                f"{backend} lists it" if sizes is not None else f"{backend or 'the backend'} states no literal list"
            )
            notes.append(f"the matrix was derived for head size {derived}; the model's is {shape.head_size} ({listed})")
    if shape.sinks and verdict == "yes":
        verdict = "conditional"
        why += (
            f" The model uses attention sinks; the selector asks each backend supports_sink(), which the matrix "
            f"(derived without sinks) did not: {backend} must accept sinks."
        )
    if shape.dtype != "bfloat16":
        notes.append(f"the matrix was derived for a bfloat16 model; this one runs {shape.dtype}")
    for flag in ("--block-size", "--attention-config"):
        if flag in shape.flags:
            notes.append(f"{flag} {shape.flags[flag]} reaches the selector; the matrix took the default")
    if shape.sliding_window:
        notes.append(f"sliding window {shape.sliding_window}: the selector's shape checks were derived without one")
    if shape.hybrid:
        notes.append("linear-attention layers: vLLM aligns the attention block size to their state, not derived")
    return judged.model_copy(update={"verdict": verdict, "why": why, "assumptions": [*judged.assumptions, *notes]})
