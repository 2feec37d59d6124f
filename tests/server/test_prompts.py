"""The workflow prompts as a client lists and fetches them."""

from __future__ import annotations

import pytest
from mcp.client import Client

from vllm_quant_mcp.server.mcp.app import build_server
from vllm_quant_mcp.server.runtime import make_context

pytestmark = pytest.mark.anyio


async def test_prompts_are_listed_and_the_upgrade_audit_quotes_the_command_intact() -> None:
    command = 'vllm serve m --speculative-config \'{"method": "eagle3"}\''
    async with Client(build_server(lambda: make_context(None))) as client:
        listed = await client.list_prompts()
        prompt = await client.get_prompt(
            "upgrade_audit", {"from_tag": "v0.27.1", "to_tag": "v0.32.0", "serve_command": command}
        )
    assert {p.name for p in listed.prompts} == {"deployment_memo", "upgrade_audit"}
    text = prompt.messages[0].content.text  # type: ignore[union-attr]
    assert 'check_gates(from_tag="v0.27.1", to_tag="v0.32.0", serve_command=' in text
    assert '\\"method\\": \\"eagle3\\"' in text


async def test_the_upgrade_audit_passes_gpu_and_family_on_and_says_to_follow_next_pages() -> None:
    async with Client(build_server(lambda: make_context(None))) as client:
        listed = await client.list_prompts()
        prompt = await client.get_prompt(
            "upgrade_audit", {"from_tag": "v0.27.1", "to_tag": "v0.32.0", "gpu": "h200", "model_family": "deepseek"}
        )
    audit = next(p for p in listed.prompts if p.name == "upgrade_audit")
    assert {a.name for a in audit.arguments or []} >= {"gpu", "model_family"}
    text = prompt.messages[0].content.text  # type: ignore[union-attr]
    assert 'check_gates(from_tag="v0.27.1", to_tag="v0.32.0", gpu="h200", model_family="deepseek")' in text
    assert "cursor=<next>" in text
