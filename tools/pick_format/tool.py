"""`pick_format`: which quantization for this model on this GPU, ranked, at one vLLM tag.

Candidates come from the knowledge base's format rules for the GPU (the reference's
selection table) and its regime rules; every --quantization value, KV dtype and flag is
then checked against the registry of the tag, and the GPU's support classified:
native (tensor cores run the format), fallback (vLLM accepts it, min capability met, but
through a weight-only or emulated path) or unsupported. What the tag lacks, the GPU cannot
run or the memory cannot hold is listed under `excluded` with the reason.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from vllm_quant_mcp.knowledge.echo import clip
from vllm_quant_mcp.knowledge.errors import InvalidInputError
from vllm_quant_mcp.knowledge.facts.kinds import Affected, FormatRule, Gpu
from vllm_quant_mcp.knowledge.facts.knowledge_base import KnowledgeBase
from vllm_quant_mcp.knowledge.hub.client import is_repo_id, read_local
from vllm_quant_mcp.knowledge.hub.memory import KV_BYTES, Layers, WeightFamily
from vllm_quant_mcp.knowledge.hub.memory import estimate as estimate_memory
from vllm_quant_mcp.knowledge.hub.model_facts import ExplicitModel, ModelFacts, facts_from_files
from vllm_quant_mcp.knowledge.names import nearest
from vllm_quant_mcp.knowledge.registry.model import Registry
from vllm_quant_mcp.knowledge.support.architecture import architecture_judgement
from vllm_quant_mcp.knowledge.support.curated import dissent
from vllm_quant_mcp.knowledge.support.deployment import kv_for_deployment
from vllm_quant_mcp.knowledge.support.evaluate import load_refusals, method_support
from vllm_quant_mcp.knowledge.support.formats import ONLINE_FOR_FAMILY, classify, method_family
from vllm_quant_mcp.knowledge.support.judgement import Basis, Judgement
from vllm_quant_mcp.knowledge.support.kernels import kernel_judgements, kernel_support
from vllm_quant_mcp.knowledge.support.shape import shape_of
from vllm_quant_mcp.knowledge.support.utilization import Utilization, utilization_at
from vllm_quant_mcp.knowledge.tags import tag_key
from vllm_quant_mcp.tools.context import ToolContext

from .checks import checkpoint_sources, head_size_problem, serve_flags
from .models import (
    Caveat,
    CheckpointChoice,
    ExcludedOption,
    FormatOption,
    GpuSummary,
    Named,
    PickFormatQuery,
    PickFormatResult,
)
from .rules import (
    Priority,
    Situation,
    checkpoint_method,
    relevance,
)

__all__ = ["ContradictoryOptionsError", "LocalModelRefusedError", "ModelTooLargeError", "pick_format", "resolve_gpu"]

MAX_OPTIONS = 8
_SELECTION_ONLY = "vLLM's backend selection accepts it; the knowledge base records a failure past selection."


class ModelTooLargeError(InvalidInputError):
    """Even the most compact format the tag offers does not fit the weights on the GPUs given."""


class ContradictoryOptionsError(InvalidInputError):
    """Two arguments ask for things that cannot both hold."""


class LocalModelRefusedError(InvalidInputError):
    """A path given to a server that does not read its host's directories for its clients."""


@dataclass
class _Candidate:
    method: str
    family: WeightFamily
    kv: str
    rule: FormatRule
    relevance: int
    position: tuple[int, int]


def resolve_gpu(kb: KnowledgeBase, text: str) -> tuple[Gpu, list[str]]:
    found = kb.gpus_named(text)
    notes = []
    if len(found) > 1:
        notes.append(
            f"{clip(text)} matches {', '.join(g.id for g in found)}; figures use {found[0].id} "
            f"({found[0].memory_gb} GB). Name the GPU for its own memory size."
        )
    return found[0], notes


