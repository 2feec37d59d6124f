"""JsonSizes: the length of a term's JSON from its parts', as serializing it whole gives, shared subtrees and all."""

from __future__ import annotations

from vllm_quant_mcp.knowledge.extract.loading.replay import JsonSizes
from vllm_quant_mcp.knowledge.registry.loading import Term


def test_each_term_measures_as_its_json_does_and_a_subtree_shared_twice_is_measured_once_for_both() -> None:
    config = Term(op="config")
    bits = Term(op="get", value=["bits", "w_bit"], args=[config, Term(op="const", value=4)])
    shared = Term(op="cmp", value="==", args=[bits, Term(op="const", value=8)])
    terms = [
        config,
        Term(op="const", value=None),
        Term(op="const", value='é " \\ \n'),  # escaped and beyond ASCII
        Term(op="const", value={"group_size": 128, "desc_act": [True, False]}),
        Term(op="unknown", value="a function with more exits than this replay follows"),
        bits,
        shared,
        Term(op="if", args=[shared, Term(op="seq", args=[shared, bits]), Term(op="next")]),
    ]
    sizes = JsonSizes()
    for term in terms:
        assert sizes.of(term) == len(term.model_dump_json()), term.model_dump_json()
    assert sizes.of(terms[-1]) == len(terms[-1].model_dump_json())  # again, from what it measured before
