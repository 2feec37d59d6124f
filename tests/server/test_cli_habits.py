"""The habits people expect of a CLI like gh or uv: a version, suggestions for typos, the subcommand's own usage on
its errors, flags spelled as typed, exit codes that tell a usage error from an unreachable service, JSON with a
schema version."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.cli import call_cli
from support.paths import FIXTURES


def test_version_prints_the_installed_version_and_exits_0(tmp_path: Path) -> None:
    from importlib.metadata import version

    done = call_cli("--version", cache=tmp_path)
    assert (done.returncode, done.stdout.strip()) == (0, f"vllm-quant-mcp {version('vllm-quant-mcp')}")


def test_a_mistyped_command_names_the_nearest_one(tmp_path: Path) -> None:
    done = call_cli("registy", cache=tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert "unknown command 'registy'; did you mean 'registry'?" in done.stderr


def test_a_mistyped_option_shows_the_subcommand_usage_and_the_nearest_option(tmp_path: Path) -> None:
    done = call_cli("registry", "--kidn", "cli_flags", cache=tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith("usage: vllm-quant-mcp registry ")
    assert "vllm-quant-mcp registry: error: unrecognized arguments: --kidn cli_flags" in done.stderr
    assert "did you mean --kind?" in done.stderr


def test_a_mistyped_choice_names_the_nearest_choice_in_the_subcommand_usage(tmp_path: Path) -> None:
    done = call_cli("registry", "--kind", "cli_flag", cache=tmp_path)
    assert done.returncode == 2 and done.stderr.startswith("usage: vllm-quant-mcp registry ")
    assert "did you mean 'cli_flags'?" in done.stderr


def test_render_advice_names_the_checkpoint_dtype_flag(tmp_path: Path) -> None:
    done = call_cli("render", "--model", "m", "--tag", "v0.32.0", "-q", "fp8", cache=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "checkpoint_dtype" not in done.stdout and "--checkpoint-dtype bf16" in done.stdout


def test_a_service_that_cannot_be_reached_exits_3_not_2(tmp_path: Path) -> None:
    done = call_cli("issue", "12345", cache=tmp_path)
    assert done.returncode == 3 and "GitHub unreachable" in done.stderr
    usage = call_cli("issue", "not-a-number", cache=tmp_path)
    assert usage.returncode == 2


def test_an_issue_answered_without_github_says_its_state_is_unknown(tmp_path: Path) -> None:
    done = call_cli("issue", "38652", "--tag", "v0.18.0", cache=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "state: None" not in done.stdout and "state: unknown" in done.stdout


@pytest.mark.parametrize(
    "args",
    [
        ("tags",),
        ("registry", "--tag", "v0.32.0"),
        ("registry", "--tag", "v0.32.0", "--kind", "kv_cache_dtypes"),
        ("diff", "v0.31.0", "v0.32.0", "--kind", "platforms"),
        ("gates", "v0.31.0", "v0.32.0", "--command", "vllm serve m --quantization fp8"),
        ("render", "--model", "m", "--tag", "v0.32.0"),
        ("audit", str(FIXTURES / "deploy" / "llama_deployment.yaml"), "--tag", "v0.32.0"),
        ("verify", "--tags", "v0.32.0"),
        ("cache", "list"),
    ],
)
def test_every_json_shape_carries_a_schema_version(args: tuple[str, ...], tmp_path: Path) -> None:
    done = call_cli(*args, "--json", cache=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["schema_version"] >= 1


def test_tags_json_marks_bundled_and_refreshed_tags(tmp_path: Path) -> None:
    from support.paths import REPO

    registries = tmp_path / "registries"
    registries.mkdir()
    bundled = (REPO / "knowledge/registry/bundled/v0.32.0.json").read_text(encoding="utf-8")
    (registries / "v0.32.0.json").write_text(bundled, encoding="utf-8")
    known = {k["tag"]: k for k in json.loads(call_cli("tags", "--json", cache=tmp_path).stdout)["known"]}
    assert known["v0.32.0"] == {"tag": "v0.32.0", "bundled": True, "refreshed": True, "tree": False}
    assert known["v0.31.0"] == {"tag": "v0.31.0", "bundled": True, "refreshed": False, "tree": False}


def test_the_fast_version_answer_is_the_one_the_parser_gives(capsys: pytest.CaptureFixture[str]) -> None:
    from vllm_quant_mcp.server.cli.main import main as full
    from vllm_quant_mcp.server.entry import main as entry

    assert entry(["--version"]) == 0
    fast = capsys.readouterr().out
    with pytest.raises(SystemExit) as exited:
        full(["--version"])
    assert exited.value.code == 0 and capsys.readouterr().out == fast
