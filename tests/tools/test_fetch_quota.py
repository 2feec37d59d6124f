"""What a process may fetch into the operator's cache: nothing when told so, else a quota of trees."""

from __future__ import annotations

import pytest

from vllm_quant_mcp.tools.context import Fetches, FetchRefusedError


def test_a_process_told_not_to_fetch_refuses_naming_the_setting_and_the_tags_on_disk() -> None:
    with pytest.raises(FetchRefusedError, match=r"runs with --no-fetch.*On disk: v0\.32\.0"):
        Fetches("this server runs with --no-fetch").take("v0.30.0", ["v0.32.0"])


def test_fetches_past_the_quota_are_refused_naming_the_quota() -> None:
    fetches = Fetches(quota=2)
    fetches.take("v0.30.0", [])
    fetches.take("v0.31.0", [])
    with pytest.raises(FetchRefusedError, match="quota of 2 trees"):
        fetches.take("v0.32.0", [])
