"""audit on realistic deployment files (tests/fixtures/deploy) against the real bundled registries."""

from __future__ import annotations

import pytest
from support.bundled_json import names
from support.paths import FIXTURES as FIXTURE_ROOT

from vllm_quant_mcp.knowledge.deploy.files import DeployFileError, find_invocations
from vllm_quant_mcp.knowledge.tags import tag_key
from vllm_quant_mcp.tools.audit_deployment.models import AuditQuery, AuditReport
from vllm_quant_mcp.tools.audit_deployment.text import render
from vllm_quant_mcp.tools.audit_deployment.tool import audit_deployment
from vllm_quant_mcp.tools.context import ToolContext
from vllm_quant_mcp.tools.render_serve_cmd.models import RenderQuery
from vllm_quant_mcp.tools.render_serve_cmd.tool import render_serve_cmd

FIXTURES = FIXTURE_ROOT / "deploy"


def run(ctx: ToolContext, name: str, tag: str = "v0.32.0", text: str | None = None) -> AuditReport:
    text = text if text is not None else (FIXTURES / name).read_text(encoding="utf-8")
    return audit_deployment(ctx, AuditQuery(text=text, filename=name, tag=tag))


def test_a_v0_27_script_with_bitsandbytes_and_calculate_kv_scales_is_invalid_at_v0_32(ctx: ToolContext) -> None:
    assert "bitsandbytes" in names("v0.27.1", "quantization_methods") - names("v0.32.0", "quantization_methods")
    assert "--calculate-kv-scales" in names("v0.27.1", "cli_flags") - names("v0.32.0", "cli_flags")
    report = run(ctx, "serve_llama_v0_27.sh")
    assert (report.ok, report.invalid_count, report.file_kind) == (False, 2, "shell")
    (inv,) = report.invocations
    assert (inv.line, inv.from_tag, inv.pinned_by) == (14, "v0.27.1", "pip pin vllm==0.27.1")
    broken = {f.subject: f.changed_at for f in inv.findings if f.severity == "breaks"}
    assert broken == {"--quantization bitsandbytes": "v0.28.0", "--calculate-kv-scales": "v0.28.0"}
    assert {"gate-v0.28.0-bitsandbytes-plugin", "gate-v0.28.0-calculate-kv-scales-removed"} <= {g.id for g in inv.gates}


def test_the_script_reads_exports_continuations_and_a_variable_left_unexported(ctx: ToolContext) -> None:
    (inv,) = run(ctx, "serve_llama_v0_27.sh").invocations
    assert inv.env == ["HF_HOME", "VLLM_WORKER_MULTIPROC_METHOD"]
    assert "--port 8000" in inv.command and "tee" not in inv.command and "2>&1" not in inv.command
    assert any("VLLM_LOGGING_LEVEL" in n and "export" in n for n in inv.notes)


def test_without_a_pin_the_script_is_checked_at_the_tag_and_says_where_the_names_exist(ctx: ToolContext) -> None:
    text = (FIXTURES / "serve_llama_v0_27.sh").read_text(encoding="utf-8").replace('"vllm==0.27.1"', "vllm")
    (inv,) = run(ctx, "serve_llama_v0_27.sh", text=text).invocations
    assert inv.from_tag is None and inv.invalid
    kv = next(f for f in inv.findings if f.subject == "--calculate-kv-scales")
    have = sorted((t for t in ctx.store.known_tags() if "--calculate-kv-scales" in names(t, "cli_flags")), key=tag_key)
    assert f"{have[0]}..{have[-1]}" in kv.problem


def test_a_clean_kubernetes_manifest_is_ok(ctx: ToolContext) -> None:
    report = run(ctx, "llama_deployment.yaml")
    assert (report.ok, report.invalid_count, report.risky_count, report.file_kind) == (True, 0, 0, "k8s")
    (inv,) = report.invocations
    assert inv.where == "Deployment/llama-70b container vllm" and inv.from_tag == "v0.32.0"
    assert inv.env == ["HF_TOKEN", "VLLM_LOGGING_LEVEL"]
    assert '"num_speculative_tokens": 3' in inv.command


def test_a_compose_file_with_a_removed_env_var_is_flagged_from_its_pinned_image(ctx: ToolContext) -> None:
    assert "VLLM_ATTENTION_BACKEND" in names("v0.14.1", "env_vars") - names("v0.15.0", "env_vars")
    report = run(ctx, "docker-compose.yml")
    assert report.file_kind == "compose" and report.ok
    (inv,) = report.invocations
    assert (inv.where, inv.from_tag) == ("service vllm", "v0.14.1")
    assert inv.command.startswith("vllm serve Qwen/Qwen3-30B-A3B-AWQ --quantization awq_marlin")
    (finding,) = [f for f in inv.findings if f.subject == "VLLM_ATTENTION_BACKEND"]
    assert (finding.severity, finding.changed_at) == ("changes", "v0.15.0")
    assert report.risky_count == 1


def test_a_rendered_k8s_container_and_docker_line_audit_clean(ctx: ToolContext) -> None:
    args = {
        "quantization": "fp8",
        "kv_cache_dtype": "fp8",
        "tensor_parallel_size": 2,
        "env": {"VLLM_LOGGING_LEVEL": "INFO"},
    }
    container = str(render_serve_cmd(ctx, RenderQuery(model="m/x", format="k8s", **args)).output)
    manifest = "kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n" + "".join(
        f"    {'- ' if i == 0 else '  '}{line}\n" for i, line in enumerate(container.splitlines())
    )
    docker = "#!/bin/sh\n" + str(render_serve_cmd(ctx, RenderQuery(model="m/x", format="docker", **args)).output)
    for name, text in (("pod.yaml", manifest), ("run.sh", docker)):
        report = run(ctx, name, text=text)
        (inv,) = report.invocations
        assert report.ok and inv.findings == [] and inv.from_tag == "v0.32.0", (name, inv)
        assert inv.env == ["VLLM_LOGGING_LEVEL"]


