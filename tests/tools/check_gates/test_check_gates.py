"""check_gates on the real bundled registries; expectations are read from the bundled JSON files directly."""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any

import pytest
import yaml
from support.bundled_json import names, raw

from vllm_quant_mcp.knowledge.deploy.serve_command import ServeCommandError
from vllm_quant_mcp.knowledge.facts.knowledge_base import UnknownGpuError
from vllm_quant_mcp.knowledge.tags import InvalidTagError, UnknownTagError
from vllm_quant_mcp.tools.check_gates.models import CheckGatesQuery, CheckGatesResult, Finding
from vllm_quant_mcp.tools.check_gates.tool import gates_report as run_gates
from vllm_quant_mcp.tools.context import ToolContext


def check_gates(
    ctx: ToolContext, from_tag: str, to_tag: str, serve_command: str | None = None, **options: Any
) -> CheckGatesResult:
    """The tool's whole answer (all its pages) for the two tags, then the serve line."""
    return run_gates(ctx, CheckGatesQuery(from_tag=from_tag, to_tag=to_tag, serve_command=serve_command, **options))


BNB_LINE = "vllm serve m --quantization bitsandbytes --calculate-kv-scales"


def choices(tag: str, flag: str) -> set[str]:
    return {c for e in raw(tag)["cli_flags"] if e["name"] == flag for c in (e["choices"] or [])}


def by_subject(result: CheckGatesResult, subject: str) -> Finding:
    (finding,) = [f for f in result.findings if f.subject == subject]
    return finding


def assert_grounded(result: CheckGatesResult) -> None:
    """Every name the answer presents as existing at a tag is in that tag's registry file."""
    for finding in result.findings:
        for ev in finding.evidence:
            assert ev.name in names(ev.tag, ev.kind), (finding.subject, ev)
            assert ev.choice is None or ev.choice in choices(ev.tag, ev.name)
            assert ev.tag in ev.permalink and ev.permalink.endswith(f"#L{ev.line}")
        flag_names = names(result.to_tag, "cli_flags") | {
            c for e in raw(result.to_tag)["cli_flags"] for c in (e["choices"] or [])
        }
        everything = flag_names | {
            n for k in ("quantization_methods", "kv_cache_dtypes", "env_vars") for n in names(result.to_tag, k)
        }
        online = {e["name"] for e in raw(result.to_tag)["online_quantization"]}
        assert set(finding.suggestions) <= everything | online, finding
    for hop in result.hops:
        for change in hop.changes:
            ev = change.evidence
            assert ev.name in names(ev.tag, ev.kind) and ev.tag in (hop.from_tag, hop.to_tag)
            assert set(change.values) <= choices(ev.tag, ev.name)


def test_bitsandbytes_and_calculate_kv_scales_are_reported_removed_at_v0_28_0_with_their_actions(
    ctx: ToolContext,
) -> None:
    result = check_gates(ctx, "v0.27.1", "v0.32.0", BNB_LINE)
    assert "bitsandbytes" in names("v0.27.1", "quantization_methods") - names("v0.28.0", "quantization_methods")
    assert "--calculate-kv-scales" in names("v0.27.1", "cli_flags") - names("v0.28.0", "cli_flags")
    bnb = by_subject(result, "--quantization bitsandbytes")
    kv = by_subject(result, "--calculate-kv-scales")
    assert (bnb.severity, bnb.changed_at, kv.severity, kv.changed_at) == ("breaks", "v0.28.0", "breaks", "v0.28.0")
    assert "vllm-bnb-plugin" in bnb.action
    assert "Remove --calculate-kv-scales" in kv.action
    assert [e.tag for e in bnb.evidence + kv.evidence] == ["v0.27.1", "v0.27.1"]
    # PR #43529 is cited nowhere: no stored thread showed it merged, so the source lines stand in for it
    assert "vllm/model_executor/layers/quantization/__init__.py QuantizationMethods at v0.28.0" in {
        c.label for c in bnb.citations
    }
    assert {c.label for c in kv.citations} == {"PR #49389"}
    assert_grounded(result)


