"""What may be shown back: a bad value clipped to a short prefix, URL credentials hidden in text and log records."""

from __future__ import annotations

import logging

import pytest

from vllm_quant_mcp.knowledge.echo import CLIP, clip, redact
from vllm_quant_mcp.knowledge.redacted_logs import RedactingFilter


def test_a_huge_value_is_quoted_as_a_short_prefix_that_says_how_much_was_left_out() -> None:
    shown = clip("v" * 100_000)
    assert shown.startswith("'vvv") and len(shown) < CLIP + 40 and "100,001 more" not in shown
    assert "99,942 more characters" in shown
    assert clip("v0.32.0") == "'v0.32.0'"


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("http://user:SECRET@127.0.0.1:9/simple", "http://***@127.0.0.1:9/simple"),
        (
            "git fetch from https://ghp_SECRET@github.com/vllm-project/vllm.git",
            "git fetch from https://***@github.com/vllm-project/vllm.git",
        ),
        ("https://h/x?access_token=SECRET&page=2", "https://h/x?access_token=***&page=2"),
        ("ssh://git@[::1]:22/x.git", "ssh://***@[::1]:22/x.git"),
        (
            "https://github.com/vllm-project/vllm/issues/1 and user@example.com",
            "https://github.com/vllm-project/vllm/issues/1 and user@example.com",
        ),
    ],
)
def test_url_credentials_are_redacted_and_nothing_else_is_touched(text: str, shown: str) -> None:
    assert redact(text) == shown


def test_a_log_record_carrying_a_credential_in_its_arguments_or_traceback_is_redacted() -> None:
    try:
        raise ConnectionError("refused by http://u:SECRET@127.0.0.1:9")
    except ConnectionError as exc:
        record = logging.LogRecord("x", logging.WARNING, __file__, 1, "fetch %s failed", ("http://u:SECRET@h",), None)
        record.exc_info = (type(exc), exc, exc.__traceback__)
    assert RedactingFilter().filter(record)
    assert "SECRET" not in logging.Formatter().format(record)


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("https://user:p@ss@mirror.internal/simple", "https://***@mirror.internal/simple"),
        (
            "https://b.s3.amazonaws.com/v.tar.gz?X-Amz-Credential=AKIA/1&X-Amz-Signature=ab12&x=1",
            "https://b.s3.amazonaws.com/v.tar.gz?X-Amz-Credential=***&X-Amz-Signature=***&x=1",
        ),
        (
            "https://gitlab.internal/api/v4/f?private_token=glpat-1",
            "https://gitlab.internal/api/v4/f?private_token=***",
        ),
        ("https://storage.example/f.tar.gz?key=AIzaSy1", "https://storage.example/f.tar.gz?key=***"),
    ],
)
def test_a_mirror_url_cannot_carry_its_credentials_into_what_is_stored_or_shown(url: str, shown: str) -> None:
    assert redact(url) == shown
