"""`search_issues`: GitHub's issue search in one allowed repository, rows marked with the curated facts citing them.

A row's release follows the lookup's rules without its proof: an open issue, an
unmerged PR or one closed as not planned is in no release; otherwise only a
curated fact may name one, marked curated and unverified, and only a known tag;
lookup_issue proves it. The search runs under one deadline, like a lookup.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from vllm_quant_mcp.knowledge.echo import clip
from vllm_quant_mcp.knowledge.errors import InvalidInputError
from vllm_quant_mcp.knowledge.github.answers import RowRelease
from vllm_quant_mcp.knowledge.github.deadline import Deadline
from vllm_quant_mcp.knowledge.github.fixes import FixPlacement, no_release
from vllm_quant_mcp.knowledge.github.kb import facts_about
from vllm_quant_mcp.knowledge.github.links import item_url, labels
from vllm_quant_mcp.knowledge.github.live import settled_by_state
from vllm_quant_mcp.knowledge.github.prover import Prover
from vllm_quant_mcp.tools.context import ToolContext
from vllm_quant_mcp.tools.paging import Window

from .models import IssueRow, IssueSearch, SearchIssuesQuery

__all__ = ["search_issues"]

SEARCH_CAP = 1000  # GitHub's search serves no result past the first thousand

_QUALIFIER = re.compile(r"(?:^|\s)-?(?:repo|org|user|owner):", re.IGNORECASE)


def search_issues(ctx: ToolContext, query: SearchIssuesQuery) -> IssueSearch:
    """GitHub's issue search in the default repository; `since` (YYYY-MM-DD) filters on creation date.

    A page is one of GitHub's pages (per_page = limit), so the cursor is only good with the same limit.
    """
    window = Window.of(query, "search_issues", query.limit, ignore=())
    limit = query.limit
    state, label, since, repo = query.state, query.label, query.since, None
    deps = ctx.github
    repo_name = deps.settings.check_repo(repo)
    q = f"repo:{repo_name} {_search_terms(query.query)}"
    if state is not None:
        if state not in ("open", "closed"):
            raise InvalidInputError(f"state {clip(state)} must be 'open' or 'closed' (or omitted for both).")
        q += f" state:{state}"
    if label is not None:
        if not label.strip() or len(label) > 100 or any(c in label for c in '"\\') or not label.isprintable():
            raise InvalidInputError(f"label {clip(label)} must be a plain label name such as 'quantization'.")
        q += f' label:"{label.strip()}"'
    if since is not None:
        try:
            day = date.fromisoformat(since.strip())
        except ValueError:
            raise InvalidInputError(f"since {clip(since)} must be a date such as 2025-06-01.") from None
        q += f" created:>={day.isoformat()}"
    params: dict[str, str | int] = {"q": q, "per_page": limit}
    if window.offset:
        params["page"] = window.offset // limit + 1
    deadline = Deadline(deps.settings.deadline)
    fetched = deps.client.get("/search/issues", params, deadline=deadline)
    data = fetched.data if isinstance(fetched.data, dict) else {}
    notes = list(fetched.notes)
    if data.get("incomplete_results"):
        notes.append("GitHub's search timed out on its side; the results may be incomplete.")
    prover = Prover(deps, repo_name, deadline, ctx.store.known_tags())
    rows = [_row(prover, item) for item in data.get("items") or [] if isinstance(item, dict)]
    notes += [n for n in dict.fromkeys(prover.notes) if n not in notes]
    total = int(data.get("total_count") or 0)
    return IssueSearch(
        repo=repo_name,
        query=q,
        total_count=total,
        rows=rows,
        **window.fields(len(rows), min(total, SEARCH_CAP) if rows else window.offset),
        freshness=fetched.freshness,
        age_seconds=round(fetched.age) if fetched.freshness == "cached" else None,
        notes=notes,
    )


def _search_terms(query: str) -> str:
    text = " ".join(query.split())
    if not text or len(text) > 256 or not text.isprintable():
        raise InvalidInputError(f"query {clip(query)} must be 1-256 printable characters, e.g. 'fp8 kv cache mla'.")
    if _QUALIFIER.search(text):
        raise InvalidInputError(
            f"query {clip(query)} names a repo:/org:/user: qualifier; "
            "pass repo=... instead (allowed repositories only)."
        )
    return text


def _row(prover: Prover, item: dict[str, Any]) -> IssueRow:
    repo = prover.repo
    number = int(item.get("number") or 0)
    is_pr = isinstance(item.get("pull_request"), dict)
    facts = facts_about(prover.deps.knowledge, repo, number)
    finding = settled_by_state(number, item)
    if finding is None and facts:
        finding = prover.curated([number])
        if finding is not None:
            detail = f"{finding.first.detail}; lookup_issue proves it"
            finding = FixPlacement(finding.first.model_copy(update={"detail": detail}))
    if finding is None:
        finding = no_release(f"not proven here: lookup_issue(number={number}) proves its first release", "unknown")
    return IssueRow(
        number=number,
        kind="pr" if is_pr else "issue",
        title=str(item.get("title") or ""),
        state=str(item.get("state") or "unknown"),
        state_reason=item.get("state_reason"),
        labels=labels(item),
        created_at=item.get("created_at"),
        closed_at=item.get("closed_at"),
        url=str(item.get("html_url") or item_url(repo, number, is_pr)),
        knowledge=[f.id for f in facts],
        first_release=RowRelease.of(finding.first),
    )
