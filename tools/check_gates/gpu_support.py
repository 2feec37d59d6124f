"""What the hop does to the command's method and KV dtype on the caller's GPU, judged from the source at both ends.

Presence is not support: `--kv-cache-dtype nvfp4` exists at v0.31.0 and v0.32.0, but on an H200
only v0.32.0 has a backend that takes it. So with a GPU given, each value the command sets is
judged at from_tag and at to_tag by the one evaluator; support lost on the way is a break
whichever way the walk goes (checked at one tag: no support there is), support gained is
info, and a checkpoint property the method starts refusing is a change the operator must
check. Values absent at either end are left to the flag findings, which already break on them.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path

from vllm_quant_mcp.knowledge.deploy.serve_command import ServeCommand
from vllm_quant_mcp.knowledge.facts.kinds import Gpu
from vllm_quant_mcp.knowledge.facts.knowledge_base import KnowledgeBase
from vllm_quant_mcp.knowledge.registry.matrix import LoadRefusal
from vllm_quant_mcp.knowledge.registry.model import Registry
from vllm_quant_mcp.knowledge.support.deployment import kv_for_deployment
from vllm_quant_mcp.knowledge.support.evaluate import load_refusals, method_support
from vllm_quant_mcp.knowledge.support.judgement import Judgement
from vllm_quant_mcp.knowledge.support.kernels import kernel_judgements
from vllm_quant_mcp.knowledge.support.loading import platform_of, read_checkpoint, resolve_load
from vllm_quant_mcp.knowledge.support.observed import RegistryAt
from vllm_quant_mcp.knowledge.support.shape import AttentionShape

from .findings import make_finding
from .models import Finding, SupportEvidence
from .walk import Walk

__all__ = ["support_findings"]


def support_findings(
    command: ServeCommand | None,
    walk: Walk,
    kb: KnowledgeBase,
    gpus: list[str],
    shape: AttentionShape | None,
    at: RegistryAt,
    local: bool,
) -> list[Finding]:
    """Findings for the --quantization and --kv-cache-dtype values of the command on each distinct GPU given,
    judged for the model's attention shape (`shape`, read from the command's model, or assumed and saying so)."""
    if command is None:
        return []
    values = {f.option: f.value for f in command.flags if f.value is not None}
    method = _value(walk, values, "--quantization")
    kv = _value(walk, values, "--kv-cache-dtype")
    out: list[Finding] = []
    for gpu in _distinct(kb, gpus):
        if shape is None:
            break
        if method is not None:
            out += _lost(walk, method[1], gpu, partial(_method, method[0], shape))
            forced = (values.get("--linear-backend", "auto"), values.get("--moe-backend", "auto"))
            out += _kernels(walk, method[0], method[1], gpu, *forced)
        if kv is not None:
            out += _lost(walk, kv[1], gpu, partial(_kv, kv[0], kb, shape, at))
    if method is not None and walk.direction != "same":
        out += _new_refusals(walk, method[0], method[1])
    if method is not None and command.model is not None and local:
        vendors = {platform_of(g.vendor) for g in _distinct(kb, gpus)}
        platform = vendors.pop() if len(vendors) == 1 else None  # one platform named, or the probes stay open
        out += _checkpoint_refusals(walk, command.model, method[0], method[1], platform)
    return out


def _checkpoint_refusals(walk: Walk, model: str, method: str, written: str, platform: str | None) -> list[Finding]:
    """Where the command's model is a checkpoint folder here: what the loader at to_tag does with it and the
    method (knowledge/support/loading.py). A refusal breaks; nothing is said of a model this machine cannot read."""
    folder = Path(model).expanduser()
    checkpoint = read_checkpoint(folder) if folder.is_dir() else None
    verdict = resolve_load(walk.end, method, checkpoint, platform=platform) if checkpoint is not None else None
    if verdict is None or verdict.outcome != "refused":
        return []
    said = f" vLLM: `{verdict.raised.error}: {verdict.raised.message}`" if verdict.raised is not None else ""
    where = ", ".join(e.permalink for e in verdict.evidence)
    return [
        make_finding(
            walk,
            [],
            subject=f"--quantization {method}",
            written=written,
            severity="breaks",
            problem=f"[source] At {walk.end.tag}, {verdict.subject}: refused ({verdict.why}).{said} ({where})",
            action="Serve a checkpoint quantized for this method, or an online method on the BF16 weights.",
        )
    ]


def _method(value: str, shape: AttentionShape, registry: Registry, gpu: Gpu) -> Judgement | None:
    return method_support(registry, value, gpu, moe=shape.moe).model_copy(update={"model": shape.describe()})


def _kv(
    value: str, kb: KnowledgeBase, shape: AttentionShape, at: RegistryAt, registry: Registry, gpu: Gpu
) -> Judgement | None:
    """The observed or source verdict for the shape; a curated fallback is left to the flag findings (never breaks)."""
    judged = kv_for_deployment(kb, registry, value, gpu, shape, at)
    return judged if judged is not None and judged.basis != "curated" else None


def _value(walk: Walk, values: dict[str, str], flag: str) -> tuple[str, str] | None:
    """(value, as written) for a flag whose value both ends define; aliases resolved through each registry."""
    for written, value in values.items():
        at_start, at_end = walk.start.find_flag(written), walk.end.find_flag(written)
        if at_start and at_end and at_start[0].name == flag == at_end[0].name:
            kind = "quantization_methods" if flag == "--quantization" else "kv_cache_dtypes"
            if all(any(e.name == value for e in getattr(r, kind)) for r in (walk.start, walk.end)):
                return value, f"{written} {value}"
    return None


def _distinct(kb: KnowledgeBase, ids: list[str]) -> list[Gpu]:
    """One GPU per capability: two names for one chip (h100, h200) get one answer, not two."""
    seen: set[tuple[str, int | None, str | None]] = set()
    out = []
    for gpu in (g for g in kb.gpus if g.id in ids):
        key = (gpu.vendor, gpu.sm, gpu.gfx)
        if key not in seen:
            seen.add(key)
            out.append(gpu)
    return out


def _lost(walk: Walk, written: str, gpu: Gpu, judge: Callable[[Registry, Gpu], Judgement | None]) -> list[Finding]:
    """A break where the GPU loses it (or, checked at one tag, never had it); info where it gains it."""
    start, end = walk.start.tag, walk.end.tag
    before, after = judge(walk.start, gpu), judge(walk.end, gpu)
    if (
        before is None
        or after is None
        or (walk.direction != "same" and (before.verdict == "no") == (after.verdict == "no"))
    ):
        return []
    if walk.direction == "same" and after.verdict != "no":
        return []
    lost = after.verdict == "no"
    if walk.direction == "same":
        problem = f"{after.subject} does not run on {gpu.id} at {end}: {after.why}"
    elif lost:
        problem = f"{after.subject} runs on {gpu.id} at {start} but not at {end}: {after.why}"
    else:
        problem = f"{after.subject} does not run on {gpu.id} at {start} ({before.why}) but does at {end}: {after.why}"
    stay = f", or stay on {start}" if walk.direction != "same" else ""
    return [
        make_finding(
            walk,
            [],
            subject=after.subject,
            written=written,
            severity="breaks" if lost else "info",
            problem=problem,
            action=f"Pick a value {end} runs on {gpu.id} (pick_format lists them){stay}."
            if lost
            else "Nothing to do; this GPU gains it.",
            support=[_evidence(before), _evidence(after)] if walk.direction != "same" else [_evidence(after)],
        )
    ]


def _kernels(
    walk: Walk, method: str, written: str, gpu: Gpu, linear_backend: str = "auto", moe_backend: str = "auto"
) -> list[Finding]:
    """A hop that changes the linear kernel or MoE backend the method gets on the GPU (an A/B to run), or removes it;
    judged with the command's --linear-backend and --moe-backend, since those decide the walk."""
    if walk.direction == "same":
        return []
    judge = partial(kernel_judgements, method=method, gpu=gpu, moe=True, moe_backend=moe_backend)
    before = {j.subject: j for j in judge(walk.start, linear_backend=linear_backend)}
    out = []
    for after in judge(walk.end, linear_backend=linear_backend):
        was = before.get(after.subject)
        if was is None or was.via == after.via:
            continue
        lost = after.via is None and after.verdict == "no"
        problem = (
            f"{after.subject} on {gpu.id}: {was.via or 'none'} at {walk.start.tag}, {after.via or 'none'} at "
            f"{walk.end.tag} ({after.why})"
        )
        forced = " with this backend: drop the flag (auto) or" if " with --" in after.subject else ":"
        action = (
            f"No kernel takes this layer at the target{forced} pick another method (pick_format lists them)."
            if lost
            else "Benchmark both before moving (an A/B); the --linear-backend / --moe-backend note names the way back."
        )
        out.append(
            make_finding(
                walk,
                [],
                subject=after.subject,
                written=written,
                severity="breaks" if lost else "changes",
                problem=problem,
                action=action,
                support=[_evidence(was), _evidence(after)],
            )
        )
    return out


