"""The README's set-up commands and client snippets are the ones that work."""

from __future__ import annotations

import json
import os
import re
import shlex
from pathlib import Path

from vllm_quant_mcp.server.cli.main import build_parser

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


def _cli_lines() -> list[list[str]]:
    """Every `vllm-quant-mcp ...` command of the README's bash blocks, as argv after the program name."""
    found = []
    for block in _blocks("bash"):
        for line in _commands(block):
            inner = re.search(r"\$\((vllm-quant-mcp [^)]*)\)", line)
            text = inner.group(1) if inner else line
            if not text.startswith("vllm-quant-mcp "):
                continue
            words = shlex.split(text, comments=True)
            cut = next((i for i, w in enumerate(words) if w in (">", "|", "&&")), len(words))
            found.append(words[1:cut])
    return found


def test_every_cli_command_in_the_readme_is_one_the_parser_accepts() -> None:
    lines = _cli_lines()
    assert len(lines) >= 15
    for argv in lines:
        build_parser().parse_args(argv)


README_OFFLINE = {"tags", "registry", "diff", "gates", "verify", "render", "cache", "completion", "pick"}


def test_the_readme_commands_that_need_no_remote_service_run_and_succeed(tmp_path: Path) -> None:
    from support.cli import call_cli
    from support.hubserver import HubServer

    ran = set()
    with HubServer() as hub:
        for argv in _cli_lines():
            if argv[0] not in README_OFFLINE or (argv[0] == "cache" and argv[1] != "list"):
                continue
            done = call_cli(*argv, cache=tmp_path, HF_ENDPOINT=hub.endpoint)
            assert done.returncode == 0, (argv, done.stderr)
            assert done.stdout.strip(), argv
            ran.add(argv[0])
    assert ran == README_OFFLINE


def test_the_cli_reference_in_the_readme_is_the_one_the_parser_writes() -> None:
    from vllm_quant_mcp.server.cli.reference import BEGIN, END, reference

    start, end = README.index(BEGIN), README.index(END) + len(END)
    expected = reference(build_parser())
    if os.environ.get("UPDATE_SNAPSHOTS"):
        (ROOT / "README.md").write_text(README[:start] + expected + README[end:], encoding="utf-8")
        return
    assert README[start:end] == expected, "run UPDATE_SNAPSHOTS=1 pytest tests/test_readme.py to regenerate it"


def test_the_readme_lists_every_exit_code_the_cli_documents() -> None:
    from vllm_quant_mcp.server.cli.main import EXIT_CODES

    section = README[README.index("### Exit codes") :]
    table = section[: section.index("\n\n", section.index("|---|"))]
    codes = {row.split("|")[1].strip() for row in table.splitlines() if row.startswith("| ")}
    assert {int(c) for c in codes if c.isdigit()} == set(EXIT_CODES) - {130}
