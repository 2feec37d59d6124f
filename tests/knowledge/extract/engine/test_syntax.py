"""Syntax helpers on small snippets written here (a function's parameters, a message as a reader sees it), and
literal values against `ast.literal_eval` on every literal, name, call and container of real release files, and
queries over the bytes around their words against the same queries over the whole file."""

from __future__ import annotations

import ast
from collections.abc import Iterator

import pytest
import tree_sitter
from support.releases import release_tree

from vllm_quant_mcp.knowledge.extract.engine.language import parser
from vllm_quant_mcp.knowledge.extract.engine.syntax import (
    NotLiteral,
    literal,
    matches,
    message,
    parameters,
    span_of,
    text,
)


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


# What literal() reads from the parts, or refuses from the kind, without asking literal_eval; and some it asks.
_KINDS = {
    "tuple", "list", "dictionary", "concatenated_string", "string", "integer", "float", "identifier", "attribute",
    "call", "subscript", "unary_operator", "binary_operator", "conditional_expression", "true", "none",
}  # fmt: skip


def _nodes(node: tree_sitter.Node, types: set[str]) -> Iterator[tree_sitter.Node]:
    pending = [node]
    while pending:
        node = pending.pop()
        if node.type in types:
            yield node
        pending.extend(node.children)


def _evaluated(node: tree_sitter.Node) -> tuple[str, object]:
    try:
        return "value", literal(node)
    except NotLiteral:
        return "refused", None


def _reference(node: tree_sitter.Node) -> tuple[str, object]:
    """literal_eval of the text as it reads in place: in brackets, where strings side by side span lines."""
    try:
        return "value", ast.literal_eval(f"({text(node)})")
    except (ValueError, SyntaxError, TypeError):
        return "refused", None


def test_containers_and_joined_strings_read_as_literal_eval_reads_their_text() -> None:
    source = b"""X = (
    "a" "b",  # a comment in a tuple
    b"x" b"y",
    ["c", 1, -2, 3.5, None, True, ...],
    {"k": (1, 2), "k": [3]},
    {[1]: 2},
    ("a" f"{b}"),
    (*spread, 1),
    {**other},
    "s" b"t",
    r"\\d" "e",
    (),
    set(),
    set([1]),
    EngineArgs.tokenizer,
    int(ssl.CERT_NONE),
    name,
    x[1],
    -1,
    1 + 2j,
    a if b else c,
    [(((1))), {"z": {"y": ()}}],
)
"""
    root = parser().parse(source).root_node
    nodes = list(_nodes(root, _KINDS))
    assert len(nodes) >= 30
    for node in nodes:
        assert _evaluated(node) == _reference(node), text(node)
    assert _evaluated(nodes[0])[1] == _reference(nodes[0])[1]  # the outer tuple, every kind inside it
    assert sum(_evaluated(node)[0] == "refused" for node in nodes) >= 5


@pytest.mark.parametrize("version", ["0.4.0", "0.33.0"])
def test_every_container_of_the_model_registry_and_the_arg_parser_reads_as_literal_eval_reads_it(
    version: str,
) -> None:
    tree = release_tree(version)
    paths = [
        "vllm/model_executor/models/__init__.py",
        "vllm/model_executor/models/registry.py",
        "vllm/engine/arg_utils.py",
        "vllm/config.py",
        "vllm/envs.py",
    ]
    checked = 0
    for path in [p for p in paths if tree.exists(p)]:
        for node in _nodes(tree.parse(path).root_node, _KINDS):
            assert _evaluated(node) == _reference(node), f"{path}:{node.start_point.row + 1}"
            checked += 1
    assert checked > 120


def test_a_span_runs_from_the_first_word_found_to_the_end_of_the_last() -> None:
    data = b"a --kv x CacheDType y --kv z"
    assert span_of(data, (b"--kv", b"CacheDType")) == (2, 26)
    assert span_of(data, (b"absent",)) is None


@pytest.mark.parametrize(
    ("query_name", "words", "paths"),
    [
        (
            "kv_cache",
            (b"CacheDType", b"--kv-cache-dtype", b"register_kv_cache_dtype"),
            ("vllm/config/cache.py", "vllm/config.py", "vllm/engine/arg_utils.py"),
        ),
        ("quantization_choices", (b"--quantization",), ("vllm/engine/arg_utils.py",)),
    ],
)
def test_a_query_over_the_span_of_its_words_finds_what_it_finds_over_the_whole_file(
    query_name: str, words: tuple[bytes, ...], paths: tuple[str, ...]
) -> None:
    found = 0
    for version in ["0.4.0", "0.9.2", "0.33.0"]:
        tree = release_tree(version)
        for path in [p for p in paths if tree.exists(p)]:
            root = tree.parse(path).root_node
            span = span_of(tree.source(path), words)
            whole = [{k: [n.start_byte for n in v] for k, v in c.items()} for c in matches(query_name, root)]
            near = [] if span is None else list(matches(query_name, root, span=span))
            assert [{k: [n.start_byte for n in v] for k, v in c.items()} for c in near] == whole, (version, path)
            found += len(whole)
    assert found  # 0.4.0 lists both; kv_cache matches at every version
