"""Syntax helpers on small snippets written here: a function's parameters, and a message as a reader sees it."""

from __future__ import annotations

import tree_sitter

from vllm_quant_mcp.knowledge.extract.engine.language import parser
from vllm_quant_mcp.knowledge.extract.engine.syntax import message, parameters, text


def _first(source: str) -> tree_sitter.Node:
    return parser().parse(source.encode()).root_node.named_children[0]


def test_parameters_are_the_names_a_caller_binds_in_order_each_with_its_default() -> None:
    function = _first("@classmethod\ndef f(cls, a, b: int, c=1, d: int = 2, *args: int, e=3, **kwargs):\n    pass\n")
    found = [(name, text(default) if default is not None else None) for name, default in parameters(function)]
    assert found == [("cls", None), ("a", None), ("b", None), ("c", "1"), ("d", "2"), ("e", "3")]


def test_a_message_in_triple_quoted_f_string_ends_at_its_closing_quotes() -> None:
    raised = _first('raise ValueError(f"""{kv} needs   sm100""")\n')
    argument = raised.named_children[0].child_by_field_name("arguments").named_children[0]
    assert message(argument) == "{kv} needs sm100"


def test_a_message_joins_its_pieces_and_keeps_f_string_fields_as_written() -> None:
    raised = _first("raise ValueError('plain ' f'{kv!r} is not'\n    ' supported')\n")
    argument = raised.named_children[0].child_by_field_name("arguments").named_children[0]
    assert message(argument) == "plain {kv!r} is not supported"
