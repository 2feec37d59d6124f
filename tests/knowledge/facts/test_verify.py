"""Claims are evaluated per tag with evidence; verify runs every curated claim over real registries."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from importlib import resources

import pytest
from pydantic import TypeAdapter
from support.releases import release_tree

from vllm_quant_mcp.knowledge.facts.knowledge_base import load_knowledge
from vllm_quant_mcp.knowledge.facts.predicates import Predicate, evaluate
from vllm_quant_mcp.knowledge.facts.verify import verify
from vllm_quant_mcp.knowledge.registry.derive import derive_registry
from vllm_quant_mcp.knowledge.registry.model import KvCacheDtype, Provenance, QuantizationMethod, Registry, SourceInfo

QUANT = "vllm/model_executor/layers/quantization/__init__.py"
PREDICATE = TypeAdapter(Predicate)


def _prov(path: str, line: int) -> Provenance:
    return Provenance(path=path, line=line, permalink=f"https://example.invalid/{path}#L{line}")


def _method(name: str, line: int, min_capability: int | None = 75, deprecated: bool = False) -> QuantizationMethod:
    return QuantizationMethod(
        name=name,
        provenance=_prov(QUANT, line),
        config_class=f"{name.title()}Config",
        min_capability=min_capability,
        deprecated=deprecated,
    )


def _registry(tag: str, methods: list[str], kv: list[str] = ["auto"]) -> Registry:  # noqa: B006
    return Registry(
        extractor_version="test",
        tag=tag,
        source=SourceInfo(kind="dir", origin="hand-built"),
        quantization_methods=[_method(m, 10 + i) for i, m in enumerate(methods)],
        kv_cache_dtypes=[
            KvCacheDtype(name=k, provenance=_prov("vllm/config/cache.py", 20 + i)) for i, k in enumerate(kv)
        ],
    )


REGISTRIES = {
    "v0.27.1": _registry("v0.27.1", ["fp8", "bitsandbytes"]),
    "v0.28.0": _registry("v0.28.0", ["fp8"]),
    "v0.29.0": _registry("v0.29.0", ["fp8"]),
}


def _claim(data: dict[str, object]) -> Predicate:
    return PREDICATE.validate_python(data)


def test_absence_from_a_tag_on_is_confirmed_with_the_defining_file_as_evidence() -> None:
    outcome = evaluate(
        _claim({"method_present": {"name": "bitsandbytes", "present": False, "since": "v0.28.0", "boundary": True}}),
        REGISTRIES,
    )
    assert outcome.status == "confirmed"
    assert [(e.tag, e.path, e.line) for e in outcome.evidence] == [
        ("v0.27.1", QUANT, 11),
        ("v0.28.0", QUANT, None),
        ("v0.29.0", QUANT, None),
    ]


def test_a_claim_the_source_refutes_is_contradicted_naming_the_tag() -> None:
    outcome = evaluate(_claim({"method_present": {"name": "bitsandbytes", "since": "v0.27.1"}}), REGISTRIES)
    assert outcome.status == "contradicted"
    assert [e.tag for e in outcome.evidence if "absent" in e.observed] == ["v0.28.0", "v0.29.0"]


def test_a_boundary_claim_fails_when_the_previous_release_already_had_the_change() -> None:
    claim = _claim({"method_present": {"name": "bitsandbytes", "present": False, "since": "v0.29.0", "boundary": True}})
    outcome = evaluate(claim, REGISTRIES)
    assert (outcome.status, outcome.evidence[0].tag) == ("contradicted", "v0.28.0")


def test_a_missing_registry_makes_the_claim_not_checkable() -> None:
    claim = _claim({"min_capability": {"method": "fp8", "value": 75, "at": "v0.32.0"}})
    outcome = evaluate(claim, REGISTRIES)
    assert outcome.status == "not_checkable"
    assert "v0.32.0" in outcome.reason


def test_a_gap_in_known_releases_makes_a_boundary_not_checkable_instead_of_weaker() -> None:
    claim = _claim({"method_present": {"name": "bitsandbytes", "present": False, "since": "v0.28.0", "boundary": True}})
    sparse = {t: REGISTRIES[t] for t in ("v0.27.1", "v0.29.0")}
    assert evaluate(claim, sparse, known_tags=["v0.28.0"]).status == "not_checkable"


def test_an_empty_kind_is_not_read_as_absence() -> None:
    empty = {"v0.28.0": _registry("v0.28.0", ["fp8"], kv=[])}
    claim = _claim({"kv_dtype_present": {"name": "nvfp4", "present": False, "at": "v0.28.0"}})
    assert evaluate(claim, empty).status == "not_checkable"


def test_min_capability_and_count_compare_the_registry_values() -> None:
    assert evaluate(_claim({"min_capability": {"method": "fp8", "value": 75, "at": "v0.28.0"}}), REGISTRIES).status == (
        "confirmed"
    )
    assert evaluate(_claim({"min_capability": {"method": "fp8", "value": 89, "at": "v0.28.0"}}), REGISTRIES).status == (
        "contradicted"
    )
    count = _claim({"count": {"kind": "quantization_methods", "value": 2, "at": "v0.27.1"}})
    assert evaluate(count, REGISTRIES).status == "confirmed"


def test_a_scope_with_both_at_and_since_is_rejected() -> None:
    with pytest.raises(ValueError, match="exactly one of"):
        _claim({"method_present": {"name": "fp8", "at": "v0.28.0", "since": "v0.27.1"}})


# --- real registries ------------------------------------------------------------------------------

DERIVED = ("0.27.1", "0.28.0", "0.32.0")
SOURCE = SourceInfo(kind="pypi", origin="tests/releases.py")


@cache
def _bundled() -> Mapping[str, Registry]:
    folder = resources.files("vllm_quant_mcp.knowledge.registry.bundled")
    files = [f for f in folder.iterdir() if f.name.endswith(".json")]
    registries = [Registry.model_validate_json(f.read_text(encoding="utf-8")) for f in files]
    return {r.tag: r for r in registries}


@cache
def _real_registries() -> Mapping[str, Registry]:
    """Every bundled registry, plus registries derived from real trees for the DERIVED releases not bundled."""
    registries = dict(_bundled())
    for version in DERIVED:
        if f"v{version}" not in registries:
            registries[f"v{version}"] = derive_registry(release_tree(version), SOURCE)
    return registries


def test_every_curated_claim_evaluates_over_real_registries() -> None:
    registries = _real_registries()
    kb = load_knowledge()
    report = verify(kb, registries)
    assert report.tags[-1] in registries
    assert len(report.results) == sum(len(f.predicates) for _, f in kb.facts())
    assert sum(report.counts.values()) == len(report.results)
    assert report.counts["confirmed"] > 0


def test_real_registries_confirm_the_bitsandbytes_removal_and_the_v0_32_counts() -> None:
    registries = _real_registries()
    removal = _claim(
        {"method_present": {"name": "bitsandbytes", "present": False, "since": "v0.28.0", "boundary": True}}
    )
    assert evaluate(removal, registries).status == "confirmed"
    at_boundary = {t: registries[t] for t in ("v0.27.1", "v0.28.0")}
    assert evaluate(removal, at_boundary).status == "confirmed"
    methods = _claim({"count": {"kind": "quantization_methods", "value": 30, "at": "v0.32.0"}})
    kv = _claim({"count": {"kind": "kv_cache_dtypes", "value": 19, "at": "v0.32.0"}})
    assert (evaluate(methods, registries).status, evaluate(kv, registries).status) == ("confirmed", "confirmed")
