"""Deployment text written to make the reader work without bound: each test is named after the threat it blocks."""

from __future__ import annotations

import pytest

from vllm_quant_mcp.knowledge.deploy.serve_command import (
    MAX_FLAGS,
    MAX_JSON_DEPTH,
    ServeCommandError,
    parse_serve_command,
)


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
