"""Completion scripts come from the parser; bash loads the bash one and completes commands, options, choices, tags."""

from __future__ import annotations

import shlex
import subprocess
from pathlib import Path

import pytest
from support.cli import call_cli

from vllm_quant_mcp.server.cli.main import build_parser


def complete(script: str, line: str) -> list[str]:
    """COMPREPLY for `line` (the cursor at its end), after bash has loaded `script`."""
    words = shlex.split(line) + ([""] if line.endswith(" ") else [])
    probe = (
        f"{script}\n"
        f"COMP_WORDS=({' '.join(shlex.quote(w) for w in words)}); COMP_CWORD={len(words) - 1}\n"
        "_vqm_complete; printf '%s\\n' \"${COMPREPLY[@]}\"\n"
    )
    done = subprocess.run(["bash", "--norc", "--noprofile", "-c", probe], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return [w for w in done.stdout.splitlines() if w]


@pytest.fixture(scope="module")
def bash_script(tmp_path_factory: pytest.TempPathFactory) -> str:
    done = call_cli("completion", "bash", cache=tmp_path_factory.mktemp("cache"))
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_bash_script_loads_and_registers_the_completion(bash_script: str) -> None:
    done = subprocess.run(
        ["bash", "--norc", "--noprofile", "-c", f"{bash_script}\ncomplete -p vllm-quant-mcp"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0 and done.stderr == ""
    assert "-F _vqm_complete vllm-quant-mcp" in done.stdout


def test_bash_completes_commands_options_choices_and_tags(bash_script: str) -> None:
    assert complete(bash_script, "vllm-quant-mcp reg") == ["registry"]
    assert complete(bash_script, "vllm-quant-mcp registry --ki") == ["--kind"]
    assert "kv_cache_dtypes" in complete(bash_script, "vllm-quant-mcp registry --kind kv")
    assert "v0.32.0" in complete(bash_script, "vllm-quant-mcp registry --tag v0.3")
    assert "v0.27.1" in complete(bash_script, "vllm-quant-mcp diff v0.2")
    assert complete(bash_script, "vllm-quant-mcp audit x.sh --format sa") == ["sarif"]
    assert complete(bash_script, "vllm-quant-mcp cache ") == ["dir", "list", "prune", "clear"]
    assert complete(bash_script, "vllm-quant-mcp cache prune --ol") == ["--older-than"]


def test_gpu_completes_to_the_knowledge_bases_gpus_and_matrix_tags_to_the_tags(bash_script: str) -> None:
    assert complete(bash_script, "vllm-quant-mcp pick --gpu h2") == ["h200"]
    assert set(complete(bash_script, "vllm-quant-mcp gates v0.31.0 v0.32.0 --gpu mi")) == {"mi300x", "mi355x"}
    assert "v0.32.0" in complete(bash_script, "vllm-quant-mcp matrix v0.3")
    assert "kv_cache_dtypes" in complete(bash_script, "vllm-quant-mcp diff v0.31.0 v0.32.0 --kind kv")


def test_every_command_of_the_parser_is_in_every_shells_script(tmp_path: Path) -> None:
    commands = next(a for a in build_parser()._actions if a.dest == "command").choices
    assert commands is not None
    for shell in ("bash", "zsh", "fish"):
        text = call_cli("completion", shell, cache=tmp_path).stdout
        assert all(name in text for name in commands), shell


def test_the_zsh_script_is_the_bash_script_behind_zshs_bash_completion_layer(bash_script: str, tmp_path: Path) -> None:
    zsh = call_cli("completion", "zsh", cache=tmp_path).stdout
    assert "bashcompinit && bashcompinit" in zsh
    assert bash_script.split("\n", 1)[1] in zsh


def test_the_fish_script_is_one_complete_command_per_line(tmp_path: Path) -> None:
    fish = call_cli("completion", "fish", cache=tmp_path).stdout
    lines = [line for line in fish.splitlines() if line and not line.startswith("#")]
    assert all(shlex.split(line)[:3] == ["complete", "-c", "vllm-quant-mcp"] for line in lines)
    assert any("-l kind" in line and "kv_cache_dtypes" in line for line in lines)