def load_model(model: str | ExplicitModel, ctx: ToolContext) -> tuple[ModelFacts, list[str]]:
    """From the figures given, a model directory (only when `ctx.local_models`), else the hub.

    Without it no path is even looked at, so the answer is the same whether it exists or
    not: a client of a shared server learns nothing of the server's disk.
    """
    if isinstance(model, ExplicitModel):
        return model.to_facts(), ["Model figures were given explicitly; nothing was read from the hub."]
    if not ctx.local_models:
        if not is_repo_id(model):
            raise LocalModelRefusedError(
                f"model {clip(model)} is not a Hugging Face repo id (org/name), and this server reads no model "
                "directory on its host unless its operator starts it with serve --allow-local-models; give a repo "
                "id, or the model as explicit figures (params_b, layers, kv_heads, head_dim)."
            )
    elif (path := Path(model).expanduser()).is_dir():
        return facts_from_files(read_local(path)), []
    files = ctx.hub.model_files(model)
    return facts_from_files(files), list(files.notes)


def _check_options(
    facts: ModelFacts, checkpoint: CheckpointChoice, context_len: int | None, concurrency: int | None, num_gpus: int
) -> tuple[int | None, list[str]]:
    if facts.quantization is not None and checkpoint in ("online", "offline"):
        raise ContradictoryOptionsError(
            f"checkpoint={checkpoint!r} asks to quantize, but {facts.source} is already quantized "
            f"({facts.quantization.quant_method}, {facts.quantization.format}); give the BF16 base model, "
            "or checkpoint='as_is' to serve this one."
        )
    limit = facts.max_position_embeddings
    if context_len is not None and limit is not None and context_len > limit:
        raise ContradictoryOptionsError(
            f"context_len {context_len} exceeds the model's max_position_embeddings {limit}; "
            f"ask for at most {limit} (or a model with a longer context)."
        )
    if concurrency is not None and context_len is None:
        if limit is None:
            raise ContradictoryOptionsError("concurrency needs context_len (the model states no maximum); give both.")
        return limit, [f"concurrency given without context_len: assumed the model's maximum, {limit} tokens."]
    return context_len, []


def _candidates(
    kb: KnowledgeBase, gpu: Gpu, facts: ModelFacts, situation: Situation, tag: str, asked: tuple[str | None, str | None]
) -> tuple[list[_Candidate], list[ExcludedOption]]:
    """The rules' (method, KV dtype) pairs; `asked` replaces either side with the caller's own candidate."""
    rules = [
        (r, rel) for r in kb.format_rules if r.applies_at(tag) and (rel := relevance(r, gpu, situation)) is not None
    ]
    rules.sort(key=lambda pair: pair[1])
    extra_kv = [k for r, rel in rules if rel == 2 and not r.weight_formats for k in r.kv_cache_dtypes]
    # Rules that name no KV dtype take the one the GPU's own rows use.
    gpu_kv = next((r.kv_cache_dtypes for r, rel in rules if rel <= 1 and r.hardware and r.kv_cache_dtypes), [])
    out: list[_Candidate] = []
    excluded: list[ExcludedOption] = []
    quant = facts.quantization
    fixed = checkpoint_method(quant.quant_method, quant.format) if quant else None
    only_method, only_kv = asked
    for rule, rel in rules:
        kvs = [only_kv] if only_kv else list(dict.fromkeys([*(rule.kv_cache_dtypes or gpu_kv), *extra_kv])) or ["auto"]
        methods = [fixed[0]] if fixed else [only_method] if only_method else rule.weight_formats
        for wi, method in enumerate(methods):
            lead = rule.weight_formats[0] if rule.weight_formats else None
            family = (fixed[1] or "bf16") if fixed else method_family(method, lead, gpu)
            if family is None:
                excluded.append(
                    ExcludedOption(
                        quantization=method, rule=rule.id, reason="weight format not modelled", basis="curated"
                    )
                )
                continue
            for ki, kv in enumerate(kvs):
                out.append(_Candidate(method, family, kv, rule, 0 if fixed else rel, (wi, ki)))
    return out, excluded


def _check_asked(registry: Registry, method: str | None, kv: str | None) -> None:
    """A candidate the tag does not define is the caller's mistake: name the nearest values there."""
    methods = [m.name for m in registry.quantization_methods if m.accepted_by_cli]
    methods += [o.name for o in registry.online_quantization if o.kind == "shorthand" and o.name not in methods]
    for what, value, valid in (
        ("--quantization", method, methods),
        ("--kv-cache-dtype", kv, [k.name for k in registry.kv_cache_dtypes]),
    ):
        if value is not None and value not in valid:
            near = nearest(value, valid, cutoff=0.5)
            hint = f" Nearest: {', '.join(near)}." if near else ""
            raise InvalidInputError(
                f"{what} {clip(value)} is not defined at {registry.tag}; valid there: {', '.join(valid)}.{hint}"
            )


