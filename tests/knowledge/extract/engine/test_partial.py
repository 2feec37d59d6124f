"""A partial parse: the module-level statements around some offsets, at their places in the file, or none."""

from __future__ import annotations

import tree_sitter

from vllm_quant_mcp.knowledge.extract.engine.language import parser
from vllm_quant_mcp.knowledge.extract.engine.partial import parse_statements, statement_ranges

SOURCE = b'''"""A module."""
import os

LIMIT = 4


class Checks:
    def refuse(self, x):
        if x > LIMIT:
            raise ValueError(
                "too big"
            )
        return x
try:
    import fast
except ImportError:
    fast = None


def unrelated():
    return [
        1,
]
'''


def _raise_lines(tree_root: tree_sitter.Node) -> list[int]:
    found: list[int] = []
    stack = [tree_root]
    while stack:
        node = stack.pop()
        if node.type == "raise_statement":
            found.append(node.start_point.row + 1)
        stack.extend(node.children)
    return found


def test_only_the_statement_holding_an_offset_is_parsed_and_its_nodes_sit_where_they_are_in_the_file() -> None:
    ranges = statement_ranges(SOURCE, [SOURCE.index(b"raise")])
    assert [SOURCE[a:b].splitlines()[0] for a, b in ranges] == [b"class Checks:"]
    tree = parse_statements(SOURCE, ranges)
    assert tree is not None
    assert _raise_lines(tree.root_node) == _raise_lines(parser().parse(SOURCE).root_node) == [10]
    assert b"unrelated" not in tree.root_node.text and b"import os" not in tree.root_node.text


def test_a_clause_at_column_zero_stays_with_its_statement_and_a_closing_bracket_with_its_expression() -> None:
    (try_block,) = statement_ranges(SOURCE, [SOURCE.index(b"fast = None")])
    assert SOURCE[slice(*try_block)].startswith(b"try:") and b"except ImportError" in SOURCE[slice(*try_block)]
    (function,) = statement_ranges(SOURCE, [SOURCE.index(b"1,")])
    assert SOURCE[slice(*function)].rstrip().endswith(b"]")


def test_neighbouring_statements_are_joined_into_one_range() -> None:
    ranges = statement_ranges(SOURCE, [SOURCE.index(b"LIMIT = 4"), SOURCE.index(b"import os")])
    assert len(ranges) == 1 and SOURCE[slice(*ranges[0])] == b"import os\n\nLIMIT = 4\n\n\n"


def test_a_line_of_a_string_at_column_zero_cuts_the_string_open_and_there_is_no_partial_tree() -> None:
    source = b'def f():\n    text = """\nraise ValueError(\'in a string\')\n"""\n    raise RuntimeError("real")\n'
    ranges = statement_ranges(source, [source.index(b"raise RuntimeError")])
    assert parse_statements(source, ranges) is None  # the caller parses the whole file instead
