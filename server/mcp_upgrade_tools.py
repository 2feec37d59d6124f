"""MCP wiring of the upgrade tools: check_gates, lookup_issue, search_issues."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Literal

from mcp.server import MCPServer
from pydantic import Field

from vllm_quant_mcp.tools.context import ToolContext
from vllm_quant_mcp.tools.gates_models import ChangeFilter, CheckGatesResult
from vllm_quant_mcp.tools.issue_models import IssueLookup, IssueSearch

from .app import READ_ONLY, anticipated


def register(server: MCPServer, ctx: Callable[[], ToolContext]) -> None:
    @server.tool(annotations=READ_ONLY("Check upgrade gates"))
    @anticipated
    def check_gates(
        from_tag: Annotated[str, Field(description="The release running now, e.g. v0.27.1.")],
        to_tag: Annotated[str, Field(description="The target release; older than from_tag is a downgrade.")],
        serve_command: Annotated[
            str | None, Field(max_length=20000, description="The current `vllm serve ...` line, as written.")
        ] = None,
        env: Annotated[dict[str, str] | None, Field(description="Env vars of the deployment, e.g. VLLM_*.")] = None,
        gpu: Annotated[str | None, Field(description="e.g. h200, b200, sm90, mi300x.")] = None,
        model_family: Annotated[str | None, Field(description="e.g. deepseek, qwen3, gemma, gpt-oss.")] = None,
        registry_changes: Annotated[
            ChangeFilter, Field(description="Per-hop registry changes: breaking (default), all, none.")
        ] = "breaking",
    ) -> CheckGatesResult:
        """What moving vLLM from from_tag to to_tag does to a deployment: for each release crossed, the curated
        version gates that apply and what the source registries removed, deprecated or changed; given the serve
        command (and env), flag by flag what breaks or changes meaning, with action, citations and source evidence.
        Example: check_gates(from_tag="v0.27.1", to_tag="v0.32.0",
        serve_command="vllm serve m --quantization bitsandbytes --calculate-kv-scales")
        """
        from vllm_quant_mcp.tools import check_gates as gates  # the knowledge base loads on the first call

        return gates.check_gates(ctx(), from_tag, to_tag, serve_command, env, gpu, model_family, registry_changes)

    @server.tool(annotations=READ_ONLY("Look up a vLLM issue or PR"))
    @anticipated
    def lookup_issue(
        number: Annotated[int, Field(ge=1, description="Issue or PR number, e.g. 38652.")],
        tag: Annotated[str | None, Field(description="Your release: answers whether the fix is in it.")] = None,
        repo: Annotated[str | None, Field(description="Default vllm-project/vllm.")] = None,
    ) -> IssueLookup:
        """Live state of a vLLM issue or PR (closed is not fixed: see state_reason), its closing PRs, the first
        release containing the fix and how that was found, curated facts citing it, and whether the fix is in
        `tag`; says when the answer is cached or knowledge-only. Example: lookup_issue(number=38652, tag="v0.18.0")
        """
        from vllm_quant_mcp.tools import lookup_issue as issues  # httpx, gitpython: loaded on the first call

        return issues.lookup_issue(ctx(), number, repo, tag)

    @server.tool(annotations=READ_ONLY("Search vLLM issues"))
    @anticipated
    def search_issues(
        query: Annotated[str, Field(min_length=1, max_length=256, description="Search words, e.g. 'fp8 kv mla'.")],
        state: Literal["open", "closed"] | None = None,
        label: Annotated[str | None, Field(max_length=100)] = None,
        since: Annotated[str | None, Field(description="Created on or after YYYY-MM-DD.")] = None,
    ) -> IssueSearch:
        """GitHub issue and PR search in the vLLM repository: short rows (number, title, state, labels, dates,
        url, curated facts citing it). Example: search_issues(query="nvfp4 moe sm120", state="open")
        """
        from vllm_quant_mcp.tools import lookup_issue as issues

        return issues.search_issues(ctx(), query, state, label, since)