def _to_online(c: _Candidate, registry: Registry) -> str | None:
    shorthands = {o.name for o in registry.online_quantization if o.kind == "shorthand"}
    if c.method in shorthands:
        return c.method
    return next((m for m in ONLINE_FOR_FAMILY.get(c.family, ()) if m in shorthands), None)


def _matches(affects: list[Affected], gpu: Gpu, facts: ModelFacts, method: str, kv: str, flags: set[str]) -> bool:
    """True when every kind the affects list names (and that can be judged here) matches the option."""
    kv_names = {kv, "fp8" if kv == "fp8_e4m3" else kv}
    groups: dict[str, bool] = {}
    family = facts.family.replace("-", "")
    for a in affects:
        hit: bool | None
        if a.kind == "gpu":
            hit = a.name == gpu.id
        elif a.kind in ("method", "flag_value") and a.flag in (None, "--quantization"):
            hit = a.name == method
        elif a.kind == "kv_dtype" or (a.kind == "flag_value" and a.flag == "--kv-cache-dtype"):
            hit = a.name in kv_names
        elif a.kind == "model_family":
            hit = bool(family) and family.startswith(a.name.replace("-", ""))
        elif a.kind == "flag":
            hit = a.name in flags
        else:
            hit = None
        if hit is not None:
            groups[a.kind] = groups.get(a.kind, False) or hit
    return bool(groups) and all(groups.values())


def _caveats(
    kb: KnowledgeBase, tag: str, gpu: Gpu, facts: ModelFacts, method: str, kv: str, flags: set[str]
) -> list[Caveat]:
    out: list[Caveat] = []
    key = tag_key(tag)
    for p in kb.pain_points:
        if p.applies_at(tag) and _matches(p.affects, gpu, facts, method, kv, flags):
            fixed = p.fixed_in is not None and tag_key(p.fixed_in) <= key
            out.append(
                Caveat(
                    id=p.id,
                    text=f"{p.symptom} {p.workaround}",
                    status=p.status,
                    basis="curated",
                    fixed_in=p.fixed_in,
                    fixed_at_tag=fixed if p.fixed_in else None,
                    citations=[c.url for c in p.citations],
                )
            )
    for g in kb.version_gates:
        recent = g.breaking or g.version == tag
        if (
            recent
            and tag_key(g.version) <= key
            and g.applies_at(tag)
            and _matches(g.affects, gpu, facts, method, kv, flags)
        ):
            out.append(
                Caveat(
                    id=g.id,
                    text=f"{g.version}: {g.change} {g.action}",
                    status="gate",
                    basis="curated",
                    citations=[c.url for c in g.citations],
                )
            )
    return out


def _backend_notes(kb: KnowledgeBase, method: str, kv: str, tag: str) -> tuple[list[str], list[str]]:
    notes: list[str] = []
    cites: list[str] = []
    for m in kb.methods:
        if m.name == method and m.applies_at(tag):
            notes += [m.use, *m.notes]
            cites += [c.url for c in m.citations]
    for k in kb.kv_cache_dtypes:
        if k.name == kv and k.applies_at(tag) and kv != "auto":
            notes += [f"KV {kv}: {k.use}", *k.notes]
    return notes, cites


@dataclass(frozen=True)
class _Request:
    kb: KnowledgeBase
    registry: Registry
    gpu: Gpu
    facts: ModelFacts
    num_gpus: int
    priority: Priority
    context_len: int | None
    concurrency: int | None
    choice: CheckpointChoice
    registry_at: Callable[[str], Registry]
    utilization: Utilization

    @property
    def shorthands(self) -> set[str]:
        return {o.name for o in self.registry.online_quantization if o.kind == "shorthand"}


