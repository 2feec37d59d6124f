"""server.json, the MCP Registry's entry for this server, agrees with the package and the README's mcp-name line."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

from vllm_quant_mcp.server.cli.main import build_parser

ROOT = Path(__file__).parents[1]


def test_server_json_names_the_package_its_version_and_the_readmes_mcp_name() -> None:
    entry = json.loads((ROOT / "server.json").read_text(encoding="utf-8"))
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    (package,) = entry["packages"]
    assert (package["registryType"], package["identifier"]) == ("pypi", project["name"])
    assert entry["version"] == package["version"] == project["version"]
    named = re.search(r"mcp-name: (\S+)", (ROOT / "README.md").read_text(encoding="utf-8"))
    assert named is not None and named.group(1) == entry["name"]
    assert entry["$schema"].startswith("https://static.modelcontextprotocol.io/schemas/")
    assert len(entry["description"]) <= 100  # the registry's limit


def test_the_registry_entry_starts_a_command_the_cli_accepts() -> None:
    (package,) = json.loads((ROOT / "server.json").read_text(encoding="utf-8"))["packages"]
    argv = [a["value"] for a in package["packageArguments"]]
    assert package["transport"]["type"] == "stdio"
    assert build_parser().parse_args(argv).run.__name__ == "_serve"
