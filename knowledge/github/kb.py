"""The knowledge base's facts about one issue or PR number, and where GitHub's live state contradicts them.

The point of the comparison is the stale-closed issue: GitHub says "closed", an
agent reads "fixed", while the curated fact says the problem is still there; and
the other way round, a curated "fixed in v0.19.0" for an issue still open, or a
release the commits prove wrong. The live state and the proof win; the
disagreement is shown so the curated fact can be corrected.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from vllm_quant_mcp.knowledge.facts.fact import Fact, IssueCitation, PrCitation
from vllm_quant_mcp.knowledge.facts.kinds import PainPoint, VersionGate
from vllm_quant_mcp.knowledge.facts.knowledge_base import KnowledgeBase

from .answers import FirstRelease, KbFact

__all__ = ["KbFact", "LiveState", "disagreements", "facts_about"]


class LiveState(BaseModel):
    """What GitHub says now, reduced to what the comparison needs."""

    number: int
    is_pr: bool
    state: str
    state_reason: str | None
    merged: bool | None = Field(description="PRs: merged or not; issues: None.")
    fix_prs: list[int] = Field(description="Merged PRs that close the issue (or the PR itself when merged).")


def _summary(fact: Fact) -> str:
    if isinstance(fact, PainPoint):
        return f"{fact.symptom} Cause: {fact.cause}"
    if isinstance(fact, VersionGate):
        return f"{fact.change} Action: {fact.action}"
    for name in ("use", "reason", "produces", "name"):
        value = getattr(fact, name, None)
        if isinstance(value, str):
            return value
    return fact.id


def facts_about(knowledge: KnowledgeBase, repo: str, number: int) -> list[KbFact]:
    """Every curated fact that cites `repo`#`number`, as a short row."""
    rows = []
    for kind, fact in knowledge.facts():
        cited = [
            c
            for c in fact.citations
            if isinstance(c, PrCitation | IssueCitation) and c.number == number and c.repo.lower() == repo.lower()
        ]
        if not cited:
            continue
        rows.append(
            KbFact(
                id=fact.id,
                kind=kind,
                cited_as=cited[0].kind,
                summary=_summary(fact),
                status=fact.status if isinstance(fact, PainPoint) else None,
                fixed_in=fact.fixed_in if isinstance(fact, PainPoint) else None,
                version=fact.version if isinstance(fact, VersionGate) else None,
                workaround=fact.workaround if isinstance(fact, PainPoint) else None,
            )
        )
    return rows


def disagreements(live: LiveState, facts: list[KbFact], first: FirstRelease) -> list[str]:
    """Sentences naming each point where GitHub now and a curated fact disagree."""
    found = []
    n = f"#{live.number}"
    fixed_live = bool(live.fix_prs)
    for fact in facts:
        if fact.status is not None and fact.status != "fixed":
            if live.state == "closed" and not fixed_live:
                reason = live.state_reason or "no reason given"
                found.append(
                    f"GitHub shows {n} closed ({reason}) but {fact.id} records it {fact.status}: closed is not fixed."
                )
            elif fixed_live:
                prs = ", ".join(f"#{p}" for p in live.fix_prs)
                found.append(f"{prs} merged as a fix for {n}, but {fact.id} still says {fact.status}; the KB may lag.")
        claimed = fact.fixed_in or fact.version
        if fact.status == "fixed" or (fact.status is None and claimed):
            if not live.is_pr and live.state == "open":
                found.append(f"{fact.id} says fixed in {claimed or 'some release'}, but {n} is still open.")
            elif not live.is_pr and live.state_reason in ("not_planned", "duplicate"):
                found.append(
                    f"{fact.id} says fixed in {claimed or 'some release'}, but {n} was closed {live.state_reason}."
                )
            elif live.is_pr and live.merged is False:
                found.append(
                    f"{fact.id} places it in {claimed or 'a release'}, but PR {n} was not merged; "
                    "the change came from another PR, if at all."
                )
        if not claimed or first.basis not in ("proven", "release_notes"):
            continue
        if first.tag is not None and claimed != first.tag:
            found.append(f"{fact.id} gives {claimed}, but {first.method} finds {first.tag} first.")
        elif first.tag is None and first.released == "no":
            found.append(
                f"{fact.id} gives {claimed}, but the commits prove no release up to {first.newest_checked} holds it."
            )
    return found