def pick_format(ctx: ToolContext, query: PickFormatQuery) -> PickFormatResult:
    """Ranked quantization options for the model on `num_gpus` x `gpu` at `tag` (tensor parallel over all GPUs).

    checkpoint: any (default) = every way to get weights; as_is = serve the given checkpoint unchanged
    (a BF16 one then only through online shorthands); online = quantize at load; offline = a
    pre-quantized checkpoint.
    """
    gpu, num_gpus, tag, priority = query.gpu, query.num_gpus, query.tag, query.priority
    context_len, concurrency, checkpoint = query.context_len, query.concurrency, query.checkpoint
    model: str | ExplicitModel = query.model if query.model is not None else query.model_figures  # type: ignore[assignment]
    kb = ctx.knowledge
    registry = ctx.registry(tag)
    the_gpu, notes = resolve_gpu(kb, gpu)
    facts, model_notes = load_model(model, ctx)
    notes += model_notes
    choice: CheckpointChoice = checkpoint or "any"
    context_len, assumed = _check_options(facts, choice, context_len, concurrency, num_gpus)
    notes += assumed
    utilization = utilization_at(registry)
    req = _Request(
        kb, registry, the_gpu, facts, num_gpus, priority, context_len, concurrency, choice, ctx.registry, utilization
    )
    situation = Situation(priority, facts.family, facts.moe is not None, context_len, num_gpus)
    asked = (query.quantization, query.kv_cache_dtype)
    _check_asked(registry, *asked)
    candidates, excluded = _candidates(kb, the_gpu, facts, situation, registry.tag, asked)
    if any(asked):
        notes.append(
            "Judged only the candidates asked for ("
            + ", ".join(f"{f} {v}" for f, v in zip(("--quantization", "--kv-cache-dtype"), asked, strict=True) if v)
            + "); each one dropped says why under `excluded`."
        )
    if the_gpu.memory_gb is None:
        notes.append(f"{the_gpu.name} has no fixed memory size: weights are estimated, tokens that fit are not.")
    else:
        notes.append(f"Memory figures take {utilization.phrase()} of each GPU's memory.")

    options: list[tuple[tuple[float, ...], FormatOption]] = []
    seen: set[tuple[str, str]] = set()
    for c in candidates:
        outcome = _evaluate(req, c, seen)
        if isinstance(outcome, ExcludedOption):
            excluded.append(outcome)
        elif outcome is not None:
            seen.add((outcome[1].quantization.name, c.kv))
            options.append(outcome)
    too_big = [e for e in excluded if e.weights_gb_per_gpu is not None]
    if not options and too_big and the_gpu.memory_gb is not None:
        smallest = min(too_big, key=lambda e: e.weights_gb_per_gpu or 0.0)
        raise _too_large(facts, the_gpu, num_gpus, smallest, utilization)
    options.sort(key=lambda pair: pair[0])
    ranked = [o.model_copy(update={"rank": i + 1}) for i, (_, o) in enumerate(options[:MAX_OPTIONS])]
    if facts.quantization is not None:
        notes.append(
            f"{facts.source} is already quantized ({facts.quantization.quant_method}, {facts.quantization.format}); "
            "options keep its weights. Other formats start from the BF16 base model."
        )
        if checkpoint_method(facts.quantization.quant_method, facts.quantization.format)[1] is None:
            notes.append("Its weight format is not modelled here: memory figures assume 16-bit weights.")
    if not ranked:
        notes.append(f"No option survives the checks at {registry.tag} on {the_gpu.id}; see `excluded` for why.")
    return PickFormatResult(
        tag=registry.tag,
        gpu=GpuSummary(**the_gpu.model_dump(include={"id", "name", "sm", "gfx", "memory_gb", "native"})),
        num_gpus=num_gpus,
        priority=priority,
        model=facts,
        architecture=None
        if isinstance(model, ExplicitModel)
        else architecture_judgement(registry, facts.architectures, "auto", facts.source),
        options=ranked,
        omitted=max(0, len(options) - MAX_OPTIONS),
        excluded=list({(e.quantization, e.kv_cache_dtype, e.reason): e for e in excluded}.values()),
        notes=notes,
        gpu_memory_utilization=utilization,
    )


