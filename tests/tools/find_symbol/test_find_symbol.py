from __future__ import annotations

import pytest
from pydantic import ValidationError

from vllm_quant_mcp.knowledge.search.index import SearchIndex
from vllm_quant_mcp.knowledge.sources.tree import SourceTree
from vllm_quant_mcp.tools.find_symbol.models import SymbolQuery
from vllm_quant_mcp.tools.find_symbol.tool import UnknownSymbolError, find_in_tree


def line_of(tree: SourceTree, path: str, prefix: str, after: int = 0) -> int:
    """1-based number of the first line after line `after` that starts with `prefix` (indent ignored)."""
    lines = (tree.root / path).read_text(encoding="utf-8").split("\n")
    return next(n for n, text in enumerate(lines, 1) if n > after and text.lstrip().startswith(prefix))


def test_find_symbol_locates_the_cache_dtype_literal(tree: SourceTree, index: SearchIndex) -> None:
    result = find_in_tree(tree, index, SymbolQuery(name="CacheDType"))
    where = {(d.path, d.line, d.kind) for d in result.definitions}
    assert ("vllm/config/cache.py", line_of(tree, "vllm/config/cache.py", "CacheDType ="), "variable") in where
    assert result.tag == "v0.32.0"


def test_find_symbol_resolves_class_dot_method(tree: SourceTree, index: SearchIndex) -> None:
    path = "vllm/model_executor/layers/quantization/fp8.py"
    class_line = line_of(tree, path, "class Fp8Config(")
    result = find_in_tree(tree, index, SymbolQuery(name="Fp8Config.get_min_capability"))
    [found] = result.definitions
    assert (found.path, found.line, found.kind) == (
        path,
        line_of(tree, path, "def get_min_capability", class_line),
        "function",
    )
    assert found.qualified_name == "Fp8Config.get_min_capability"
    assert found.permalink.endswith(f"/blob/v0.32.0/{path}#L{found.line}")


def test_find_symbol_finds_quantization_methods_in_the_quantization_package(
    tree: SourceTree, index: SearchIndex
) -> None:
    path = "vllm/model_executor/layers/quantization/__init__.py"
    result = find_in_tree(tree, index, SymbolQuery(name="QuantizationMethods", kind="variable"))
    assert (path, line_of(tree, path, "QuantizationMethods = Literal")) in {
        (d.path, d.line) for d in result.definitions
    }


def test_find_symbol_finds_a_class_by_name(tree: SourceTree, index: SearchIndex) -> None:
    path = "vllm/model_executor/layers/quantization/fp8.py"
    result = find_in_tree(tree, index, SymbolQuery(name="Fp8Config", kind="class"))
    assert [(d.path, d.line) for d in result.definitions] == [(path, line_of(tree, path, "class Fp8Config("))]


def test_find_symbol_wrong_kind_says_which_kind_it_is(tree: SourceTree, index: SearchIndex) -> None:
    with pytest.raises(UnknownSymbolError, match="only as variable"):
        find_in_tree(tree, index, SymbolQuery(name="CacheDType", kind="class"))


def test_find_symbol_unknown_name_lists_near_names(tree: SourceTree, index: SearchIndex) -> None:
    with pytest.raises(UnknownSymbolError, match="CacheDType"):
        find_in_tree(tree, index, SymbolQuery(name="CacheDtype"))


@pytest.mark.parametrize("name", ["", "Fp8Config..x", "os.system('x')", "a b", "1abc"])
def test_symbol_query_rejects_names_that_are_not_dotted_identifiers(name: str) -> None:
    with pytest.raises(ValidationError):
        SymbolQuery(name=name)


def test_find_symbol_caps_a_common_name_and_says_there_are_more(tree: SourceTree, index: SearchIndex) -> None:
    result = find_in_tree(tree, index, SymbolQuery(name="forward", max_results=5))
    assert len(result.definitions) == 5 and result.truncated
    assert all(d.qualified_name.split(".")[-1] == "forward" for d in result.definitions)
