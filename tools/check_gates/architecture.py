"""What the hop does to the command's model itself: whether vLLM at each end still builds the architecture its
config.json names (knowledge/support/architecture.py).

The model is read where the command's other verdicts read it: a folder on this machine (when the context may
read its disk), or the hub only when a GPU verdict reads it anyway (`hub` given), so a plain flag check stays
offline. A removed architecture (QWenLMHeadModel after v0.23.0) breaks; losing vLLM's own class for the
Transformers fallback is a change to check; a config that names no architecture says so.
"""

from __future__ import annotations

from vllm_quant_mcp.knowledge.deploy.serve_command import ServeCommand
from vllm_quant_mcp.knowledge.hub.client import HubClient
from vllm_quant_mcp.knowledge.support.architecture import architecture_judgement
from vllm_quant_mcp.knowledge.support.judgement import Judgement
from vllm_quant_mcp.knowledge.support.model_input import read_architectures

from .findings import make_finding
from .models import Finding, Severity, SupportEvidence
from .walk import Walk

__all__ = ["architecture_findings"]


def architecture_findings(
    command: ServeCommand | None, walk: Walk, hub: HubClient | None, local: bool
) -> list[Finding]:
    """One finding where the architecture's fate at to_tag needs saying (a break, a change, or a gain)."""
    if command is None or command.model is None:
        return []
    read = read_architectures(command.model, hub, local)
    if read is None:
        return []
    impl = next((f.value for f in reversed(command.flags) if f.name == "--model-impl" and f.value), "auto")
    after = architecture_judgement(walk.end, read.names or [], impl, read.source)
    before = architecture_judgement(walk.start, read.names or [], impl, read.source)
    written = f"{command.model} ({after.subject})"
    if read.names is None:
        return [_finding(walk, after, written, "info", after.why, "Check the config's architectures by hand.", [after])]
    if walk.direction == "same":
        if after.verdict == "yes":
            return []
        severity: Severity = "breaks" if after.verdict == "no" else "info"
        return [_finding(walk, after, written, severity, after.why, _action(after), [after])]
    if after.verdict == before.verdict:
        return []
    if after.verdict == "no":
        problem = f"{after.subject} loads at {walk.start.tag} ({before.why}) but not at {walk.end.tag}: {after.why}"
        return [_finding(walk, after, written, "breaks", problem, _action(after), [before, after])]
    if after.verdict == "conditional" and before.verdict == "yes":
        problem = f"At {walk.start.tag} vLLM builds its own class ({before.via}); at {walk.end.tag}: {after.why}"
        action = "Check that the Transformers backend serves it before moving, or stay on the from release."
        return [_finding(walk, after, written, "changes", problem, action, [before, after])]
    problem = f"{after.subject} at {walk.end.tag}: {after.why} (at {walk.start.tag}: {before.why})"
    return [_finding(walk, after, written, "info", problem, "Nothing to do.", [before, after])]


def _action(judged: Judgement) -> str:
    if judged.verdict == "no":
        return "Serve it with a release that lists it (the problem names it), or drop --model-impl vllm."
    return "Check that the Transformers backend serves it at start-up (its log names the class it builds)."


def _finding(
    walk: Walk, judged: Judgement, written: str, severity: Severity, problem: str, action: str, ends: list[Judgement]
) -> Finding:
    return make_finding(
        walk,
        [],
        subject=judged.subject,
        written=written,
        severity=severity,
        problem=f"[source] {problem}",
        action=action,
        support=[_evidence(j) for j in ends],
    )


def _evidence(j: Judgement) -> SupportEvidence:
    return SupportEvidence(
        tag=j.tag,
        verdict=j.verdict,
        via=j.via,
        lines=[e.permalink for e in j.evidence],
        assumptions=j.assumptions,
        model=j.model,
    )