def _new_refusals(walk: Walk, method: str, written: str) -> list[Finding]:
    """Load-time refusals and redirects of the method that to_tag has and from_tag had not."""
    had = {(r.property, r.message) for r in _load_changes(walk.start, method)}
    out = []
    for change in _load_changes(walk.end, method):
        if (change.property, change.message) in had:
            continue
        where = change.provenance.permalink
        if change.outcome == "redirected":
            problem = (
                f"At {walk.end.tag}, when {change.property}, --quantization {method} is deprecated; redirected to "
                f"{change.redirect_to} before any config is built: {change.message} ({where})"
            )
            action = f"For a BF16/FP16 checkpoint, write --quantization {change.redirect_to}."
        else:
            problem = (
                f"At {walk.end.tag}, {method} refuses a checkpoint where `{change.property}` holds and vLLM fails "
                f"to start: {change.message} ({where})"
            )
            action = f"Check the checkpoint's quantization_config for `{change.property}` before moving."
        out.append(
            make_finding(
                walk,
                [],
                subject=f"--quantization {method}",
                written=written,
                severity="deprecated" if change.outcome == "redirected" else "changes",
                problem=problem,
                action=action,
            )
        )
    return out


def _load_changes(registry: Registry, method: str) -> list[LoadRefusal]:
    redirects = [r for r in registry.load_refusals if r.outcome == "redirected" and method in r.methods]
    return [*load_refusals(registry, method), *redirects]


def _evidence(j: Judgement) -> SupportEvidence:
    return SupportEvidence(
        tag=j.tag,
        verdict=j.verdict,
        basis=j.basis,
        via=j.via,
        lines=[e.permalink for e in j.evidence],
        assumptions=j.assumptions,
        model=j.model,
    )