def test_the_hop_that_removed_them_shows_both_registry_removals(ctx: ToolContext) -> None:
    result = check_gates(ctx, "v0.27.1", "v0.32.0", BNB_LINE)
    first = result.hops[0]
    assert (first.from_tag, first.to_tag) == ("v0.27.1", "v0.28.0")
    removed = {(c.kind, c.name) for c in first.changes if c.change == "removed"}
    expected = {
        (kind, name)
        for kind in ("quantization_methods", "kv_cache_dtypes", "cli_flags", "env_vars")
        for name in names("v0.27.1", kind) - names("v0.28.0", kind)
    }
    assert removed == expected
    assert ("quantization_methods", "bitsandbytes") in removed
    assert [g.id for g in first.gates] == [
        "gate-v0.28.0-bitsandbytes-plugin",
        "gate-v0.28.0-calculate-kv-scales-removed",
    ]


def test_every_name_the_answer_places_at_a_tag_is_in_that_tags_registry(ctx: ToolContext) -> None:
    line = (
        "VLLM_TEST_FORCE_FP8_MARLIN=1 vllm serve m --quantization fp8 --kv-cache-dtype nvfp4 --moe-backend cutlas "
        "--linear-backend marlin --calculate-kv-scales -tp 2 --bogus --quantization-config '{\"targets\": {}}'"
    )
    for start, end in [("v0.14.0", "v0.33.0"), ("v0.33.0", "v0.19.0"), ("v0.27.1", "v0.32.0")]:
        assert_grounded(check_gates(ctx, start, end, line, env={"VLLM_ROCM_USE_AITER_FP4_ASM_GEMM": "1"}))


def test_a_downgrade_walks_the_hops_in_reverse_and_says_so(ctx: ToolContext) -> None:
    result = check_gates(ctx, "v0.32.0", "v0.21.0", "vllm serve m --linear-backend marlin --enable-expert-parallel")
    assert result.direction == "downgrade"
    assert result.summary.startswith("Downgrade: v0.32.0 is newer than v0.21.0")
    assert (result.hops[0].from_tag, result.hops[-1].to_tag) == ("v0.32.0", "v0.21.0")
    assert all(g.reversed for h in result.hops for g in h.gates)
    linear = by_subject(result, "--linear-backend")
    assert "--linear-backend" not in names("v0.21.0", "cli_flags")
    assert linear.severity == "breaks" and "first appears at v0.22.0" in linear.problem
    assert [(e.tag, e.name) for e in linear.evidence] == [("v0.22.0", "--linear-backend")]
    assert_grounded(result)


def test_the_same_tag_crosses_no_hop_but_still_checks_the_command(ctx: ToolContext) -> None:
    result = check_gates(ctx, "v0.32.0", "v0.32.0", "vllm serve m --quantization fbgemm_fp8")
    assert (result.direction, result.hops) == ("same", [])
    finding = by_subject(result, "--quantization fbgemm_fp8")
    assert finding.severity == "deprecated"


def test_fp8_keeps_working_at_v0_31_0_but_a_bf16_checkpoint_is_redirected_from_the_source(ctx: ToolContext) -> None:
    (redirect,) = [r for r in raw("v0.32.0")["load_refusals"] if r["outcome"] == "redirected"]
    assert not [r for r in raw("v0.30.0")["load_refusals"] if r["outcome"] == "redirected"]
    result = check_gates(ctx, "v0.30.0", "v0.32.0", "vllm serve m --quantization fp8")
    findings = [f for f in result.findings if f.subject == "--quantization fp8"]
    (source,) = [f for f in findings if f.basis == "source"]
    assert source.severity == "deprecated" and redirect["provenance"]["permalink"] in source.problem
    assert "deprecated; redirected to fp8_per_tensor" in source.problem
    assert redirect["redirect_to"] in source.action
    (gate,) = [f for f in findings if f.basis == "curated"]
    assert (gate.changed_at, [g.id for g in gate.gates]) == ("v0.31.0", ["gate-v0.31.0-fp8-not-online"])
    assert_grounded(result)


