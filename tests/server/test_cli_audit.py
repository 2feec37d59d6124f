"""`audit` as a CI gate: exit codes, GitHub annotations, SARIF that validates against the SARIF 2.1.0 schema."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import jsonschema
import pytest
from support.cli import EXE, call_cli, cli_env, run_cli
from support.paths import FIXTURES

DEPLOY = FIXTURES / "deploy"
SCHEMA = json.loads((FIXTURES / "sarif" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
BROKEN = '#!/bin/sh\nQUANT=fp8\nvllm serve m --quantization "$QUANT" --kv-cache-dtype fp9 --port $PORT\n'


def test_a_deployment_script_with_variables_audits_clean_with_exit_0(tmp_path: Path) -> None:
    done = call_cli("audit", str(DEPLOY / "serve_with_variables.sh"), "--tag", "v0.32.0", cache=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "OK at v0.32.0" in done.stdout and "[breaks]" not in done.stdout


@pytest.mark.parametrize("fmt", ["text", "json", "github", "sarif"])
def test_the_exit_status_is_1_on_a_break_whatever_the_format(fmt: str, tmp_path: Path) -> None:
    script = tmp_path / "serve.sh"
    script.write_text(BROKEN, encoding="utf-8")
    done = call_cli("audit", str(script), "--tag", "v0.32.0", "--format", fmt, cache=tmp_path)
    assert done.returncode == 1, done.stderr


def test_github_format_annotates_the_line_with_the_nearest_values(tmp_path: Path) -> None:
    script = tmp_path / "serve.sh"
    script.write_text(BROKEN, encoding="utf-8")
    done = call_cli("audit", str(script), "--tag", "v0.32.0", "--format", "github", cache=tmp_path)
    error = next(line for line in done.stdout.splitlines() if line.startswith("::error "))
    column = BROKEN.splitlines()[2].index("fp9") + 1
    assert error.startswith(
        f"::error file={script},line=3,col={column},endColumn={column + 3},title=--kv-cache-dtype fp9 at v0.32.0::"
    )
    assert "Did you mean: fp8" in error
    assert not any(line.startswith("::error") and "QUANT" in line for line in done.stdout.splitlines())


@pytest.mark.parametrize("name", ["serve_llama_v0_27.sh", "llama_deployment.yaml", "docker-compose.yml", None])
def test_sarif_output_validates_against_the_sarif_2_1_0_schema(name: str | None, tmp_path: Path) -> None:
    path = DEPLOY / name if name else tmp_path / "serve.sh"
    if name is None:
        path.write_text(BROKEN, encoding="utf-8")
    done = call_cli("audit", str(path), "--tag", "v0.32.0", "--format", "sarif", cache=tmp_path)
    assert done.returncode in (0, 1), done.stderr
    log = json.loads(done.stdout)
    jsonschema.Draft4Validator(SCHEMA).validate(log)
    (run,) = log["runs"]
    rules = [r["id"] for r in run["tool"]["driver"]["rules"]]
    for result in run["results"]:
        assert rules[result["ruleIndex"]] == result["ruleId"]
        assert result["locations"][0]["physicalLocation"]["region"]["startLine"] >= 1


def test_sarif_of_an_unresolved_value_is_a_note_and_of_a_break_an_error(tmp_path: Path) -> None:
    path = tmp_path / "serve.sh"
    path.write_text("#!/bin/sh\nvllm serve m --quantization $QUANT --kv-cache-dtype fp9\n", encoding="utf-8")
    log = json.loads(call_cli("audit", str(path), "--tag", "v0.32.0", "--format", "sarif", cache=tmp_path).stdout)
    levels = {r["ruleId"]: r["level"] for r in log["runs"][0]["results"]}
    assert levels == {"unresolved": "note", "breaks": "error"}


def test_an_unreadable_file_is_a_usage_error_with_exit_2(tmp_path: Path) -> None:
    done = call_cli("audit", str(tmp_path / "missing.sh"), cache=tmp_path)
    assert done.returncode == 2 and "cannot read" in done.stderr and done.stdout == ""


@pytest.mark.timeout(60)
@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_audit_of_an_endless_device_is_refused_without_reading_it(device: str, tmp_path: Path) -> None:
    done = call_cli("audit", device, cache=tmp_path)
    assert done.returncode == 2 and f"{device} is not a regular file" in done.stderr and done.stdout == ""


@pytest.mark.timeout(60)
def test_audit_of_a_fifo_is_refused_instead_of_waiting_for_a_writer(tmp_path: Path) -> None:
    fifo = tmp_path / "deploy.sh"
    os.mkfifo(fifo)
    done = call_cli("audit", str(fifo), cache=tmp_path)
    assert done.returncode == 2 and "is not a regular file (a FIFO or pipe)" in done.stderr


@pytest.mark.timeout(60)
def test_audit_of_a_file_over_one_megabyte_is_refused_naming_the_cap(tmp_path: Path) -> None:
    path = tmp_path / "deploy.sh"
    with path.open("wb") as out:
        out.truncate(2**40)  # sparse: a terabyte by stat, refused after one megabyte read
    done = call_cli("audit", str(path), cache=tmp_path)
    assert done.returncode == 2 and "deploy.sh is larger than 1 MB" in done.stderr


@pytest.mark.parametrize("fmt", ["text", "github"])
def test_terminal_escape_codes_in_an_audited_file_never_reach_the_terminal(fmt: str, tmp_path: Path) -> None:
    script = tmp_path / "serve.sh"
    script.write_text("vllm serve m --quantization '\x1b[2J\x1b]0;owned\x07fp8'\n", encoding="utf-8")
    done = call_cli("audit", str(script), "--tag", "v0.32.0", "--format", fmt, cache=tmp_path)
    assert "\\x1b[2J" in done.stdout + done.stderr
    assert not any(c in done.stdout + done.stderr for c in "\x1b\x07")


def test_sarif_regions_point_at_the_value_and_the_flag_on_their_own_continued_lines(tmp_path: Path) -> None:
    path = DEPLOY / "serve_llama_v0_27.sh"
    lines = path.read_text(encoding="utf-8").splitlines()
    done = run_cli("audit", str(path), "--tag", "v0.32.0", "--format", "sarif", cache=tmp_path)
    regions = {
        r["message"]["text"].split(" at ")[0]: r["locations"][0]["physicalLocation"]["region"]
        for r in json.loads(done.stdout)["runs"][0]["results"]
    }
    value = regions["--quantization bitsandbytes"]
    assert lines[value["startLine"] - 1][value["startColumn"] - 1 : value["endColumn"] - 1] == "bitsandbytes"
    flag = regions["--calculate-kv-scales"]
    assert lines[flag["startLine"] - 1][flag["startColumn"] - 1 : flag["endColumn"] - 1] == "--calculate-kv-scales"
    jsonschema.validate(json.loads(done.stdout), SCHEMA)


def test_a_dash_reads_the_file_from_stdin_and_exit_zero_keeps_a_break_from_failing_the_job(tmp_path: Path) -> None:
    def audit(*extra: str, text: str = BROKEN) -> subprocess.CompletedProcess[str]:
        argv = [EXE, "audit", "-", "--tag", "v0.32.0", "--format", "github", *extra]
        return subprocess.run(argv, input=text, capture_output=True, text=True, env=cli_env(tmp_path), timeout=120)

    piped = audit()
    assert piped.returncode == 1 and "::error file=-,line=3," in piped.stdout
    assert audit("--exit-zero").returncode == 0
    manifest = (DEPLOY / "llama_deployment.yaml").read_text(encoding="utf-8")
    assert "stdin.yaml" in audit(text=manifest).stdout  # read as a manifest, told by its kind: line
