"""The README's set-up commands and client snippets are the ones that work."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

from vllm_quant_mcp.server.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README, flags=re.DOTALL)


def _commands(block: str) -> list[str]:
    return [line for line in block.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def test_readme_opens_with_exactly_two_setup_commands_and_ci_runs_the_second() -> None:
    first = _commands(_blocks("bash")[0])
    assert len(first) == 2
    assert "pip install" in first[0] and "vllm-quant-mcp" in first[0]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert first[1] in ci
    assert "pytest" in first[1]


def test_the_first_command_asks_a_question_the_cli_accepts() -> None:
    first = _commands(_blocks("bash")[0])[0]
    cli = shlex.split(first.split("&&")[-1])
    assert cli[0].endswith("vllm-quant-mcp")
    build_parser().parse_args(cli[1:])


def test_every_client_json_snippet_parses_and_starts_a_valid_serve_command() -> None:
    snippets = [json.loads(block) for block in _blocks("json")]
    assert snippets
    for snippet in snippets:
        for server in snippet["mcpServers"].values():
            assert server["command"].endswith("vllm-quant-mcp")
            args = build_parser().parse_args(server["args"])
            assert args.command == "serve"


def test_the_claude_code_line_registers_a_valid_serve_command() -> None:
    (line,) = [c for block in _blocks("bash") for c in _commands(block) if c.startswith("claude mcp add")]
    words = shlex.split(line)
    server_argv = words[words.index("--") + 2 :]
    assert build_parser().parse_args(server_argv).command == "serve"
