"""A module's index from a partial parse: the names a whole parse finds, each definition parsed when first asked."""

from __future__ import annotations

from pathlib import Path

from support.releases import release_tree

from vllm_quant_mcp.knowledge.extract.engine.modules import Modules
from vllm_quant_mcp.knowledge.extract.engine.syntax import module_assignments
from vllm_quant_mcp.knowledge.sources.tree import SourceTree

MODULE = '''"""Kernels.

Column-zero docstring text.
"""
from vllm.platforms import current_platform

LIMIT = 4


def small():
    return LIMIT


@register
class Big:
    def run(self):
        return small()
'''


def _modules(tmp_path: Path, text: str) -> Modules:
    (tmp_path / "vllm").mkdir()
    (tmp_path / "vllm" / "kernels.py").write_text(text, encoding="utf-8")
    return Modules(SourceTree(tmp_path, "v9.9.9"))


def test_a_definition_is_parsed_only_when_asked_for_and_sits_where_the_file_has_it(tmp_path: Path) -> None:
    modules = _modules(tmp_path, MODULE)
    index = modules.index("vllm/kernels.py")
    assert index is not None
    assert modules.tree.parsed_tree("vllm/kernels.py") is None  # no whole parse
    assert list(index.functions) == ["small"] and "Big" in index.classes and "run" not in index.functions
    assert index.imports == {"current_platform": ("vllm.platforms", "current_platform")}
    assert index.assignment("LIMIT") is not None and index.assignment("LIMIT").text == b"4"
    big = index.classes["Big"]
    assert big.type == "class_definition" and big.start_point.row + 1 == MODULE.splitlines().index("class Big:") + 1
    assert b"def small" not in big.parent.parent.text  # the class's tree holds its own lines only
    assert modules.tree.parsed_tree("vllm/kernels.py") is None


def test_a_module_whose_lines_cannot_be_told_apart_is_parsed_whole(tmp_path: Path) -> None:
    cut = 'def f():\n    text = """\ndef phantom():\n"""\n    return text\n'
    modules = _modules(tmp_path, cut)
    index = modules.index("vllm/kernels.py")
    assert index is not None and list(index.functions) == ["f"]  # `phantom` is text in a string
    assert modules.tree.parsed_tree("vllm/kernels.py") is not None


def test_on_every_module_of_a_release_the_partial_index_equals_the_whole_parse_index() -> None:
    release = release_tree("0.9.2")
    partial, whole = Modules(SourceTree(release.root, release.tag)), Modules(SourceTree(release.root, release.tag))
    paths = whole.tree.glob("vllm/**/*.py")
    in_part = 0
    for path in paths:
        whole.tree.parse(path)  # parsed whole already: this index reads that tree
        a, b = partial.index(path), whole.index(path)
        assert a is not None and b is not None
        in_part += partial.tree.parsed_tree(path) is None
        assert (list(a.functions), list(a.classes), a.imports) == (list(b.functions), list(b.classes), b.imports), path
        for mine, theirs in ((a.functions, b.functions), (a.classes, b.classes)):
            for name, node in theirs.items():
                assert (mine[name].start_byte, mine[name].end_byte, mine[name].type) == (
                    node.start_byte,
                    node.end_byte,
                    node.type,
                ), f"{path}: {name}"
        assert {k: v.start_byte for k, v in module_assignments(a.head).items()} == {
            k: v.start_byte for k, v in module_assignments(b.head).items()
        }, path
    assert len(paths) > 800 and in_part >= len(paths) - 5  # nearly every module is indexed from its parts
