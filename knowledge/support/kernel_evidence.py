"""The lines a kernel judgement cites, shared by the linear (kernels.py) and MoE (moe_kernels.py) judgements."""

from __future__ import annotations

from vllm_quant_mcp.knowledge.registry.kernels import KernelOutcome, KernelVerdict, MoeOutcome
from vllm_quant_mcp.knowledge.registry.matrix import Check
from vllm_quant_mcp.knowledge.sources.tree import REPOSITORY_URL
from vllm_quant_mcp.knowledge.support.judgement import Evidence

__all__ = ["checks_of", "deciding", "evidence_of", "on"]


def on(outcome: KernelOutcome | MoeOutcome, where: tuple[str, str]) -> bool:
    """Whether the outcome is the walk's answer on this platform and capability (an older registry's are CUDA's)."""
    return outcome.platform == where[0] and where[1] in outcome.capabilities


def deciding(tag: str, considered: list[KernelVerdict], extra: list[Check] | None = None) -> list[Evidence]:
    """At most six lines: why the candidates ahead were passed over, then the line where the pick accepted (last,
    as the deciding line a one-line citation takes)."""
    picked = [v.accepted for v in considered if v.verdict == "yes" and v.accepted is not None][-1:]
    passed = [c for v in considered for c in checks_of(v)] + (extra or [])
    return [evidence_of(c, tag) for c in [*passed[: 6 - len(picked)], *picked]]


def checks_of(verdict: KernelVerdict) -> list[Check]:
    return verdict.checks if verdict.verdict != "yes" else []


def evidence_of(check: Check, tag: str) -> Evidence:
    return Evidence(
        why=check.why,
        path=check.path,
        line=check.line,
        permalink=f"{REPOSITORY_URL}/blob/{tag}/{check.path}#L{check.line}",
    )
