"""Where a finding's flag, value or variable is written in a deployment file: line and columns."""

from __future__ import annotations

from vllm_quant_mcp.knowledge.deploy.locate import Span, locate

SCRIPT = """#!/bin/sh
export VLLM_USE_V1=0
Q=fp8
vllm serve m \\
    --max-model-len 4096 \\
    --quantization="bitsandbytes" \\
    --kv-cache-dtype "$Q" \\
    --calculate-kv-scales
"""


def cut(span: Span | None) -> str:
    assert span is not None
    return SCRIPT.splitlines()[span.line - 1][span.start - 1 : span.end - 1]


def test_a_value_finding_points_at_the_value_even_quoted_after_an_equals_sign() -> None:
    span = locate(SCRIPT, 4, "--quantization bitsandbytes", "--quantization bitsandbytes")
    assert span is not None and span.line == 6 and cut(span) == "bitsandbytes"


def test_a_flag_finding_points_at_the_flag_on_its_own_continued_line() -> None:
    span = locate(SCRIPT, 4, "--calculate-kv-scales", "--calculate-kv-scales")
    assert span is not None and span.line == 8 and cut(span) == "--calculate-kv-scales"


def test_a_value_the_file_builds_from_a_variable_points_at_its_flag() -> None:
    assert cut(locate(SCRIPT, 4, "--kv-cache-dtype fp8", "--kv-cache-dtype fp8")) == "--kv-cache-dtype"


def test_a_variable_points_at_where_the_file_exports_it() -> None:
    span = locate(SCRIPT, 4, "VLLM_USE_V1", "VLLM_USE_V1")
    assert span is not None and span.line == 2 and cut(span) == "VLLM_USE_V1"


def test_a_flag_named_inside_a_longer_flag_is_not_taken_for_it() -> None:
    assert locate("vllm serve m --max-model-len-x 1\n", 1, "--max-model-len 4", "--max-model-len") is None


def test_something_the_file_does_not_write_has_no_span() -> None:
    assert locate(SCRIPT, 4, "--tensor-parallel-size 2", "--tensor-parallel-size") is None
    assert locate(SCRIPT, 4, "VLLM_NOT_SET", "VLLM_NOT_SET") is None
