"""Threats to the audit's running time: a file naming many unknown flags, many invocations or a huge command.

The cost must follow the file's size: the tag's registry and the other releases' names index are read once per call
(and once per process while their files are unchanged), and the caps on flags and invocations are stated in the answer.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from support.bundled_json import names
from support.opened import recording

from vllm_quant_mcp.knowledge.deploy.expand import MAX_INVOCATIONS, ExpansionLimitError
from vllm_quant_mcp.knowledge.deploy.serve_command import MAX_FLAGS
from vllm_quant_mcp.knowledge.registry import bundle
from vllm_quant_mcp.knowledge.registry import names as names_module
from vllm_quant_mcp.knowledge.registry.store import Store
from vllm_quant_mcp.tools.audit_deployment.models import AuditQuery, AuditReport
from vllm_quant_mcp.tools.audit_deployment.tool import MAX_FLAGS_PER_AUDIT, audit_deployment
from vllm_quant_mcp.tools.context import ToolContext


def unknown_flags(count: int, start: int = 0) -> str:
    return "vllm serve m " + " ".join(f"--x{i}" for i in range(start, start + count))


def audit(ctx: ToolContext, *lines: str) -> AuditReport:
    return audit_deployment(ctx, AuditQuery(text="#!/bin/sh\n" + "\n".join(lines) + "\n", tag="v0.32.0"))


def registries_read(opened: list[str]) -> Counter[str]:
    return Counter(Path(p).stem for p in opened if Path(p).suffix == ".json" and Path(p).parent.name == "bundled")


@pytest.mark.timeout(60)
def test_a_thousand_unknown_flags_read_the_tags_registry_and_the_names_of_the_others_once(ctx: ToolContext) -> None:
    gone = "--calculate-kv-scales"  # exists at older releases: the where-else lookup must still answer it
    assert gone in names("v0.27.1", "cli_flags") - names("v0.32.0", "cli_flags")
    bundle._parsed.cache_clear()  # parsed once per process: start from none parsed
    names_module._index.cache_clear()
    with recording() as opened:
        report = audit(ctx, unknown_flags(999) + f" {gone}")
    # where else a name exists is read from the bundled names index, not from 29 whole registries
    assert registries_read(opened) == Counter({"v0.32.0": 1})
    assert [p for p in opened if Path(p).name == "names.json"] and len(
        {p for p in opened if p.endswith("names.json")}
    ) == 1
    with recording() as opened:  # and a second audit, from a fresh store, parses none again
        audit(ToolContext(Store(ctx.store.root), "v0.32.0"), unknown_flags(10))
    assert registries_read(opened) == Counter()
    (inv,) = report.invocations
    assert inv.error is None and len(inv.findings) == 1000 and report.invalid_count == 1000
    (old,) = [f for f in inv.findings if f.subject == gone]
    assert "It exists at v0." in old.problem


def test_a_second_audit_in_the_same_process_reads_no_registry_again(ctx: ToolContext) -> None:
    audit(ctx, unknown_flags(3))
    with recording() as opened:
        report = audit(ctx, unknown_flags(3))
    assert registries_read(opened) == Counter() and report.invalid_count == 3


def test_a_command_over_the_flag_cap_is_reported_unreadable_with_the_cap(ctx: ToolContext) -> None:
    report = audit(ctx, unknown_flags(MAX_FLAGS + 1), "vllm serve m --x")
    first, second = report.invocations
    assert first.error is not None and f"{MAX_FLAGS + 1:,} flags" in first.error and f"{MAX_FLAGS:,}" in first.error
    assert (second.error, len(second.findings)) == (None, 1)
    assert report.unreadable_count == 1 and not report.ok


def test_flags_past_the_per_file_budget_are_not_checked_and_say_so(ctx: ToolContext) -> None:
    per_line = MAX_FLAGS
    lines = [unknown_flags(per_line, start=i * per_line) for i in range(MAX_FLAGS_PER_AUDIT // per_line + 1)]
    report = audit(ctx, *lines)
    checked = [inv for inv in report.invocations if inv.error is None]
    skipped = [inv for inv in report.invocations if inv.error is not None]
    assert sum(len(inv.findings) for inv in checked) == MAX_FLAGS_PER_AUDIT
    (last,) = skipped
    assert "Not checked" in last.error and f"{MAX_FLAGS_PER_AUDIT:,}" in last.error and "separately" in last.error


def test_a_file_starting_vllm_past_the_invocation_cap_is_refused_with_the_cap(ctx: ToolContext) -> None:
    with pytest.raises(ExpansionLimitError, match=f"more than {MAX_INVOCATIONS} times.*up to {MAX_INVOCATIONS}"):
        audit(ctx, *["vllm serve m"] * (MAX_INVOCATIONS + 1))
