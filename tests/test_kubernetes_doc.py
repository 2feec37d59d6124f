"""docs/kubernetes.md: its manifests are valid YAML and every vllm-quant-mcp command in them is one the CLI accepts."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import yaml

from vllm_quant_mcp.server.cli.main import build_parser

DOC = (Path(__file__).parent.parent / "docs" / "kubernetes.md").read_text(encoding="utf-8")


def _manifests() -> dict[str, dict[str, Any]]:
    blocks = re.findall(r"```yaml\n(.*?)```", DOC, re.DOTALL)
    return {doc["kind"]: doc for block in blocks for doc in yaml.safe_load_all(block)}


def test_the_deployment_serves_stateless_http_with_the_token_from_a_secret_on_a_read_only_cache() -> None:
    pod = _manifests()["Deployment"]["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    args = build_parser().parse_args(container["args"])
    assert (args.command, args.transport, args.stateless, args.allow_local_models) == ("serve", "http", True, False)
    token = next(e for e in container["env"] if e["name"] == "VLLM_QUANT_MCP_TOKEN")
    assert token["valueFrom"]["secretKeyRef"]["name"] == _manifests()["Secret"]["metadata"]["name"]
    assert {"name": "cache", "mountPath": "/cache", "readOnly": True} in container["volumeMounts"]
    state = next(e["value"] for e in container["env"] if e["name"] == "VLLM_QUANT_MCP_STATE_DIR")
    assert any(m["mountPath"] == state and not m.get("readOnly") for m in container["volumeMounts"])
    assert container["readinessProbe"]


def test_the_job_prepares_the_cache_with_a_refresh_the_cli_accepts() -> None:
    (container,) = _manifests()["Job"]["spec"]["template"]["spec"]["containers"]
    script = " ".join(container["args"])
    refresh = next(c.strip() for c in script.split("&&") if c.strip().startswith("vllm-quant-mcp "))
    assert build_parser().parse_args(shlex.split(refresh)[1:]).command == "refresh"
