"""Start-up stays light: building the server loads none of what only a tool call needs.

An agent's client spawns `vllm-quant-mcp serve` on every session and waits for
tools/list; gitpython, tree-sitter, httpx and the knowledge base load on the first
call that needs them. A fresh interpreter is the only honest place to look: the test
process has imported everything already.
"""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY_PACKAGES = {"git", "tree_sitter", "httpx", "diskcache", "regex", "yaml", "filelock"}
KNOWLEDGE_BASE_MODULES = {
    "vllm_quant_mcp.knowledge.facts",
    "vllm_quant_mcp.knowledge.facts.fact",
    "vllm_quant_mcp.knowledge.facts.kinds",
    "vllm_quant_mcp.knowledge.facts.knowledge_base",
    "vllm_quant_mcp.knowledge.facts.predicates",
    "vllm_quant_mcp.knowledge.registry.store",
}

_PROBE = """
import json, sys
import vllm_quant_mcp.server.mcp.app as app
app.build_server(lambda: None)
import vllm_quant_mcp.server.cli.main, vllm_quant_mcp.server.cli.serve
print(json.dumps(sorted(sys.modules)))
"""


def _modules_after_build() -> set[str]:
    out = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, check=True, timeout=120)
    return set(json.loads(out.stdout))


def test_building_the_server_imports_no_heavy_package() -> None:
    loaded = _modules_after_build()
    assert sorted(m for m in loaded if m.split(".")[0] in HEAVY_PACKAGES) == []


def test_building_the_server_leaves_the_knowledge_base_and_store_unloaded() -> None:
    loaded = _modules_after_build()
    assert sorted(loaded & KNOWLEDGE_BASE_MODULES) == []
