"""Imports run one way: server -> tools -> knowledge, and inside knowledge in data-flow order.

Read from the source with `ast` (function-level imports included, since a lazy import is
still a dependency), so the contract holds whatever the import order at run time.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest
from support.paths import REPO

PACKAGE = "vllm_quant_mcp"
BASE = {"errors", "tags", "settings", "atomic", "bounded", "names", "progress", "echo", "redacted_logs", "healing"}

# Which knowledge roles each role may import, in the order data flows (DESIGN.md).
KNOWLEDGE_ROLES: dict[str, set[str]] = {
    "base": set(),
    "sources": {"base"},
    "extract": {"base", "sources"},
    "registry": {"base", "sources", "extract"},
    "search": {"base", "sources", "extract", "registry"},
    "facts": {"base", "sources", "registry"},
    "hub": {"base"},
    "deploy": {"base"},
    "github": {"base", "sources", "facts"},
    "support": {"base", "sources", "registry", "facts", "hub"},
}
# Declared exceptions, module to module: extractors produce the registry's entry models (the model, the
# support-matrix and load-resolution models and the entry base they share), and a source tree parses its
# files with the one tree-sitter parser (lazily, on first use).
DECLARED = {
    ("knowledge.extract", "knowledge.registry.model"),
    ("knowledge.extract", "knowledge.registry.matrix"),
    ("knowledge.extract", "knowledge.registry.loading"),
    ("knowledge.extract", "knowledge.registry.entry"),
    ("knowledge.sources.tree", "knowledge.extract.engine.language"),
}


def _module(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def imports() -> dict[str, set[str]]:
    """Every package module -> the modules it imports (ours without the package prefix, others as written)."""
    found: dict[str, set[str]] = {}
    for top in ("knowledge", "tools", "server"):
        for path in (REPO / top).rglob("*.py"):
            module = _module(path)
            package = module if path.name == "__init__.py" else module.rpartition(".")[0]
            targets = found.setdefault(module, set())
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Import):
                    targets.update(a.name.removeprefix(f"{PACKAGE}.") for a in node.names)
                elif isinstance(node, ast.ImportFrom) and node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    targets.add(".".join(base + ([node.module] if node.module else [])))
                elif isinstance(node, ast.ImportFrom) and node.module:
                    targets.add(node.module.removeprefix(f"{PACKAGE}."))
    return found


def _role(module: str) -> str:
    head = module.split(".")[1] if module.count(".") else ""
    return "base" if head in BASE else head


def _declared(source: str, target: str) -> bool:
    return any(source.startswith(a) and (target == b or target.startswith(b + ".")) for a, b in DECLARED)


def test_knowledge_imports_neither_tools_nor_server_and_its_roles_follow_the_data_flow() -> None:
    wrong = []
    for source, targets in imports().items():
        if not source.startswith("knowledge."):
            continue
        for target in targets:
            if target.split(".")[0] in ("tools", "server", "mcp"):
                wrong.append(f"{source} -> {target}")
            elif target.startswith("knowledge."):
                mine, theirs = _role(source), _role(target)
                if theirs != mine and theirs not in KNOWLEDGE_ROLES[mine] and not _declared(source, target):
                    wrong.append(f"{source} ({mine}) -> {target} ({theirs})")
    assert wrong == []


def test_every_knowledge_folder_has_a_role_in_the_contract() -> None:
    folders = {p.name for p in (REPO / "knowledge").iterdir() if (p / "__init__.py").is_file()}
    assert folders <= set(KNOWLEDGE_ROLES) - {"base"}, folders - set(KNOWLEDGE_ROLES)


def test_tools_import_neither_server_nor_mcp() -> None:
    wrong = [
        f"{source} -> {target}"
        for source, targets in imports().items()
        if source.startswith("tools.")
        for target in targets
        if target.split(".")[0] in ("server", "mcp")
    ]
    assert wrong == []


@pytest.mark.parametrize("tool", sorted(p.name for p in (REPO / "tools").iterdir() if (p / "__init__.py").is_file()))
def test_a_tool_package_imports_no_other_tool_package_but_those_it_declares(tool: str) -> None:
    init = (REPO / "tools" / tool / "__init__.py").read_text(encoding="utf-8")
    declared = set()
    for node in ast.parse(init).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "DEPENDS_ON" for t in node.targets):
            declared = set(ast.literal_eval(node.value))
    shared = {"context", "spec", "paging"}
    wrong = sorted(
        f"{source} -> {target}"
        for source, targets in imports().items()
        if source.startswith(f"tools.{tool}")
        for target in targets
        if target.startswith("tools.") and target.split(".")[1] not in {tool, *shared, *declared}
    )
    assert wrong == []