def test_a_value_outside_the_flags_choices_breaks_and_the_nearest_choice_is_suggested(ctx: ToolContext) -> None:
    result = check_gates(ctx, "v0.30.0", "v0.32.0", "vllm serve m --moe-backend cutlas")
    finding = by_subject(result, "--moe-backend cutlas")
    assert finding.severity == "breaks"
    assert finding.suggestions[0] == "cutlass" and "cutlass" in choices("v0.32.0", "--moe-backend")


def test_an_env_var_dropped_from_envs_py_is_reported_with_the_gate(ctx: ToolContext) -> None:
    result = check_gates(ctx, "v0.28.0", "v0.29.0", env={"VLLM_TEST_FORCE_FP8_MARLIN": "1", "HOME": "/root"})
    (finding,) = result.findings
    assert (finding.subject, finding.severity, finding.changed_at) == (
        "VLLM_TEST_FORCE_FP8_MARLIN",
        "changes",
        "v0.29.0",
    )
    assert [(e.tag, e.kind) for e in finding.evidence] == [("v0.28.0", "env_vars")]
    assert "--linear-backend marlin" in finding.action


def test_every_removed_env_var_has_one_severity_whether_or_not_a_breaking_gate_names_it(ctx: ToolContext) -> None:
    gone = {"VLLM_TEST_FORCE_FP8_MARLIN", "VLLM_ENGINE_ITERATION_TIMEOUT_S"}
    assert gone <= names("v0.28.0", "env_vars") and not gone & names("v0.32.0", "env_vars")
    result = check_gates(ctx, "v0.28.0", "v0.32.0", env=dict.fromkeys(gone, "1"))
    findings = {f.subject: f for f in result.findings}
    assert any(g.breaking for g in findings["VLLM_TEST_FORCE_FP8_MARLIN"].gates)
    assert not findings["VLLM_ENGINE_ITERATION_TIMEOUT_S"].gates
    assert {f.severity for f in findings.values()} == {"changes"}
    assert {f.basis for f in findings.values()} == {"source"}


def test_a_hop_that_loses_support_on_the_gpu_breaks_both_ways_and_a_gain_is_info(ctx: ToolContext) -> None:
    command = "vllm serve m --kv-cache-dtype nvfp4"
    downgrade = check_gates(ctx, "v0.32.0", "v0.31.0", serve_command=command, gpu="h200")
    (down,) = [f for f in downgrade.findings if f.support]
    assert (down.severity, down.basis) == ("breaks", "source")
    assert [(s.tag, s.verdict, s.via) for s in down.support] == [
        ("v0.32.0", "yes", "FLASHINFER"),
        ("v0.31.0", "no", None),
    ]
    assert all(
        line.startswith(f"https://github.com/vllm-project/vllm/blob/{s.tag}/") for s in down.support for line in s.lines
    )
    up = check_gates(ctx, "v0.31.0", "v0.32.0", serve_command=command, gpu="h200")
    gained = [f for f in up.findings if f.basis == "source" and f.subject == "--kv-cache-dtype nvfp4"]
    assert [f.severity for f in gained] == ["info"]
    blackwell = check_gates(ctx, "v0.32.0", "v0.31.0", serve_command=command, gpu="b200")
    assert not [f for f in blackwell.findings if f.support]


def test_a_checkpoint_property_the_method_starts_refusing_is_a_source_change(ctx: ToolContext) -> None:
    (refusal, *_) = [r for r in raw("v0.30.0")["load_refusals"] if "gptq_marlin" in r["methods"]]
    assert not [r for r in raw("v0.29.0")["load_refusals"] if "gptq_marlin" in r["methods"]]
    result = check_gates(ctx, "v0.29.0", "v0.30.0", serve_command="vllm serve m --quantization gptq_marlin")
    refused = [f for f in result.findings if f.basis == "source" and refusal["provenance"]["permalink"] in f.problem]
    assert [(f.severity, f.subject) for f in refused] == [("changes", "--quantization gptq_marlin")]


