"""`check_gates`: what an upgrade (or downgrade) between two vLLM releases does to a deployment.

Two sources, kept apart in the answer: the curated version gates of the knowledge
base (why, and what to do), and the registries of every release crossed (what the
source says exists). Given a `vllm serve` line, each of its flags, values and env
vars is checked against to_tag's registry, and every name said to exist at a tag
comes with that tag's path, line and permalink. The tool answers a page of it at a time.
"""

from __future__ import annotations

from vllm_quant_mcp.knowledge.deploy.serve_command import ServeCommand, parse_serve_command
from vllm_quant_mcp.knowledge.facts.knowledge_base import KnowledgeBase
from vllm_quant_mcp.knowledge.support.model_input import read_model_facts, shape_for
from vllm_quant_mcp.knowledge.support.shape import SELECTION_FLAGS, AttentionShape
from vllm_quant_mcp.tools.context import ToolContext
from vllm_quant_mcp.tools.paging import Window, json_size

from .architecture import architecture_findings
from .flags import command_findings
from .gpu_support import support_findings
from .hops import walk_hops
from .models import ChangeFilter, CheckGatesQuery, CheckGatesResult, Finding, GateMatch, Hop, RegistryChange
from .walk import Walk, resolve_walk, usage_of

__all__ = ["check_gates", "gates_report"]

_ADDITIONS = {"added", "choices_added", "no_longer_deprecated"}


def check_gates(ctx: ToolContext, query: CheckGatesQuery) -> CheckGatesResult:
    """The page of the whole answer (gates_report) that the query's limit and cursor ask for."""
    whole = gates_report(ctx, query)
    window = Window.of(query, "check_gates", query.limit)
    items: list[tuple[int, Finding | GateMatch | RegistryChange]] = [(-1, f) for f in whole.findings]
    for i, hop in enumerate(whole.hops):
        items += [(i, g) for g in hop.gates] + [(i, c) for c in hop.changes]
    shown = window.take(items, lambda item: json_size(item[1]))
    hops = [hop.model_copy(update={"gates": [], "changes": []}) for hop in whole.hops]  # the walk, on every page
    for i, item in shown:
        if isinstance(item, GateMatch):
            hops[i].gates.append(item)
        elif isinstance(item, RegistryChange):
            hops[i].changes.append(item)
    return whole.model_copy(
        update={
            "command": whole.command if window.offset == 0 else None,
            "findings": [item for _, item in shown if isinstance(item, Finding)],
            "hops": hops,
            **window.fields(len(shown), len(items)),
        }
    )


def gates_report(ctx: ToolContext, query: CheckGatesQuery) -> CheckGatesResult:
    """The whole answer on one page: gates and registry changes for every hop in (from_tag, to_tag], and the
    fate of each flag of the command.

    `registry_changes` keeps answers affordable: a span of five releases adds ~100 flags and env vars,
    which an upgrade never has to act on; "breaking" keeps removals, deprecations and changed meanings.
    """
    gpu, env, model_family, registry_changes = query.gpu, query.env, query.model_family, query.registry_changes
    kb = ctx.knowledge
    gpus = _resolve_gpus(kb, gpu)
    walk = resolve_walk(ctx, query.from_tag, query.to_tag)
    command = _parse(query.serve_command, walk)
    usage = usage_of(command, env, walk)
    family = model_family.strip() if model_family and model_family.strip() else None
    crossed = walk.gates(kb.version_gates)
    shape = _shape(ctx, command) if gpus else None
    findings = (
        command_findings(command, env, walk, kb, crossed)
        + architecture_findings(command, walk, ctx.hub if shape is not None else None, ctx.local_models)
        + support_findings(command, walk, kb, gpus, shape, ctx.registry, ctx.local_models)
    )
    hops = [
        hop.model_copy(update={"changes": [c for c in hop.changes if _kept(c, registry_changes)]})
        for hop in walk_hops(walk, kb.version_gates, usage, set(gpus) if gpu else None, family)
    ]
    return CheckGatesResult(
        from_tag=walk.tags[0],
        to_tag=walk.tags[-1],
        direction=walk.direction,
        summary=_summary(walk, findings, hops),
        gpus=gpus,
        model_shape=shape.describe() if shape is not None else None,
        model_family=family,
        command=command,
        findings=findings,
        hops=hops,
        total=len(findings) + sum(len(h.gates) + len(h.changes) for h in hops),
    )


def _shape(ctx: ToolContext, command: ServeCommand | None) -> AttentionShape | None:
    """The command's model as the attention selector reads it; read only when a GPU verdict will use it."""
    if command is None or not any(f.name in ("--quantization", "--kv-cache-dtype") for f in command.flags):
        return None
    flags = {f.name: f.value or "" for f in command.flags if f.name.partition(".")[0] in SELECTION_FLAGS}
    facts, why = read_model_facts(command.model, None, ctx.hub, ctx.local_models)
    return shape_for(facts, why, flags)


def _kept(change: RegistryChange, wanted: ChangeFilter) -> bool:
    if wanted == "all":
        return True
    return wanted == "breaking" and change.change not in _ADDITIONS


def _resolve_gpus(kb: KnowledgeBase, gpu: str | None) -> list[str]:
    if gpu is None or not gpu.strip():
        return []
    return [g.id for g in kb.gpus_named(gpu)]


def _parse(text: str | None, walk: Walk) -> ServeCommand | None:
    """Parse with the boolean flags of both end tags known, so `--flag model` is not read as a value."""
    if text is None or not text.strip():
        return None
    bare: set[str] = set()
    for registry in (walk.start, walk.end):
        for flag in registry.cli_flags:
            if flag.negation:
                bare |= {flag.name, *flag.aliases}
    return parse_serve_command(text, bare)


def _summary(walk: Walk, findings: list[Finding], hops: list[Hop]) -> str:
    start, end = walk.tags[0], walk.tags[-1]
    counts = {s: sum(f.severity == s for f in findings) for s in ("breaks", "changes", "deprecated", "info")}
    told = ", ".join(f"{n} {s}" for s, n in counts.items() if n) or "nothing to flag"
    gates = sum(len(h.gates) for h in hops)
    if walk.direction == "same":
        return f"{start} to itself: no release is crossed; the command was checked against {end}: {told}."
    path = " -> ".join(walk.tags)
    lead = (
        f"Downgrade: {start} is newer than {end}, so the {len(hops)} hops are walked in reverse ({path}); "
        "gates crossed are undone and entries added on the way up are missing."
        if walk.direction == "downgrade"
        else f"Upgrade across {len(hops)} hops ({path})."
    )
    return f"{lead} Curated gates that apply: {gates}. Command findings: {told}."
