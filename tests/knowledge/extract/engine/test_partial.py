"""Partial parses: a file's statements read from its bytes, parsed on their own at their places in the file."""

from __future__ import annotations

import tree_sitter

from vllm_quant_mcp.knowledge.extract.engine.language import parse_ranges, parser
from vllm_quant_mcp.knowledge.extract.engine.partial import class_members, module_statements

SOURCE = b'''"""A module.

Its docstring has lines at column zero, as module docstrings do.
"""
import os

LIMIT = 4


@register
class Checks(
    Base,
):
    """Checks.
    """

    depth = 2

    @classmethod
    def refuse(cls, x):
        if x > LIMIT:
            raise ValueError(
                "too big"
            )
        return x

    def other(self):
        return 1
try:
    import fast
except ImportError:
    fast = None


def unrelated():
    return [
        1,
]
'''


def _text(statement_range: tuple[int, int]) -> bytes:
    return SOURCE[statement_range[0] : statement_range[1]]


def _raise_lines(root: tree_sitter.Node) -> list[int]:
    found: list[int] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "raise_statement":
            found.append(node.start_point.row + 1)
        stack.extend(node.children)
    return found


def test_module_statements_are_told_apart_from_bytes_with_decorators_docstrings_and_clauses_kept_whole() -> None:
    statements = module_statements(SOURCE)
    assert statements is not None
    shown = [(s.kind, s.name, _text((s.start, s.end)).split(b"\n")[0]) for s in statements]
    assert shown == [
        ("other", None, b'"""A module.'),  # its column-zero line starts nothing: the string is open there
        ("other", None, b"import os"),
        ("other", None, b"LIMIT = 4"),
        ("class", "Checks", b"@register"),  # from its decorator
        ("other", None, b"try:"),  # `except` continues it
        ("function", "unrelated", b"def unrelated():"),
    ]
    assert _text((statements[-1].start, statements[-1].end)).rstrip().endswith(b"]")  # a closing bracket continues


def test_a_class_is_split_into_its_header_and_members_which_parse_at_their_places_in_the_file() -> None:
    statements = module_statements(SOURCE)
    assert statements is not None
    split = class_members(SOURCE, statements[3])
    assert split is not None
    header, members = split
    assert _text(header) == b"@register\nclass Checks(\n    Base,\n):\n"
    assert [_text((m.start, m.end)).split(b"\n")[0].strip() for m in members] == [
        b'"""Checks.',
        b"depth = 2",
        b"@classmethod",
        b"def other(self):",
    ]
    refuse = members[2]
    assert (refuse.kind, refuse.name) == ("function", "refuse")
    tree = parse_ranges(SOURCE, [header, (refuse.start, refuse.end)])
    assert tree is not None
    assert _raise_lines(tree.root_node) == _raise_lines(parser().parse(SOURCE).root_node) == [22]
    (checks,) = tree.root_node.named_children
    assert b"def other" not in checks.text and b"import os" not in tree.root_node.text


def test_a_string_cut_open_by_a_column_zero_line_gives_no_statements_or_no_tree() -> None:
    inside_a_function = b'def f():\n    text = """\nraise ValueError("in a string")\n"""\n    raise RuntimeError\n'
    assert module_statements(inside_a_function) is None  # a range would hold an odd number of triple quotes
    assert parse_ranges(inside_a_function, [(0, inside_a_function.index(b"raise ValueError"))]) is None


def _spans(node: tree_sitter.Node) -> list[tuple[str, int, tuple[int, int], tuple[int, int]]]:
    found, pending = [], [node]
    while pending:
        node = pending.pop()
        found.append((node.type, node.start_byte, tuple(node.start_point), tuple(node.end_point)))
        pending.extend(node.children)
    return found


def test_parts_far_into_a_long_file_stand_at_the_rows_and_columns_a_whole_parse_gives() -> None:
    source = b"".join(
        b"def f%d(x):\n    # a comment\n    if x > %d:\n        raise ValueError('too big: %%s' %% x)\n\n\n" % (i, i)
        for i in range(600)
    )  # 50 kB: rows are counted across many blocks
    statements = module_statements(source)
    assert statements is not None and len(statements) == 600
    whole = _spans(parser().parse(source).root_node)
    for picked in ([statements[1], statements[299], statements[599]], [statements[450]]):
        tree = parse_ranges(source, [(s.start, s.end) for s in picked])
        assert tree is not None
        parts = [span for span in _spans(tree.root_node) if span[0] != "module"]
        assert parts and all(span in whole for span in parts)
