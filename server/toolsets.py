"""The tools this server offers, grouped as the README presents them: adding a tool is one name here.

Each name is a package under tools/ whose `SPEC` says how both edges present it
(tools/spec.py). Importing a package loads only its models, never the tool's code.
"""

from __future__ import annotations

import importlib
from functools import cache
from typing import Any

from vllm_quant_mcp.tools.spec import ToolSpec

__all__ = ["TOOLSETS", "all_specs", "mcp_specs"]

TOOLSETS: dict[str, tuple[str, ...]] = {
    "registry": ("list_tags", "get_registry", "diff_tags"),
    "source": ("grep_vllm_source", "read_vllm_source", "find_symbol"),
    "upgrade": ("check_gates", "triage", "lookup_issue", "search_issues"),
    "deploy": ("pick_format", "render_serve_cmd", "audit_deployment"),
    "knowledge": ("verify_knowledge",),
}


@cache
def all_specs() -> tuple[ToolSpec[Any, Any], ...]:
    specs = []
    for names in TOOLSETS.values():
        for name in names:
            spec = importlib.import_module(f"vllm_quant_mcp.tools.{name}").SPEC
            assert isinstance(spec, ToolSpec) and spec.name == name, f"tools/{name}/__init__.py: SPEC names {name}"
            specs.append(spec)
    return tuple(specs)


def mcp_specs() -> tuple[ToolSpec[Any, Any], ...]:
    return tuple(s for s in all_specs() if s.mcp)