def _evaluate(
    req: _Request, c: _Candidate, seen: set[tuple[str, str]]
) -> tuple[tuple[float, ...], FormatOption] | ExcludedOption | None:
    """One candidate checked against the tag, the GPU and the memory: an option, an exclusion, or None (a repeat)."""
    registry, gpu = req.registry, req.gpu
    method = c.method
    if req.choice in ("online", "as_is") and req.facts.quantization is None:
        online = _to_online(c, registry)
        if online is None:
            return _excl(c, f"no online shorthand for {c.family} in the registry of {registry.tag}")
        method = online
    elif req.choice == "offline" and method in req.shorthands:
        return _excl(c, "an online shorthand; checkpoint='offline' asks for a pre-quantized checkpoint")
    if (method, c.kv) in seen:
        return None
    entry = next((m for m in registry.quantization_methods if m.name == method), None)
    if entry is None or not entry.accepted_by_cli:
        why = "absent from QuantizationMethods" if entry is None else "not accepted by --quantization"
        return _excl(c, f"{method} is {why} at {registry.tag}", method)
    loads = method_support(registry, method, gpu, moe=req.facts.moe is not None).model_copy(
        update={"model": shape_of(req.facts).describe()}
    )
    if loads.verdict == "no":
        return _excl(c, loads.why, method, loads)
    support, evidence = classify(method, c.family, gpu)
    derived = kernel_support(registry, method, gpu)  # the source's kernel decides where it is derived
    if derived is not None and support != "unsupported":
        support, evidence = derived[0], [derived[1], *evidence]
    if support == "unsupported":
        return _excl(c, "; ".join(evidence), method, basis="curated")
    kv_entry = next((k for k in registry.kv_cache_dtypes if k.name == c.kv), None)
    if kv_entry is None:
        return _excl(c, f"KV dtype {c.kv} is not in CacheDType at {registry.tag}", method)
    kv = kv_for_deployment(req.kb, registry, c.kv, gpu, shape_of(req.facts), req.registry_at)
    if kv is not None and kv.verdict == "no":
        return _excl(c, kv.why, method, kv)
    head = head_size_problem(req.kb, c.kv, req.facts, registry.tag, kv)
    if head is not None:
        return _excl(c, head, method, basis="curated")
    flags, flag_problem = serve_flags(c.rule.serve_flags, registry)
    if flag_problem:
        return _excl(c, flag_problem, method)
    layers = _quantized_layers(registry, method)
    if layers == "moe" and req.facts.moe is None:
        return _excl(
            c,
            f"{method} quantizes MoE layers only (its QuantizationConfigArgs at {registry.tag}); "
            f"{req.facts.source} is dense, so its weights would load unquantized",
            method,
        )
    share = req.utilization
    mem = estimate_memory(
        req.facts,
        c.family,
        c.kv,
        gpu.memory_gb,
        req.num_gpus,
        req.context_len,
        req.concurrency,
        utilization=share.value,
        layers=layers,
    )
    if mem.kv_budget_gb_per_gpu is not None and mem.kv_budget_gb_per_gpu <= 0:
        usable = (gpu.memory_gb or 0.0) * share.value
        reason = f"weights need {mem.weights_gb_per_gpu} GB per GPU; {gpu.id} offers {usable:g} GB at {share.phrase()}"
        excl = _excl(c, reason, method, basis=None)
        return excl.model_copy(update={"weights_gb_per_gpu": mem.weights_gb_per_gpu, "weight_bits": mem.weight_bits})
    avoided = any(method in r.avoid for r in req.kb.format_rules if gpu.id in r.hardware and r.applies_at(registry.tag))
    caveats = _caveats(req.kb, registry.tag, gpu, req.facts, method, c.kv, {f.flag for f in flags})
    if avoided:
        steer = f"The knowledge base steers {gpu.id} away from {method}."
        caveats.insert(0, Caveat(id=c.rule.id, text=steer, status="avoid", basis="curated"))
    if mem.fits is False:
        short = (
            f"KV holds about {mem.tokens_fit} tokens; {mem.tokens_needed} ({req.context_len} x "
            f"{req.concurrency or 1}) were asked for. Add GPUs or pick a smaller KV dtype."
        )
        caveats.append(Caveat(id="memory", text=short, status="memory", basis=None))
    judgements = [loads] if kv is None else [loads, kv]
    judgements += kernel_judgements(registry, method, gpu, moe=req.facts.moe is not None)
    caveats += [
        Caveat(id=j.subject, text=j.why, status="conditional", basis=j.basis)
        for j in judgements
        if j.verdict == "conditional"
    ]
    disputed = dissent(req.kb, kv) if kv is not None else None
    if disputed is not None:
        caveats.append(
            Caveat(id=disputed.subject, text=f"{disputed.why} {_SELECTION_ONLY}", status="kernel", basis="curated")
        )
    caveats += [
        Caveat(
            id=r.name,
            text=f"{method} refuses a checkpoint where `{r.property}` holds at {registry.tag}: {r.message} "
            f"({r.provenance.permalink})",
            status="refusal",
            basis="source",
        )
        for r in load_refusals(registry, method)
    ]
    backend, cites = _backend_notes(req.kb, method, c.kv, registry.tag)
    if support in ("fallback", "emulated"):
        backend.insert(
            0,
            f"{gpu.id} has no {c.family} tensor cores: vLLM loads {method} through a weight-only "
            "or emulated path (works, slower than native).",
        )
    memory_first = req.priority == "memory"
    key = (
        float(avoided),
        {"fallback": 1.0, "emulated": 2.0}.get(support, 0.0),  # a software emulation ranks below a weight-only path
        float(round(mem.weight_bits / 4)) if memory_first else 0.0,  # the 4-, 8- or 16-bit class
        float(c.relevance),
        float(c.position[0]),
        KV_BYTES.get(c.kv, 2.0) if memory_first else float(c.position[1]),
    )
    option = FormatOption(
        rank=0,
        weight_format=c.family,
        quantization=Named(name=method, provenance=entry.provenance),
        kv_cache_dtype=Named(name=c.kv, provenance=kv_entry.provenance),
        serve_flags=flags,
        support=support,
        support_basis="source" if derived is not None else "curated",
        support_evidence=evidence,
        judgements=judgements,
        backend_notes=backend,
        checkpoint=checkpoint_sources(req.kb, req.facts, method, c.family, registry, req.choice),
        memory=mem,
        caveats=caveats,
        rule=f"{c.rule.id}: {c.rule.reason}",
        citations=list(dict.fromkeys([*(x.url for x in c.rule.citations), *cites])),
    )
    return key, option


