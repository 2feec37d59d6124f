"""A team's shared cache: one job prepares it, servers read it, and what they write as they answer goes elsewhere."""

from __future__ import annotations

from pathlib import Path

from support.cli import run_cli
from support.hubserver import HubServer

MODEL = "Qwen/Qwen3-30B-A3B"


def files_under(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")} if root.exists() else set()


def test_answers_fetched_on_demand_are_kept_in_the_state_dir_not_in_the_shared_cache(tmp_path: Path) -> None:
    cache, state = tmp_path / "shared-cache", tmp_path / "state"
    cache.mkdir()
    with HubServer() as hub:
        done = run_cli(
            "pick", "--gpu", "h100", "--model", MODEL, "--tag", "v0.32.0", "--json",
            cache=cache, VLLM_QUANT_MCP_STATE_DIR=str(state), HF_ENDPOINT=hub.endpoint, HF_HOME=str(tmp_path / "hf"),
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (state / "hub").is_dir() and files_under(cache) == set()


def test_a_cache_that_cannot_be_written_still_answers_and_says_how_to_keep_answers(tmp_path: Path) -> None:
    cache = tmp_path / "shared-cache"
    cache.mkdir()
    (cache / "hub").write_text("not a folder: root cannot write here either", encoding="utf-8")
    with HubServer() as hub:
        done = run_cli(
            "pick", "--gpu", "h100", "--model", MODEL, "--tag", "v0.32.0",
            cache=cache, HF_ENDPOINT=hub.endpoint, HF_HOME=str(tmp_path / "hf"),
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "cannot be written" in done.stderr + done.stdout and "VLLM_QUANT_MCP_STATE_DIR" in done.stderr + done.stdout
    assert "Traceback" not in done.stderr
