"""MCP prompts for the two workflows operators run most: a deployment memo and an upgrade audit.

Each prompt is a plan of tool calls, so the client's model answers from tool results
(with tags and permalinks) rather than from what it remembers of vLLM. Results that can
grow come a page at a time; the plans say to follow `next` rather than to widen a call.
Their tag, GPU and model-family arguments complete from what the server knows
(mcp/completions.py).
"""

from __future__ import annotations

import json
from typing import Annotated

from mcp.server import MCPServer
from pydantic import Field

__all__ = ["deployment_memo_text", "register", "upgrade_audit_text"]


def deployment_memo_text(model: str, gpu: str, num_gpus: int, tag: str | None) -> str:
    pinned = tag or "the server's default tag (call list_tags)"
    return f"""Write a deployment memo for serving {model} on {num_gpus} x {gpu} with vLLM at {pinned}.

1. Call pick_format(gpu="{gpu}", model="{model}", num_gpus={num_gpus}{f', tag="{tag}"' if tag else ""}).
2. Take the top option whose support is native (else fallback, and say why); note its caveats.
3. Call render_serve_cmd with that option's quantization and kv_cache_dtype and tensor_parallel_size={num_gpus}.
4. For each caveat citing an issue, call lookup_issue(number=N, tag=...) and say whether the fix is in the tag.
5. To confirm a flag or dtype in the source, use find_symbol or grep_vllm_source with a path_glob; if a result
   has `next`, narrow the search before paging on.
Quote every flag, dtype and env var with the tag and permalink the tools returned; name nothing a tool did not return.
The memo: recommendation, why (memory figures), the exact command, risks and their status, what to measure."""


def upgrade_audit_text(
    from_tag: str, to_tag: str, serve_command: str | None, gpu: str | None = None, model_family: str | None = None
) -> str:
    extra = "".join(
        f", {name}={json.dumps(value)}"
        for name, value in (("serve_command", serve_command), ("gpu", gpu), ("model_family", model_family))
        if value
    )
    return f"""Audit an upgrade of vLLM from {from_tag} to {to_tag}.

1. Call check_gates(from_tag="{from_tag}", to_tag="{to_tag}"{extra}). While its result has a `next`,
   call it again with the same arguments and cursor=<next>: the findings, gates and changes continue there.
2. For every finding that breaks or changes meaning, give the action and its citation.
3. For issue or PR numbers in the findings, call lookup_issue(number=N, tag="{to_tag}") (closed is not fixed).
4. If a flag or value moved, confirm with get_registry(tag="{to_tag}", kind=..., contains=<name>) or
   grep_vllm_source(pattern=..., tag="{to_tag}", path_glob=...); narrow these rather than paging through them.
Answer with a table: flag or env var, what happens at {to_tag}, the action, the evidence (tag, path:line)."""


def register(server: MCPServer) -> None:
    @server.prompt(title="Deployment memo")
    def deployment_memo(
        model: Annotated[str, Field(description="Hugging Face repo id, e.g. meta-llama/Llama-3.1-70B-Instruct")],
        gpu: Annotated[str, Field(description="e.g. h200")],
        num_gpus: int = 1,
        tag: str | None = None,
    ) -> str:
        """Pick a format, render the serve command and check known issues for one model on one GPU type."""
        return deployment_memo_text(model, gpu, num_gpus, tag)

    @server.prompt(title="Upgrade audit")
    def upgrade_audit(
        from_tag: Annotated[str, Field(description="The release running now, e.g. v0.27.1")],
        to_tag: Annotated[str, Field(description="The target release, e.g. v0.32.0")],
        serve_command: str | None = None,
        gpu: Annotated[str | None, Field(description="e.g. h200, to keep the gates that concern it")] = None,
        model_family: Annotated[str | None, Field(description="e.g. deepseek, qwen3, gemma, gpt-oss")] = None,
    ) -> str:
        """What breaks or changes when moving a deployment between two vLLM releases, flag by flag."""
        return upgrade_audit_text(from_tag, to_tag, serve_command, gpu, model_family)