def test_gpu_and_model_family_narrow_the_gates(ctx: ToolContext) -> None:
    def gate_ids(**kwargs: str) -> set[str]:
        result = check_gates(ctx, "v0.31.0", "v0.32.0", **kwargs)
        return {g.id for h in result.hops for g in h.gates}

    assert "gate-v0.32.0-humming-auto-sm90" in gate_ids(gpu="H100 SXM") & gate_ids(gpu="sm90")
    assert "gate-v0.32.0-humming-auto-sm90" not in gate_ids(gpu="b200")
    assert "gate-v0.32.0-kv-additions" in gate_ids(model_family="GLM-5.1")
    assert "gate-v0.32.0-kv-additions" not in gate_ids(model_family="llama")


def test_a_command_keeps_only_the_gates_that_name_what_it_uses(ctx: ToolContext) -> None:
    data = resources.files("vllm_quant_mcp.knowledge.facts.data") / "version_gates.yaml"
    crossed = {
        g["id"] for g in yaml.safe_load(data.read_text(encoding="utf-8")) if g["version"] in ("v0.28.0", "v0.29.0")
    }

    def gate_ids(line: str | None) -> set[str]:
        return {g.id for h in check_gates(ctx, "v0.27.1", "v0.29.0", line).hops for g in h.gates}

    assert gate_ids(None) == crossed
    assert gate_ids("vllm serve m --quantization awq_marlin") == set()
    assert gate_ids(BNB_LINE) == {"gate-v0.28.0-bitsandbytes-plugin", "gate-v0.28.0-calculate-kv-scales-removed"}


def test_unknown_and_malformed_tags_are_rejected_with_the_nearest_known_tags(ctx: ToolContext) -> None:
    with pytest.raises(UnknownTagError) as info:
        check_gates(ctx, "v0.27.5", "v0.32.0")
    assert info.value.suggestions[0] == "v0.27.1"
    with pytest.raises(InvalidTagError):
        check_gates(ctx, "v0.27.1", "latest")


def test_an_unparseable_command_and_an_unknown_gpu_are_clear_errors(ctx: ToolContext) -> None:
    with pytest.raises(ServeCommandError, match="Unbalanced ' quote"):
        check_gates(ctx, "v0.27.1", "v0.32.0", "vllm serve m --speculative-config '{")
    with pytest.raises(UnknownGpuError, match=r"Unknown GPU .h900.*h100"):
        check_gates(ctx, "v0.27.1", "v0.32.0", gpu="h900")


def test_a_local_bf16_checkpoint_served_with_awq_marlin_breaks_with_the_loaders_message(ctx: ToolContext) -> None:
    folder = Path(__file__).parents[2] / "fixtures" / "checkpoints" / "llama-3.1-8b-bf16"
    result = check_gates(ctx, "v0.25.0", "v0.26.0", f"vllm serve {folder} --quantization awq_marlin")
    (finding,) = [f for f in result.findings if "Cannot find the config file" in f.problem]
    assert finding.severity == "breaks" and finding.basis == "source"
    assert "/blob/v0.26.0/vllm/model_executor/model_loader/weight_utils.py#L372" in finding.problem


def test_a_linear_backend_naming_no_gptq_kernel_breaks_a_downgrade_below_v0_28_0_where_the_chooser_raised(
    ctx: ToolContext,
) -> None:
    """The command's --linear-backend decides the walk: flashinfer_cudnn covers no GPTQ kernel, which v0.28.0 on
    selects around (auto: Machete on an H100) and v0.27.1 refuses with ValueError."""
    command = "vllm serve m --quantization gptq_marlin --linear-backend flashinfer_cudnn"
    subject = "linear kernel for --quantization gptq_marlin with --linear-backend flashinfer_cudnn"
    down = by_subject(check_gates(ctx, "v0.28.0", "v0.27.1", serve_command=command, gpu="h100"), subject)
    assert down.severity == "breaks" and "MacheteLinearKernel at v0.28.0, none at v0.27.1" in down.problem
    assert "vLLM raises ValueError" in down.problem and "drop the flag (auto)" in down.action
    auto = check_gates(ctx, "v0.28.0", "v0.27.1", serve_command="vllm serve m --quantization gptq_marlin", gpu="h100")
    assert not [f for f in auto.findings if f.subject.startswith("linear kernel")]
