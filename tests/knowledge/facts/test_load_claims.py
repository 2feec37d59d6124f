"""Curated load-time claims follow the call path: no refusal the load path never reaches, no unmerged PR as evidence.

The fp8 gate once said Fp8Config refuses a BF16 checkpoint; the raise exists, but get_quant_config
redirects that input to fp8_per_tensor first, and the gate cited an open PR. These tests hold the
bundled data to the derived load_refusals (the source) and to the recorded PR states.
"""

from __future__ import annotations

import re
from importlib import resources

import pytest
import yaml

from vllm_quant_mcp.knowledge.facts.kinds import Method, VersionGate
from vllm_quant_mcp.knowledge.facts.knowledge_base import (
    FILES,
    KnowledgeBase,
    KnowledgeDataError,
    load_knowledge,
    parse_knowledge,
)
from vllm_quant_mcp.knowledge.registry.bundle import bundled_tags, read_bundled
from vllm_quant_mcp.knowledge.registry.model import LoadRefusal
from vllm_quant_mcp.knowledge.tags import tag_key

# Words that claim vLLM stops on the input: a refusal, a raise, a failure to load.
REFUSES = re.compile(
    r"\b(refuse[sd]?|reject(s|ed)?|no longer supports?|fails? (to load|at startup|while)|raises? \w*Error|"
    r"ValueError|fails)\b",
    re.IGNORECASE,
)


def _texts() -> dict[str, str]:
    folder = resources.files("vllm_quant_mcp.knowledge.facts.data")
    return {name: (folder / name).read_text(encoding="utf-8") for name in FILES}


# How a sentence names the input a redirect takes away from the raise: a 16-bit checkpoint quantized online.
UNQUANTIZED_INPUT = ("online", "bf16", "fp16", "unserialized", "unquantized", "without a quantization config")


def _unreached() -> list[tuple[str, LoadRefusal, set[str]]]:
    """Every derived refusal the load path does not reach, with its tag and the config classes that raise it."""
    found = []
    for tag in bundled_tags():
        registry = read_bundled(tag)
        assert registry is not None
        for r in registry.load_refusals:
            if r.outcome == "refused" and not r.reached:
                classes = {m.config_class for m in registry.quantization_methods if m.name in r.methods}
                found.append((tag, r, {c for c in classes if c}))
    return found


def _claims_about(kb: KnowledgeBase, method: str, tag: str) -> list[tuple[str, str]]:
    """(fact id, text) of the gates in force at `tag` and the method notes that speak of `method`."""
    out: list[tuple[str, str]] = []
    for gate in kb.version_gates:
        in_force = tag_key(gate.version) <= tag_key(tag) and (gate.until is None or tag_key(tag) < tag_key(gate.until))
        if in_force and any(a.name == method for a in gate.affects):
            out.append((gate.id, f"{gate.change} {gate.action}"))
    out += [(m.id, " ".join(m.notes)) for m in kb.methods if m.name == method and m.applies_at(tag)]
    return out


def refusals_the_path_skips(kb: KnowledgeBase) -> list[str]:
    """Sentences that claim a refusal for an input whose load path, per the source, never reaches the raise.

    The input is named by the raising config class or as an unquantized/online checkpoint; a sentence
    about another input of the same method (fp8 with targets, which the redirect does reach) is not
    about this raise. A sentence may name the raise only to say it is not reached.
    """
    found = []
    for tag, refusal, classes in _unreached():
        words = (*UNQUANTIZED_INPUT, *(c.lower() for c in classes))
        for method in refusal.methods:
            for fact_id, text in _claims_about(kb, method, tag):
                for sentence in re.split(r"(?<=[.;])\s+", " ".join(text.split())):
                    about = any(w in sentence.lower() for w in words)
                    if about and REFUSES.search(sentence) and "not reached" not in sentence:
                        found.append(f"{fact_id} at {tag}: {sentence}")
    return found


def test_derived_refusals_include_one_the_load_path_skips() -> None:
    assert any(r.methods == ["fp8"] and r.decided_by is not None for _, r, _ in _unreached())


def test_no_gate_or_method_note_claims_a_refusal_the_load_path_never_reaches() -> None:
    assert refusals_the_path_skips(load_knowledge()) == []


def test_the_old_fp8_gate_text_is_caught_as_a_refusal_the_path_skips() -> None:
    kb = load_knowledge()
    old = VersionGate(
        id="gate-old-fp8",
        version="v0.31.0",
        change="--quantization fp8 stopped quantizing BF16 checkpoints online; Fp8Config now refuses an unserialized "
        "checkpoint with a ValueError.",
        affects=[{"kind": "flag_value", "name": "fp8", "flag": "--quantization"}],
        action="Use fp8_per_tensor.",
        breaking=True,
        citations=[{"kind": "source", "path": "vllm/model_executor/layers/quantization/fp8.py", "symbol": "Fp8Config",
                    "tag": "v0.31.0"}],
    )  # fmt: skip
    with_old = kb.model_copy(update={"version_gates": [*kb.version_gates, old]})
    assert [s for s in refusals_the_path_skips(with_old) if s.startswith("gate-old-fp8 at v0.31.0")]


def test_fp8_gate_and_method_note_say_deprecated_and_redirected_citing_get_quant_config() -> None:
    kb = load_knowledge()
    gate = next(g for g in kb.version_gates if g.id == "gate-v0.31.0-fp8-not-online")
    method: Method = next(m for m in kb.methods if m.name == "fp8")
    phrase = "deprecated; redirected to fp8_per_tensor"
    assert phrase in " ".join(gate.change.split()) and gate.breaking is False
    assert any(phrase in note for note in method.notes)
    for fact in (gate, method):
        assert any(getattr(c, "symbol", None) == "get_quant_config" for c in fact.citations), fact.id
        assert any(p.key == "load_outcome" for p in fact.predicates), fact.id


def test_no_claim_cites_a_pr_the_data_does_not_record_merged() -> None:
    kb = load_knowledge()
    merged = {pr.number for pr in kb.pull_requests if pr.state == "merged"}
    cited = {c.number for kind, f in kb.facts() if kind != "pull_requests" for c in f.citations if c.kind == "pr"}
    assert cited and cited <= merged
    assert {pr.number: pr.state for pr in kb.pull_requests}[53585] == "open"


@pytest.mark.parametrize("number", [53585, 99999])
def test_a_claim_citing_an_open_or_unrecorded_pr_fails_to_load_naming_it(number: int) -> None:
    texts = _texts()
    gates = yaml.safe_load(texts["version_gates.yaml"])
    gates[0]["citations"].append({"kind": "pr", "number": number})
    texts["version_gates.yaml"] = yaml.safe_dump(gates)
    with pytest.raises(KnowledgeDataError, match=rf"{gates[0]['id']} cites PR #{number}.*cite the source lines"):
        parse_knowledge(texts)
