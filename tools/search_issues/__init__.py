"""`search_issues`: GitHub issue and PR search in the vLLM repository."""

from __future__ import annotations

from vllm_quant_mcp.tools.spec import ToolSpec

from .models import IssueSearch, SearchIssuesQuery

SPEC = ToolSpec(
    name="search_issues",
    title="Search vLLM issues",
    description=(
        "GitHub issue and PR search in the vLLM repository: short rows (number, title, state, labels, dates, "
        "url, curated facts citing it, a release only as lookup_issue's rules allow). "
        'Example: search_issues(query="nvfp4 moe sm120", state="open")'
    ),
    query=SearchIssuesQuery,
    result=IssueSearch,
    cli="search-issues",
    cli_help="search vLLM issues and PRs",
    open_world=True,
)
