"""The bundled knowledge data loads, is cited and ranged, and rejects malformed facts with named errors."""

from __future__ import annotations

import re
from importlib import resources

import pytest
import yaml

from vllm_quant_mcp.knowledge.facts.knowledge_base import FILES, KnowledgeDataError, load_knowledge, parse_knowledge
from vllm_quant_mcp.knowledge.tags import normalize_tag

REQUIRED_GPUS = {
    "h100", "h200", "b200", "b300", "gb200", "gb300", "a100", "l40s",
    "rtx-5090", "rtx-pro-6000", "gb10", "mi300x", "mi355x", "cpu",
}  # fmt: skip


def _texts() -> dict[str, str]:
    folder = resources.files("vllm_quant_mcp.knowledge.facts.data")
    return {name: (folder / name).read_text(encoding="utf-8") for name in FILES}


def test_every_data_file_loads_into_the_knowledge_base() -> None:
    kb = load_knowledge()
    for field in FILES.values():
        assert getattr(kb, field), f"{field} is empty"


def test_every_fact_has_a_citation_and_valid_range_tags() -> None:
    for _, fact in load_knowledge().facts():
        assert fact.citations
        for tag in (fact.since, fact.until):
            assert tag is None or normalize_tag(tag) == tag


def test_required_gpus_are_present_with_an_architecture_id() -> None:
    gpus = {g.id: g for g in load_knowledge().gpus}
    assert set(gpus) >= REQUIRED_GPUS
    assert (gpus["h200"].sm, gpus["b300"].sm, gpus["gb10"].sm, gpus["rtx-5090"].sm) == (90, 103, 121, 120)
    assert (gpus["mi300x"].gfx, gpus["mi355x"].gfx) == ("gfx942", "gfx950")


def test_gpu_spellings_resolve_by_alias_and_by_architecture() -> None:
    kb = load_knowledge()
    assert [g.id for g in kb.resolve_gpus("H200 SXM")] == ["h200"]
    assert [g.id for g in kb.resolve_gpus("DGX Spark")] == ["gb10"]
    assert {g.id for g in kb.resolve_gpus("sm90")} == {"h100", "h200"}
    assert [g.id for g in kb.resolve_gpus("gfx950")] == ["mi355x"]
    assert kb.resolve_gpus("tpu v5") == []


def test_format_table_rows_are_numbered_in_order_and_each_names_hardware() -> None:
    rows = sorted((r for r in load_knowledge().format_rules if r.table_row), key=lambda r: r.table_row or 0)
    assert [r.table_row for r in rows] == list(range(1, 10))
    assert all(r.hardware and r.hardware_label and r.reason for r in rows)


def test_every_regime_has_a_rule() -> None:
    regimes = {r.regime for r in load_knowledge().format_rules}
    assert {"kv_capacity", "bandwidth", "compute", "multi_node_ep"} <= regimes


def test_removed_and_plugin_methods_say_when_they_left() -> None:
    methods = {m.name: m for m in load_knowledge().methods}
    assert (methods["bitsandbytes"].status, methods["bitsandbytes"].until) == ("plugin", "v0.28.0")
    assert methods["bitsandbytes"].plugin == "vllm-bnb-plugin"
    assert methods["gguf"].plugin == "vllm-gguf-plugin"
    assert methods["cpu_awq"].replaced_by == ["awq_marlin"]


def test_version_gates_cover_every_minor_release_from_v0_16_on() -> None:
    minors = {normalize_tag(g.version).rsplit(".", 1)[0] for g in load_knowledge().version_gates}
    expected = {f"v0.{n}" for n in range(16, 34)} - {"v0.18"}
    assert expected <= minors


def test_a_fact_without_citations_is_rejected_naming_the_file_content() -> None:
    texts = _texts()
    drafters = yaml.safe_load(texts["drafters.yaml"])
    drafters[0]["citations"] = []
    texts["drafters.yaml"] = yaml.safe_dump(drafters)
    with pytest.raises(KnowledgeDataError, match="citations"):
        parse_knowledge(texts)


def test_a_malformed_tag_in_a_predicate_is_rejected() -> None:
    texts = _texts()
    gates = yaml.safe_load(texts["version_gates.yaml"])
    gates[0]["predicates"] = [{"method_present": {"name": "fp8", "at": "--upload-pack"}}]
    texts["version_gates.yaml"] = yaml.safe_dump(gates)
    with pytest.raises(KnowledgeDataError, match="not a vLLM release tag"):
        parse_knowledge(texts)


def test_an_unknown_predicate_kind_is_rejected_listing_the_valid_ones() -> None:
    texts = _texts()
    gates = yaml.safe_load(texts["version_gates.yaml"])
    gates[0]["predicates"] = [{"method_exists": {"name": "fp8", "at": "v0.32.0"}}]
    texts["version_gates.yaml"] = yaml.safe_dump(gates)
    with pytest.raises(KnowledgeDataError, match="method_present"):
        parse_knowledge(texts)


def test_duplicate_fact_ids_are_rejected() -> None:
    texts = _texts()
    recipes = yaml.safe_load(texts["recipes.yaml"])
    recipes.append(dict(recipes[0]))
    texts["recipes.yaml"] = yaml.safe_dump(recipes)
    with pytest.raises(KnowledgeDataError, match=re.escape(recipes[0]["id"])):
        parse_knowledge(texts)


def test_a_format_rule_naming_an_unknown_gpu_is_rejected() -> None:
    texts = _texts()
    rules = yaml.safe_load(texts["format_rules.yaml"])
    rules[0]["hardware"] = ["h900"]
    texts["format_rules.yaml"] = yaml.safe_dump(rules)
    with pytest.raises(KnowledgeDataError, match="h900"):
        parse_knowledge(texts)


def test_range_tags_are_normalised_on_kinds_with_their_own_tag_fields() -> None:
    texts = _texts()
    gates = yaml.safe_load(texts["version_gates.yaml"])
    gates[0]["since"], gates[0]["until"] = "0.16.0", "0.99.0"
    texts["version_gates.yaml"] = yaml.safe_dump(gates)
    gate = parse_knowledge(texts).version_gates[0]
    assert (gate.since, gate.until) == ("v0.16.0", "v0.99.0")
