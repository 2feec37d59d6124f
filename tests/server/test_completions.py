"""completion/complete as a client's argument picker uses it: for the prompts and the registry resource template."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from mcp.client import Client
from mcp.types import PromptReference, ResourceTemplateReference
from support.paths import REPO

from vllm_quant_mcp.knowledge.registry.store import Store
from vllm_quant_mcp.server.mcp.app import build_server
from vllm_quant_mcp.tools.context import ToolContext

pytestmark = pytest.mark.anyio
TEMPLATE = ResourceTemplateReference(uri="vllm-registry://{tag}/{kind}")
DATA = REPO / "knowledge" / "facts" / "data"
BUNDLED = REPO / "knowledge" / "registry" / "bundled"


def _yaml(name: str) -> list[dict[str, object]]:
    data: list[dict[str, object]] = yaml.safe_load((DATA / name).read_text(encoding="utf-8"))
    return data


async def test_tag_kind_gpu_and_model_family_arguments_complete_from_what_the_server_knows(tmp_path: Path) -> None:
    bundled = {p.stem for p in BUNDLED.glob("v0.3*.json")}
    gpus = {str(g["id"]) for g in _yaml("gpus.yaml") if str(g["id"]).startswith("h")}
    families = {
        str(a["name"])  # type: ignore[index]
        for name in ("version_gates.yaml", "pain_points.yaml")
        for fact in _yaml(name)
        for a in fact.get("affects", [])  # type: ignore[attr-defined]
        if a["kind"] == "model_family"
    }
    server = build_server(lambda: ToolContext(store=Store(tmp_path), default_tag="v0.32.0"))  # bundled tags only
    async with Client(server) as client:
        capabilities = client.server_capabilities
        tags = await client.complete(PromptReference(name="upgrade_audit"), {"name": "to_tag", "value": "0.3"})
        kinds = await client.complete(TEMPLATE, {"name": "kind", "value": "back"}, context_arguments={"tag": "v0.32.0"})
        gpu = await client.complete(PromptReference(name="deployment_memo"), {"name": "gpu", "value": "H"})
        family = await client.complete(PromptReference(name="upgrade_audit"), {"name": "model_family", "value": ""})
        nothing = await client.complete(PromptReference(name="upgrade_audit"), {"name": "serve_command", "value": "v"})
    assert capabilities.completions is not None and capabilities.logging is not None
    assert set(tags.completion.values) == bundled
    assert tags.completion.values == sorted(bundled, key=lambda t: [int(p) for p in t[1:].split(".")], reverse=True)
    assert kinds.completion.values == ["backends.linear", "backends.moe", "backends.attention"]
    assert set(gpu.completion.values) == gpus
    assert set(family.completion.values) == families and family.completion.total == len(families)
    assert nothing.completion.values == []
