"""Imports run one way: server -> tools -> knowledge, and inside knowledge in data-flow order.

Read from the source with `ast` (function-level imports included, since a lazy import is
still a dependency), so the contract holds whatever the import order at run time. An
imported name that is itself a module (`from vllm_quant_mcp.tools import other`,
`from .. import other`) counts as an import of that module. The checker runs on a mapping
of module names to source text, so the planted-violation tests below feed it the real tree
with one bad module added and see each caught.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from functools import cache, cached_property

import pytest
from support.paths import REPO

PACKAGE = "vllm_quant_mcp"
TOPS = ("knowledge", "tools", "server")
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
# support-matrix, load-resolution, kernel and CUDA-arch models and the entry base they share), and a source
# tree parses its files, whole or some of their statements, with the one tree-sitter parser (lazily, on first use).
DECLARED = {
    ("knowledge.extract", "knowledge.registry.model"),
    ("knowledge.extract", "knowledge.registry.matrix"),
    ("knowledge.extract", "knowledge.registry.loading"),
    ("knowledge.extract", "knowledge.registry.kernels"),
    ("knowledge.extract", "knowledge.registry.cuda_archs"),
    ("knowledge.extract", "knowledge.registry.entry"),
    ("knowledge.sources.tree", "knowledge.extract.engine.language"),
}
TOOL_SHARED = {"context", "spec", "paging"}  # tools/*.py every tool package may use
CLI_ONLY = {"argparse", "rich"}  # the CLI library and its terminal output: server/cli/ alone knows them


@dataclass(frozen=True)
class Tree:
    """Module name (without the package prefix) -> source text; `packages` are the ones that are folders."""

    sources: dict[str, str]
    packages: frozenset[str] = field(default_factory=frozenset)

    def with_module(self, module: str, source: str) -> Tree:
        return Tree({**self.sources, module: source}, self.packages)

    @cached_property
    def imports(self) -> dict[str, set[str]]:
        """Every module -> the modules it imports."""
        return {module: _imports_of(self, module) for module in self.sources}


@cache
def tree_on_disk() -> Tree:
    sources, packages = {}, set()
    for top in TOPS:
        for path in (REPO / top).rglob("*.py"):
            parts = list(path.relative_to(REPO).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
                packages.add(".".join(parts))
            sources[".".join(parts)] = path.read_text(encoding="utf-8")
    return Tree(sources, frozenset(packages))


@cache
def _import_nodes(source: str) -> tuple[ast.Import | ast.ImportFrom, ...]:
    return tuple(n for n in ast.walk(ast.parse(source)) if isinstance(n, (ast.Import, ast.ImportFrom)))


def _imports_of(tree: Tree, module: str) -> set[str]:
    """The modules `module` imports: ours without the package prefix, others as written."""
    package = module if module in tree.packages else module.rpartition(".")[0]
    known = tree.sources.keys()
    targets: set[str] = set()
    for node in _import_nodes(tree.sources[module]):
        if isinstance(node, ast.Import):
            targets.update(a.name.removeprefix(f"{PACKAGE}.") for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([node.module] if node.module else []))
            elif node.module == PACKAGE:
                base = ""
            elif node.module:
                base = node.module.removeprefix(f"{PACKAGE}.")
            else:
                continue
            names = [f"{base}.{a.name}" if base else a.name for a in node.names]
            submodules = [n for n in names if n in known]  # `from pkg import module`: the module is imported
            targets.update(submodules or ([base] if base else []))
            if base and len(submodules) < len(names):
                targets.add(base)  # names that are not modules come from the package itself
    return targets


def _role(module: str) -> str:
    head = module.split(".")[1] if module.count(".") else ""
    return "base" if head in BASE else head


def _declared(source: str, target: str) -> bool:
    return any(source.startswith(a) and (target == b or target.startswith(b + ".")) for a, b in DECLARED)


def knowledge_breaks(tree: Tree) -> list[str]:
    wrong = []
    for source, targets in tree.imports.items():
        if not source.startswith("knowledge."):
            continue
        for target in targets:
            if target.split(".")[0] in ("tools", "server", "mcp"):
                wrong.append(f"{source} -> {target}")
            elif target.startswith("knowledge."):
                mine, theirs = _role(source), _role(target)
                if theirs != mine and theirs not in KNOWLEDGE_ROLES[mine] and not _declared(source, target):
                    wrong.append(f"{source} ({mine}) -> {target} ({theirs})")
    return sorted(wrong)


def tools_upward_breaks(tree: Tree) -> list[str]:
    return sorted(
        f"{source} -> {target}"
        for source, targets in tree.imports.items()
        if source.startswith("tools.")
        for target in targets
        if target.split(".")[0] in ("server", "mcp")
    )


def _depends_on(tree: Tree, tool: str) -> set[str]:
    for node in ast.parse(tree.sources.get(f"tools.{tool}", "")).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "DEPENDS_ON" for t in node.targets):
            return set(ast.literal_eval(node.value))
    return set()


def tool_packages(tree: Tree) -> list[str]:
    return sorted(p.split(".")[1] for p in tree.packages if p.startswith("tools.") and p.count(".") == 1)


def sideways_breaks(tree: Tree, tool: str) -> list[str]:
    """Imports from tools/<tool>/ of another tool package it does not declare in DEPENDS_ON."""
    allowed = {tool, *TOOL_SHARED, *_depends_on(tree, tool)}
    return sorted(
        f"{source} -> {target}"
        for source, targets in tree.imports.items()
        if source == f"tools.{tool}" or source.startswith(f"tools.{tool}.")
        for target in targets
        if target.startswith("tools.") and target.split(".")[1] not in allowed
    )


def banned_breaks(tree: Tree) -> list[str]:
    """vllm anywhere (its source is data, never imported); argparse or rich outside server/cli/."""
    wrong = []
    for source, targets in tree.imports.items():
        for target in targets:
            top = target.split(".")[0]
            if top == "vllm" or (top in CLI_ONLY and not source.startswith("server.cli")):
                wrong.append(f"{source} -> {target}")
    return sorted(wrong)


def all_breaks(tree: Tree) -> list[str]:
    sideways = [b for tool in tool_packages(tree) for b in sideways_breaks(tree, tool)]
    return sorted({*knowledge_breaks(tree), *tools_upward_breaks(tree), *sideways, *banned_breaks(tree)})


def test_knowledge_imports_neither_tools_nor_server_and_its_roles_follow_the_data_flow() -> None:
    assert knowledge_breaks(tree_on_disk()) == []


def test_every_knowledge_folder_has_a_role_in_the_contract() -> None:
    folders = {p.name for p in (REPO / "knowledge").iterdir() if (p / "__init__.py").is_file()}
    assert folders <= set(KNOWLEDGE_ROLES) - {"base"}, folders - set(KNOWLEDGE_ROLES)


def test_tools_import_neither_server_nor_mcp() -> None:
    assert tools_upward_breaks(tree_on_disk()) == []


@pytest.mark.parametrize("tool", tool_packages(tree_on_disk()))
def test_a_tool_package_imports_no_other_tool_package_but_those_it_declares(tool: str) -> None:
    assert sideways_breaks(tree_on_disk(), tool) == []


def test_nothing_imports_vllm_and_only_the_cli_edge_knows_argparse_or_rich() -> None:
    assert banned_breaks(tree_on_disk()) == []


# Each a module planted into the real tree, importing what its place forbids: issue 21's sixteen (the checker before
# it caught the first eight), and argparse or rich at the two edges that are not the CLI.
PLANTED: dict[str, tuple[str, str]] = {
    "knowledge imports a tool": ("knowledge.hub.planted", "import vllm_quant_mcp.tools.pick_format.tool"),
    "knowledge imports the server": ("knowledge.hub.planted", "from vllm_quant_mcp.server.cli import main"),
    "knowledge imports mcp": ("knowledge.deploy.planted", "import mcp"),
    "a source imports the registry store": (
        "knowledge.sources.planted",
        "from vllm_quant_mcp.knowledge.registry.store import Store",
    ),
    "the hub imports facts, relatively": ("knowledge.hub.planted", "from ..facts import kinds"),
    "a tool imports the server": ("tools.list_tags.planted", "from vllm_quant_mcp.server.runtime import make_context"),
    "a tool imports mcp": ("tools.list_tags.planted", "from mcp.server import MCPServer"),
    "a tool imports another's module": (
        "tools.list_tags.planted",
        "from vllm_quant_mcp.tools.get_registry.tool import get_registry",
    ),
    "a tool imports another tool package by name": (
        "tools.list_tags.planted",
        "from vllm_quant_mcp.tools import get_registry",
    ),
    "a tool imports another tool package relatively": ("tools.list_tags.planted", "from .. import get_registry"),
    "the hub imports support by name": ("knowledge.hub.planted", "from vllm_quant_mcp.knowledge import support"),
    "a tool imports the server by name": ("tools.list_tags.planted", "from vllm_quant_mcp import server"),
    "an extractor imports vllm": ("knowledge.extract.planted", "import vllm"),
    "a tool imports from vllm": (
        "tools.pick_format.planted",
        "from vllm.model_executor.layers.quantization import QUANTIZATION_METHODS",
    ),
    "a tool imports argparse": ("tools.render_serve_cmd.planted", "import argparse"),
    "knowledge imports rich": ("knowledge.deploy.planted", "from rich.console import Console"),
    "the MCP edge imports argparse": ("server.mcp.planted", "import argparse"),
    "the HTTP edge imports rich": ("server.http.planted", "def f() -> None:\n    import rich.table"),
}


@pytest.mark.parametrize("case", sorted(PLANTED))
def test_each_planted_violation_is_caught_and_named(case: str) -> None:
    module, source = PLANTED[case]
    clean = tree_on_disk()
    caught = set(all_breaks(clean.with_module(module, source))) - set(all_breaks(clean))
    assert caught and all(b.startswith(f"{module} ") for b in caught), caught
