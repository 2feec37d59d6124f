"""The CLI as scripts call it: JSON on stdout, one-line errors and exit 2 on stderr.

Called in this process (support.cli.call_cli) where the test is about what it says; the installed executable
where it is about the process (a pinned tag read from the environment it starts in).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from support.cli import EXE, call_cli
from support.paths import FIXTURES as FIXTURE_ROOT
from support.paths import REPO

CONTRACT_KEYS = {
    "schema_version",
    "tag",
    "source",
    "quantization_methods",
    "kv_cache_dtypes",
    "online_quantization",
    "backends",
    "cli_flags",
    "env_vars",
    "platforms",
    "load_refusals",
}


def test_registry_json_keeps_the_contract_scripts_rely_on(tmp_path: Path) -> None:
    done = call_cli("registry", "--tag", "v0.32.0", "--json", cache=tmp_path)
    assert done.returncode == 0, done.stderr
    data: dict[str, Any] = json.loads(done.stdout)
    assert data.keys() >= CONTRACT_KEYS
    assert data["schema_version"] == 1 and data["tag"] == "v0.32.0"
    assert set(data["backends"]) == {"linear", "moe", "attention"}
    entries = [e for key in CONTRACT_KEYS - {"schema_version", "tag", "source", "backends"} for e in data[key]]
    entries += [e for sub in data["backends"].values() for e in sub]
    entries += [e for part in ("backends", "cuda", "rocm") for e in data["attention"][part]]
    for entry in entries:
        assert entry["name"] and set(entry["provenance"]) == {"path", "line", "permalink"}
        assert (
            f"/blob/v0.32.0/{entry['provenance']['path']}#L{entry['provenance']['line']}"
            in (entry["provenance"]["permalink"])
        )
    for method in data["quantization_methods"]:
        assert {"config_class", "min_capability", "deprecated"} <= method.keys()
    assert len(data["quantization_methods"]) == 30 and len(data["kv_cache_dtypes"]) == 19


def test_a_kind_the_release_lacks_is_an_empty_list_with_a_note(tmp_path: Path) -> None:
    done = call_cli("registry", "--tag", "v0.14.0", "--json", cache=tmp_path)
    data = json.loads(done.stdout)
    assert data["online_quantization"] == []
    assert "online_quantization" in data["notes"]


def test_unknown_tag_exits_2_and_names_the_nearest_tags(tmp_path: Path) -> None:
    done = call_cli("registry", "--tag", "v0.31.7", cache=tmp_path)
    assert done.returncode == 2
    assert "v0.31.7" in done.stderr and "v0.31.0" in done.stderr
    assert done.stdout == ""


def test_malformed_tag_is_refused_before_anything_runs(tmp_path: Path) -> None:
    done = call_cli("refresh", "--tag", "--upload-pack=touch /tmp/pwned", cache=tmp_path)
    assert done.returncode == 2
    assert "v0.32.0" in done.stderr  # the expected form
    assert not (tmp_path / "git").exists()


def test_gates_json_reports_both_removed_flags_of_the_command(tmp_path: Path) -> None:
    done = call_cli(
        "gates",
        "v0.27.1",
        "v0.32.0",
        "--command",
        "vllm serve m --quantization bitsandbytes --calculate-kv-scales",
        "--json",
        cache=tmp_path,
    )
    findings = json.loads(done.stdout)["findings"]
    assert {(f["subject"], f["severity"], f["changed_at"]) for f in findings} >= {
        ("--calculate-kv-scales", "breaks", "v0.28.0"),
    }
    assert any(f["written"].endswith("bitsandbytes") and f["severity"] == "breaks" for f in findings)


def test_verify_evaluates_every_claim_over_the_bundled_releases(tmp_path: Path) -> None:
    done = call_cli("verify", "--json", cache=tmp_path)
    report = json.loads(done.stdout)
    assert len(report["tags"]) >= 30
    assert sum(report["counts"].values()) == len(report["results"]) > 100


def test_grep_on_a_tag_whose_tree_cannot_be_fetched_says_so_and_how_to_fix_it(tmp_path: Path) -> None:
    done = call_cli("grep", "CacheDType", "--tag", "v0.32.0", cache=tmp_path)
    assert done.returncode == 3  # a service could not be reached: distinct from a usage error
    assert "unreachable" in done.stderr and "VLLM_QUANT_MCP_INDEX_URL" in done.stderr
    assert not (tmp_path / "trees" / "v0.32.0").exists()


@pytest.mark.parametrize("command", ["registry", "gates", "pick", "grep", "refresh", "serve"])
def test_every_subcommand_has_help(command: str, tmp_path: Path) -> None:
    done = call_cli(command, "--help", cache=tmp_path)
    assert done.returncode == 0 and "usage:" in done.stdout


def test_top_level_help_shows_examples_and_the_environment(tmp_path: Path) -> None:
    done = call_cli("--help", cache=tmp_path)
    assert "examples:" in done.stdout and "VLLM_QUANT_MCP_CACHE_DIR" in done.stdout


FIXTURES = FIXTURE_ROOT / "deploy"


def test_audit_exits_1_on_an_invalid_script_and_0_on_a_clean_manifest(tmp_path: Path) -> None:
    invalid = call_cli("audit", str(FIXTURES / "serve_llama_v0_27.sh"), "--tag", "v0.32.0", "--json", cache=tmp_path)
    assert invalid.returncode == 1
    assert json.loads(invalid.stdout)["invalid_count"] == 2
    clean = call_cli("audit", str(FIXTURES / "llama_deployment.yaml"), "--tag", "v0.32.0", cache=tmp_path)
    assert clean.returncode == 0, clean.stdout + clean.stderr


def test_render_passes_extra_flags_after_a_double_dash_and_rejects_an_unknown_one(tmp_path: Path) -> None:
    good = call_cli(
        "render",
        "--model",
        "m",
        "--tag",
        "v0.32.0",
        "--format",
        "argv",
        "--json",
        "--",
        "--max-num-seqs",
        "8",
        cache=tmp_path,
    )
    assert good.returncode == 0, good.stderr
    assert json.loads(good.stdout)["argv"][-2:] == ["--max-num-seqs", "8"]
    bad = call_cli("render", "--model", "m", "--tag", "v0.32.0", "--", "--max-num-seqz", "8", cache=tmp_path)
    assert bad.returncode == 2 and "--max-num-seqs" in bad.stderr


def test_a_bad_pinned_tag_names_the_variable_it_came_from(tmp_path: Path) -> None:
    env_pinned = subprocess.run(
        [EXE, "tags"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "VLLM_QUANT_MCP_CACHE_DIR": str(tmp_path), "VLLM_QUANT_MCP_TAG": "bogus"},
    )
    assert env_pinned.returncode == 2 and "VLLM_QUANT_MCP_TAG" in env_pinned.stderr
    serve = call_cli("serve", "--tag", "latest", cache=tmp_path)
    assert serve.returncode == 2 and "--tag" in serve.stderr


def test_an_out_of_range_option_is_one_line_per_problem_not_a_validation_dump(tmp_path: Path) -> None:
    done = call_cli("grep", "x", "--tag", "v0.32.0", "--max-results", "0", cache=tmp_path)
    assert done.returncode == 2
    usage, *_, error = done.stderr.strip().splitlines()
    assert usage.startswith("usage: vllm-quant-mcp grep ")
    assert error == "vllm-quant-mcp grep: error: --max-results: Input should be greater than or equal to 1"


def test_verify_for_one_tag_reports_the_claims_that_speak_of_it_all_checkable(tmp_path: Path) -> None:
    report = json.loads(call_cli("verify", "--tags", "v0.32.0", "--json", cache=tmp_path).stdout)
    assert report["tags"] == ["v0.32.0"] and report["counts"]["not_checkable"] == 0
    assert all(any(e["tag"] == "v0.32.0" for e in r["evidence"]) for r in report["results"])


def test_pick_answers_offline_from_explicit_model_figures(tmp_path: Path) -> None:
    figures = '{"params_b": 70.6, "layers": 80, "kv_heads": 8, "head_dim": 128}'
    done = call_cli(
        "pick",
        "--gpu",
        "h200",
        "--model-figures",
        figures,
        "--num-gpus",
        "2",
        "--tag",
        "v0.32.0",
        "--json",
        cache=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    options = json.loads(done.stdout)["options"]
    registry = json.loads((REPO / "knowledge/registry/bundled/v0.32.0.json").read_text(encoding="utf-8"))
    methods = {m["name"] for m in registry["quantization_methods"]}
    assert options and all(o["quantization"]["name"] in methods for o in options)