def _excl(
    c: _Candidate,
    reason: str,
    method: str | None = None,
    judged: Judgement | None = None,
    basis: Basis | None = "source",
) -> ExcludedOption:
    """An exclusion; `basis` None for one that is arithmetic on the model (memory), not a support judgement."""
    return ExcludedOption(
        quantization=method or c.method,
        kv_cache_dtype=c.kv,
        rule=c.rule.id,
        reason=reason,
        basis=judged.basis if judged else basis,
        evidence=[e.permalink for e in judged.evidence] if judged else [],
    )


def _quantized_layers(registry: Registry, method: str) -> Layers:
    """`moe` for a shorthand whose config quantizes the experts only (read from the tag), else `all`."""
    online = next((o for o in registry.online_quantization if o.kind == "shorthand" and o.name == method), None)
    return "moe" if online is not None and online.quantizes == ["moe"] else "all"


def _too_large(
    facts: ModelFacts, gpu: Gpu, num_gpus: int, smallest: ExcludedOption, share: Utilization
) -> ModelTooLargeError:
    weights_gb = smallest.weights_gb_per_gpu or 0.0
    memory_gb = gpu.memory_gb or 0.0
    usable = memory_gb * share.value
    total = weights_gb * num_gpus
    needed = math.ceil(total / usable) if usable else 0
    return ModelTooLargeError(
        f"{facts.source} ({facts.params / 1e9:.1f}B parameters) does not fit {num_gpus}x {gpu.id} at any format the "
        f"tag offers: the most compact, {smallest.quantization} ({smallest.weight_bits:g} bits/weight), needs "
        f"{weights_gb} GB per GPU ({total:.1f} GB in all) against {usable:g} GB usable per GPU ({memory_gb:g} GB x "
        f"{share.phrase()}). Use at least {needed + 1} GPUs (weights alone need {needed}, the KV cache "
        "needs room too) or larger GPUs."
    )
