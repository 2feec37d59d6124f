"""Deployment text written to make the reader work without bound: each test is named after the threat it blocks."""

from __future__ import annotations

import pytest

from vllm_quant_mcp.knowledge.deploy.expand import EXPANSION_BUDGET, MAX_CONTAINERS, MAX_NESTING, ExpansionLimitError
from vllm_quant_mcp.knowledge.deploy.files import DeployFileError, find_invocations
from vllm_quant_mcp.knowledge.deploy.invocation import MAX_LINE_CHARS
from vllm_quant_mcp.knowledge.deploy.serve_command import (
    MAX_FLAGS,
    MAX_JSON_DEPTH,
    ServeCommandError,
    parse_serve_command,
)
from vllm_quant_mcp.knowledge.deploy.shell import MAX_REFERENCES


@pytest.mark.timeout(20)
def test_a_json_value_nested_past_the_parsers_stack_is_a_finding_not_a_crash() -> None:
    deep = "[" * 100_000 + "]" * 100_000
    command = parse_serve_command(f"vllm serve m --quantization-config '{deep}' --speculative-config.x '{deep}'")
    for flag in command.flags:
        assert flag.json_value is None
        assert flag.json_error is not None and "100000 levels" in flag.json_error
        assert f"at most {MAX_JSON_DEPTH}" in flag.json_error


def test_json_nested_as_deep_as_vllm_configs_still_decodes() -> None:
    nested = '{"a": ' * MAX_JSON_DEPTH + '"[{x}]"' + "}" * MAX_JSON_DEPTH
    (flag,) = parse_serve_command(f"vllm serve m --speculative-config '{nested}'").flags
    assert flag.json_error is None and isinstance(flag.json_value, dict)


def test_a_command_of_generated_flags_past_the_cap_is_refused_naming_the_cap() -> None:
    flags = " ".join(f"--x{i}" for i in range(MAX_FLAGS + 1))
    with pytest.raises(ServeCommandError, match=f"{MAX_FLAGS + 1:,} flags.*up to {MAX_FLAGS:,}"):
        parse_serve_command(f"vllm serve m {flags}")
    assert len(parse_serve_command(f"vllm serve m {flags.rsplit(' ', 1)[0]}").flags) == MAX_FLAGS


@pytest.mark.timeout(20)
def test_variables_that_double_each_line_billion_laughs_are_refused_not_expanded() -> None:
    lines = ["#!/bin/sh", "A0=lol", *(f"A{i}=$A{i - 1}$A{i - 1}" for i in range(1, 40)), "vllm serve m --x $A39"]
    with pytest.raises(DeployFileError, match=f"once its variables are expanded.*up to {MAX_LINE_CHARS:,}"):
        find_invocations("\n".join(lines), "laughs.sh")


@pytest.mark.timeout(20)
def test_lines_each_repeating_a_long_value_are_stopped_by_the_files_expansion_budget() -> None:
    long = "x" * (MAX_LINE_CHARS - 100)
    copies = EXPANSION_BUDGET // len(long) + 1
    lines = ["#!/bin/sh", f"A={long}", *(f"B{i}=$A" for i in range(copies)), "vllm serve m"]
    with pytest.raises(ExpansionLimitError, match=f"passes {EXPANSION_BUDGET:,} characters"):
        find_invocations("\n".join(lines), "copies.sh")


@pytest.mark.timeout(20)
def test_a_kubernetes_env_value_repeating_a_large_variable_is_stopped_by_the_expansion_budget() -> None:
    env = f"[{{name: A, value: {'x' * 60_000}}}, {{name: B, value: '{'$(A)' * 100_000}'}}]"
    text = f"kind: Pod\nmetadata: {{name: p}}\nspec: {{containers: [{{name: c, env: {env}, args: [--model, m]}}]}}\n"
    with pytest.raises(ExpansionLimitError, match="passes"):
        find_invocations(text, "pod.yaml")


@pytest.mark.timeout(20)
def test_a_script_shared_by_a_thousand_containers_through_an_alias_is_charged_each_time() -> None:
    script = "vllm serve m " + " ".join(f"--x{i} v" for i in range(5_000))
    containers = ", ".join(f"{{name: c{i}, image: x, command: [sh, -c, *s]}}" for i in range(1_000))
    text = f"kind: Pod\nmetadata: {{name: p}}\nscript: &s '{script}'\nspec: {{containers: [{containers}]}}\n"
    with pytest.raises(ExpansionLimitError, match="repeated through YAML aliases"):
        find_invocations(text, "pod.yaml")


@pytest.mark.timeout(20)
def test_defaults_nested_past_the_limit_are_refused_instead_of_exhausting_the_stack() -> None:
    nested = "${A:-" * 10_000 + "x" + "}" * 10_000
    with pytest.raises(ExpansionLimitError, match=f"over {MAX_NESTING} levels"):
        find_invocations(f"#!/bin/sh\nvllm serve m --x {nested}\n", "nested.sh")
    assert find_invocations("#!/bin/sh\nvllm serve m --x ${A:-${B:-x}}\n", "ok.sh")[1][0].command.endswith("--x x")


@pytest.mark.timeout(20)
def test_a_word_of_most_of_a_megabyte_is_refused_before_shlex_builds_it_a_character_at_a_time() -> None:
    text = '#!/bin/sh\nvllm serve m --x "' + "y" * 900_000 + '"\n'
    with pytest.raises(DeployFileError, match=r"900,0\d\d characters"):
        find_invocations(text, "long.sh")


@pytest.mark.timeout(20)
def test_a_line_of_thousands_of_unresolved_references_is_refused_naming_the_cap() -> None:
    refs = " ".join(f"$U{i}" for i in range(MAX_REFERENCES + 1))
    with pytest.raises(DeployFileError, match=f"{MAX_REFERENCES + 1:,} variable references.*{MAX_REFERENCES:,}"):
        find_invocations(f'#!/bin/sh\nvllm serve m --x "{refs}"\n', "refs.sh")


def test_one_anchored_list_of_containers_under_thousands_of_pods_cannot_expand_past_the_container_cap() -> None:
    containers = "".join(f"  - &c{i} {{name: c{i}, image: vllm/vllm-openai:v0.32.0, args: [m]}}\n" for i in range(1000))
    pods = "".join("  - {kind: Pod, spec: {containers: *all}}\n" for _ in range(7000))
    text = f"kind: List\nshared: &all\n{containers}items:\n{pods}"
    with pytest.raises(ExpansionLimitError, match=f"more than {MAX_CONTAINERS:,} containers.*up to {MAX_CONTAINERS:,}"):
        find_invocations(text, "pods.yaml")
