"""Shell, Kubernetes and compose variables expanded the way each of them does, as far as the file can tell."""

from __future__ import annotations

import shlex

import pytest

from vllm_quant_mcp.knowledge.deploy.expand import (
    Budget,
    expand_kubernetes,
    expand_line,
    expand_template,
    place_standalone,
)
from vllm_quant_mcp.knowledge.deploy.files import find_invocations


def words(line: str, known: dict[str, str]) -> tuple[list[str], list[str]]:
    expanded = expand_line(line, known, Budget())
    return place_standalone(shlex.split(expanded.text), expanded)


@pytest.mark.parametrize(
    "line",
    ['--q "$QUANT"', "--q $QUANT", "--q ${QUANT}", '--q "${QUANT}"', "--q ${QUANT:-int8}", "--q ${NOPE:-fp8}"],
)
def test_every_spelling_of_a_set_variable_or_its_default_gives_its_value(line: str) -> None:
    assert words(line, {"QUANT": "fp8"}) == (["--q", "fp8"], [])


def test_single_quotes_keep_the_reference_literal_as_the_shell_does() -> None:
    assert words("--q '$QUANT'", {"QUANT": "fp8"}) == (["--q", "$QUANT"], [])


def test_an_unquoted_value_is_split_into_words_and_a_quoted_one_is_not() -> None:
    known = {"ARGS": "--a 1 --b 2"}
    assert words("m $ARGS", known) == (["m", "--a", "1", "--b", "2"], [])
    assert words('m "$ARGS"', known) == (["m", "--a 1 --b 2"], [])


def test_assign_default_sets_the_variable_for_later_lines() -> None:
    known: dict[str, str] = {}
    expand_line(": ${KV:=fp8}", known, Budget())
    assert known == {"KV": "fp8"}


def test_alternate_value_applies_only_when_the_variable_is_set() -> None:
    assert words("x ${A:+--enforce-eager}", {"A": "1"}) == (["x", "--enforce-eager"], [])
    assert words("x ${A:+--enforce-eager}", {"A": ""}) == (["x"], [])


def test_unresolved_references_stay_one_word_in_a_value_slot_and_are_dropped_elsewhere() -> None:
    expanded = expand_line('vllm serve $MODEL --q $QUANT $EXTRA "$@" --tp $(nvidia-smi -L | wc -l)', {}, Budget())
    kept, dropped = place_standalone(shlex.split(expanded.text), expanded)
    assert kept == ["vllm", "serve", "$MODEL", "--q", "$QUANT", "--tp", "$(nvidia-smi -L | wc -l)"]
    assert dropped == ["$EXTRA", "$@"]
    assert set(expanded.unresolved) == {"$MODEL", "$QUANT", "$EXTRA", "$@", "$(nvidia-smi -L | wc -l)"}


def test_a_command_substitution_with_a_pipe_does_not_split_the_command() -> None:
    _, (inv,) = find_invocations("#!/bin/sh\nvllm serve m --tp $(nvidia-smi -L | wc -l) --port 8000\n", "run.sh")
    assert inv.command == "vllm serve m --tp '$(nvidia-smi -L | wc -l)' --port 8000"
    assert inv.unresolved == ["$(nvidia-smi -L | wc -l)"]


def test_a_script_with_variables_yields_the_command_the_shell_would_run() -> None:
    text = open_fixture("serve_with_variables.sh")
    _, (inv,) = find_invocations(text, "serve_with_variables.sh")
    assert shlex.split(inv.command) == [
        "vllm",
        "serve",
        "/models/Llama-3.1-70B-Instruct",
        "--quantization",
        "fp8",
        "--kv-cache-dtype",
        "fp8",
        "--tensor-parallel-size",
        "2",
        "--max-model-len",
        "32768",
        "--gpu-memory-utilization",
        "0.92",
        "--port",
        "${PORT}",
    ]
    assert inv.env == {"KV_DTYPE": "fp8", "VLLM_LOGGING_LEVEL": "INFO"}
    assert inv.unresolved == ["${PORT}"]
    assert any("$@" in n and "not checked" in n for n in inv.notes)
    assert any("${TP:-2}" in n and "'2'" in n for n in inv.notes)


def test_a_value_built_from_an_unset_variable_stays_unresolved_where_it_is_used() -> None:
    _, (inv,) = find_invocations("#!/bin/sh\nQ=$BASE_QUANT\nvllm serve m --quantization $Q\n", "run.sh")
    assert inv.unresolved == ["$BASE_QUANT"]


def test_kubernetes_expands_its_own_syntax_from_the_container_env() -> None:
    env = {"QUANT": "fp8"}
    assert expand_kubernetes("--quantization=$(QUANT)", env, Budget()).text == "--quantization=fp8"
    assert expand_kubernetes("$$(QUANT)", env, Budget()).text == "$(QUANT)"
    missing = expand_kubernetes("$(NOPE)", env, Budget())
    assert (missing.text, missing.unresolved) == ("$(NOPE)", ["$(NOPE)"])


def test_a_manifest_resolves_args_from_its_env_block_and_says_which_syntax_kubernetes_reads() -> None:
    manifest = """\
kind: Deployment
metadata: {name: llm}
spec:
  template:
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.32.0
          env:
            - {name: QUANT, value: fp8}
            - {name: KV, value: $(QUANT)}
          args: [m, --quantization, $(QUANT), --kv-cache-dtype, "${KV}", --port, $(PORT)]
"""
    _, (inv,) = find_invocations(manifest, "deploy.yaml")
    assert inv.command == "vllm serve m --quantization fp8 --kv-cache-dtype fp8 --port '$(PORT)'"
    assert inv.unresolved == ["$(PORT)"]
    assert any("Kubernetes expands $(VAR)" in n for n in inv.notes)


def test_a_container_shell_script_expands_the_container_env() -> None:
    manifest = """\
kind: Pod
metadata: {name: llm}
spec:
  containers:
    - name: vllm
      image: vllm/vllm-openai:v0.32.0
      env: [{name: QUANT, value: fp8}]
      command: [sh, -c, 'exec vllm serve m --quantization "$QUANT"']
"""
    _, (inv,) = find_invocations(manifest, "pod.yaml")
    assert (inv.command, inv.unresolved) == ("vllm serve m --quantization fp8", [])


def test_compose_interpolates_defaults_and_keeps_double_dollars_for_the_container_shell() -> None:
    assert expand_template("${QUANT:-fp8}", {}, Budget()).text == "fp8"
    assert expand_template("$$QUANT", {"QUANT": "x"}, Budget()).text == "$QUANT"
    compose = """\
services:
  llm:
    image: vllm/vllm-openai:v0.32.0
    environment:
      QUANT: ${QUANT:-fp8}
    command: m --quantization ${QUANT} --kv-cache-dtype ${KV:-fp8}
"""
    _, (inv,) = find_invocations(compose, "docker-compose.yml")
    assert inv.command == "vllm serve m --quantization fp8 --kv-cache-dtype fp8"
    assert any("compose fills ${VAR}" in n for n in inv.notes)


def open_fixture(name: str) -> str:
    from support.paths import FIXTURES

    return (FIXTURES / "deploy" / name).read_text(encoding="utf-8")
