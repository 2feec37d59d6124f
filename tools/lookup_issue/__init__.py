"""`lookup_issue`: a vLLM issue or PR, its live state, and the first release with the fix."""

from __future__ import annotations

from vllm_quant_mcp.tools.spec import ToolSpec

from .models import IssueLookup, LookupIssueQuery

SPEC = ToolSpec(
    name="lookup_issue",
    title="Look up a vLLM issue or PR",
    description=(
        "Live state of a vLLM issue or PR (closed is not fixed: see state_reason), its closing PRs, the first "
        "release holding the fix (first_release.basis: proven from git, release_notes, or curated_unverified), "
        "curated facts citing it, and whether the fix is in `tag`; says when the answer is cached or knowledge-only."
    ),
    query=LookupIssueQuery,
    result=IssueLookup,
    cli="issue",
    cli_help="a vLLM issue or PR: state, closing PRs, first release with the fix",
    open_world=True,
    cost="network",
)