def test_a_shell_wrapped_container_and_a_compose_list_command_are_found() -> None:
    manifest = """
kind: Job
metadata: {name: bench}
spec:
  template:
    spec:
      containers:
        - name: run
          image: python:3.12
          command: ["/bin/bash", "-c"]
          args:
            - |
              pip install vllm==0.30.0
              export VLLM_LOGGING_LEVEL=INFO
              vllm serve m --max-model-len 4096 &
              sleep 60
"""
    kind, (inv,) = find_invocations(manifest, "job.yaml")
    assert kind == "k8s" and inv.command == "vllm serve m --max-model-len 4096"
    assert (inv.pinned_tag, inv.env) == ("v0.30.0", {"VLLM_LOGGING_LEVEL": "INFO"})
    compose = (
        "services:\n  api:\n    image: vllm/vllm-openai:latest\n    command: [m, --port, '8000']\n"
        "    environment: [A=1]\n"
    )
    kind, (inv,) = find_invocations(compose, "compose.yaml")
    assert (kind, inv.command, inv.env, inv.pinned_tag) == ("compose", "vllm serve m --port 8000", {"A": "1"}, None)
    assert any("not pinned" in n for n in inv.notes)


def test_an_unreadable_invocation_is_reported_not_counted_invalid(ctx: ToolContext) -> None:
    report = run(ctx, "run.sh", text="#!/bin/sh\nvllm serve m other-model --port 8000\n")
    (inv,) = report.invocations
    assert inv.error is not None and report.unreadable_count == 1 and report.ok


def test_a_file_of_unknown_kind_or_broken_yaml_is_refused(ctx: ToolContext) -> None:
    with pytest.raises(DeployFileError, match="Cannot tell"):
        run(ctx, "notes.txt", text="vllm serve m")
    with pytest.raises(DeployFileError, match="not valid YAML"):
        run(ctx, "compose.yaml", text="services:\n  a: [\n")


def test_a_file_without_invocations_is_ok_and_says_so(ctx: ToolContext) -> None:
    report = run(ctx, "svc.yaml", text="kind: Service\nmetadata: {name: s}\nspec: {ports: [{port: 80}]}\n")
    assert report.ok and report.invocations == [] and "no `vllm serve`" in report.summary


def test_a_script_whose_flags_come_from_variables_it_sets_audits_clean(ctx: ToolContext) -> None:
    report = run(ctx, "serve_with_variables.sh")
    assert (report.ok, report.invalid_count, report.risky_count) == (True, 0, 0)
    (inv,) = report.invocations
    assert inv.unresolved == ["${PORT}"] and not inv.invalid


def test_the_text_names_what_the_file_leaves_unresolved(ctx: ToolContext) -> None:
    text = render(run(ctx, "run.sh", text="#!/bin/sh\nvllm serve m --max-model-len ${LEN}\n"))
    assert "line 2: ok" in text and "unresolved" in text and "${LEN}" in text


@pytest.mark.parametrize("reference", ['"$QUANT"', "${QUANT}", "$QUANT"])
def test_a_value_the_file_never_sets_is_unresolved_info_not_a_break(ctx: ToolContext, reference: str) -> None:
    report = run(ctx, "run.sh", text=f"#!/bin/sh\nvllm serve m --quantization {reference}\n")
    (finding,) = report.invocations[0].findings
    assert report.ok and finding.severity == "info"
    assert finding.problem.startswith("Unresolved:") and "$QUANT" in finding.problem.replace("{", "").replace("}", "")


def test_a_default_the_file_gives_is_checked_and_a_bad_one_still_breaks(ctx: ToolContext) -> None:
    report = run(ctx, "run.sh", text="#!/bin/sh\nvllm serve m --kv-cache-dtype ${KV:-fp9}\n")
    (finding,) = report.invocations[0].findings
    assert not report.ok and finding.severity == "breaks" and finding.subject == "--kv-cache-dtype fp9"
    assert "fp8" in finding.suggestions


def test_a_name_missing_at_the_tag_alone_names_the_tag_once(ctx: ToolContext) -> None:
    report = run(ctx, "run.sh", text="#!/bin/sh\nvllm serve m --quantization fp9\n")
    (finding,) = report.invocations[0].findings
    assert finding.problem == "`fp9` is not a --quantization value at v0.32.0."
    assert finding.suggestions[:2] == ["fp8", "mxfp8"]


def test_with_a_gpu_a_kv_dtype_no_backend_takes_there_is_invalid_from_the_source(ctx: ToolContext) -> None:
    script = "vllm serve meta-llama/Llama-3.1-8B-Instruct --kv-cache-dtype nvfp4\n"

    def audit(tag: str, gpu: str | None) -> AuditReport:
        return audit_deployment(ctx, AuditQuery(text=script, filename="serve.sh", tag=tag, gpu=gpu))

    refused = audit("v0.31.0", "h200")
    ((finding,),) = [inv.findings for inv in refused.invocations]
    assert (refused.ok, finding.severity, finding.basis) == (False, "breaks", "source")
    assert [(s.tag, s.verdict) for s in finding.support] == [("v0.31.0", "no")]
    assert "exists at" not in finding.problem
    assert audit("v0.31.0", None).ok and audit("v0.31.0", "b200").ok and audit("v0.32.0", "h200").ok
