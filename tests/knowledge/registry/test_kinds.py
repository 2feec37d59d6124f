"""The one list of kinds (the `Registry` fields marked `Extractor`) and every hand-kept subset of it.

Some code needs only some kinds: the names a serve command carries (across.NameKind), what a
predicate counts (predicates.CountKind), the evidence and hops of check_gates, the flags whose
value is a registry entry. Those subsets are chosen by meaning, so they are written out; these
tests tie each to the one list, so a kind renamed or removed fails here, not in a user's answer.
"""

from __future__ import annotations

import re
from typing import get_args

import pytest
from support.paths import REPO

from vllm_quant_mcp.knowledge.facts import predicates
from vllm_quant_mcp.knowledge.registry.across import NameKind
from vllm_quant_mcp.knowledge.registry.kinds import EXTRACTED_FIELDS, KIND_NAMES
from vllm_quant_mcp.tools.audit_deployment import tool as audit
from vllm_quant_mcp.tools.check_gates import flags, hops
from vllm_quant_mcp.tools.check_gates.models import EvidenceKind


def test_every_hand_kept_subset_names_only_kinds_the_registry_declares() -> None:
    subsets = {
        "across.NameKind": set(get_args(NameKind)),
        "predicates.CountKind": set(get_args(predicates.CountKind)),
        "predicates.BackendKind": {f"backends.{k}" for k in get_args(predicates.BackendKind)},
        "check_gates EvidenceKind": set(get_args(EvidenceKind)),
        "check_gates HOP_KINDS": set(hops.HOP_KINDS),
        "check_gates flag value kinds": {kind for kind, _ in flags._VALUE_KINDS.values()},
        "audit_deployment _VALUE_KINDS": set(audit._VALUE_KINDS.values()),
    }
    assert {name: kinds - set(KIND_NAMES) for name, kinds in subsets.items() if kinds - set(KIND_NAMES)} == {}


def test_the_hops_compare_the_kinds_a_serve_command_names_and_audit_reads_the_flags_check_gates_reads() -> None:
    assert set(hops.HOP_KINDS) == set(get_args(NameKind)) <= set(get_args(EvidenceKind))
    assert {flag: kind for flag, (kind, _) in flags._VALUE_KINDS.items()} == audit._VALUE_KINDS


@pytest.mark.release
def test_each_kind_a_predicate_can_name_has_its_defining_file_and_the_file_is_where_v0_32_0_keeps_it() -> None:
    named = set(get_args(predicates.CountKind)) | {"backends"}
    files = predicates._DEFINING_FILE
    assert named <= set(files) <= set(EXTRACTED_FIELDS)
    from support.releases import release_tree  # here, so the other tests stay in the fast loop

    tree = release_tree("0.32.0")
    assert [path for path in files.values() if not (tree.root / path).is_file()] == []


def test_the_readme_contract_names_every_kind_the_registry_json_holds() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    contract = readme[readme.index("### Contract for scripts") :]
    contract = contract[: contract.index("\n### ")]
    named = set(re.findall(r"`([a-z_]+)`", contract))
    backends = {kind.partition(".")[2] for kind in KIND_NAMES if kind.startswith("backends.")}
    assert set(EXTRACTED_FIELDS) - named == set() and backends - named == set()
