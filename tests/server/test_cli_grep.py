"""The CLI's fast grep answers exactly what the generated CLI prints (the tool's renderer, flags spelled for the
shell), and leaves everything else to the full CLI."""

from __future__ import annotations

from pathlib import Path

import pytest

from vllm_quant_mcp.knowledge.registry.store import Store
from vllm_quant_mcp.knowledge.search.loading import index_for
from vllm_quant_mcp.server.cli.grep import grep
from vllm_quant_mcp.server.cli.main import build_parser
from vllm_quant_mcp.server.cli.output import human_text
from vllm_quant_mcp.server.entry import main
from vllm_quant_mcp.server.toolsets import all_specs
from vllm_quant_mcp.tools.grep_vllm_source.models import GrepQuery
from vllm_quant_mcp.tools.grep_vllm_source.tool import grep_tree


@pytest.mark.parametrize(
    ("argv", "query"),
    [
        (["QuantizationMethods"], {"pattern": "QuantizationMethods"}),
        (["^import ", "--max-results", "3"], {"pattern": "^import ", "max_results": 3}),
        (
            ["get_min_capability", "-C", "2", "--path-glob", "vllm/model_executor/**"],
            {"pattern": "get_min_capability", "context": 2, "path_glob": "vllm/model_executor/**"},
        ),
        (["NVFP4", "-i", "--max-results", "5"], {"pattern": "NVFP4", "ignore_case": True, "max_results": 5}),
        (["get_min_capability(cls)", "-F"], {"pattern": "get_min_capability(cls)", "fixed_string": True}),
    ],
)
def test_fast_grep_prints_what_the_tools_renderer_prints(
    cache_with_tree: Path,
    argv: list[str],
    query: dict[str, object],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("VLLM_QUANT_MCP_CACHE_DIR", str(cache_with_tree))
    assert grep([*argv, "--tag", "v0.32.0"]) == 0
    tree = Store(cache_with_tree).source_tree("v0.32.0")
    result = grep_tree(tree, index_for(tree), GrepQuery(**query))  # type: ignore[arg-type]
    spec = next(s for s in all_specs() if s.name == "grep_vllm_source")
    spell = build_parser().parse_args(["grep", "x"]).spell
    assert capsys.readouterr().out == human_text(spec, result, spell) + "\n"


@pytest.mark.parametrize(
    "argv",
    [
        ["x", "--tag", "v0.32.0", "--json"],  # a flag it does not handle
        ["x"],  # no tag named: the default-tag rules are the full CLI's
        ["x", "--tag", "v0.31.0"],  # not refreshed into this cache
        ["(unclosed", "--tag", "v0.32.0"],  # an error: the full CLI words it
        ["x", "--tag", "v0.32.0", "-C", "11"],  # out of the query model's bounds
    ],
)
def test_fast_grep_leaves_other_cases_to_the_generated_cli(
    cache_with_tree: Path, argv: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VLLM_QUANT_MCP_CACHE_DIR", str(cache_with_tree))
    monkeypatch.delenv("VLLM_QUANT_MCP_TAG", raising=False)
    assert grep(argv) is None


def test_the_cli_reports_a_bad_pattern_through_the_generated_path(
    cache_with_tree: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("VLLM_QUANT_MCP_CACHE_DIR", str(cache_with_tree))
    assert main(["grep", "(unclosed", "--tag", "v0.32.0"]) == 2
    err = capsys.readouterr().err
    assert "--fixed-string" in err and "fixed_string" not in err
