"""`search_issues`: GitHub issue and PR search in the vLLM repository."""

from __future__ import annotations

from vllm_quant_mcp.tools.spec import ToolSpec

from .models import IssueSearch, SearchIssuesQuery

SPEC = ToolSpec(
    name="search_issues",
    title="Search vLLM issues",
    description=(
        "Issue and PR search in the vLLM GitHub repository, a page at a time: rows with the curated facts citing "
        "each and a release only as lookup_issue's rules allow."
    ),
    query=SearchIssuesQuery,
    result=IssueSearch,
    cli="search-issues",
    cli_help="search vLLM issues and PRs",
    open_world=True,
    cost="network",
)
