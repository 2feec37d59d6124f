"""`pick --model` reads the hub the way the Hugging Face tools do: the token `hf auth login` saved, HF_HOME's cache,
HF_HUB_OFFLINE. Each test is a fresh CLI process (huggingface_hub reads its settings at import) against the local hub
stand-in, with its own HF_HOME."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.hubserver import HubServer

EXE = Path(sys.executable).with_name("vllm-quant-mcp")
HF = Path(sys.executable).with_name("hf")
LLAMA = "meta-llama/Llama-3.1-70B-Instruct"
SECRET = "hf_saved_by_login_42"


@pytest.fixture()
def hub() -> Iterator[HubServer]:
    with HubServer() as server:
        server.gated[LLAMA] = SECRET
        yield server


def env_for(tmp_path: Path, endpoint: str, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HF_")}
    return {
        **env,
        "HF_HOME": str(tmp_path / "hf-home"),
        "HF_ENDPOINT": endpoint,
        "VLLM_QUANT_MCP_CACHE_DIR": str(tmp_path / "cache"),
        **extra,
    }


def pick(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    command = [str(EXE), "pick", "--gpu", "h200", "--model", LLAMA, "--num-gpus", "2", "--tag", "v0.32.0", "--json"]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)


def test_a_gated_model_is_read_with_the_token_hf_auth_login_saved(hub: HubServer, tmp_path: Path) -> None:
    env = env_for(tmp_path, hub.endpoint)
    refused = pick(env)
    assert refused.returncode == 2 and "hf auth login" in refused.stderr and SECRET not in refused.stderr
    login = subprocess.run(
        [str(HF), "auth", "login", "--token", SECRET], capture_output=True, text=True, env=env, timeout=120
    )
    assert login.returncode == 0, login.stderr
    done = pick(env)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["model"]["params"] == 70_553_706_496
    assert f"Bearer {SECRET}" in hub.auth_headers and SECRET not in done.stdout + done.stderr


def test_a_config_in_the_local_hugging_face_cache_answers_when_the_hub_is_down(tmp_path: Path) -> None:
    with HubServer() as live:
        endpoint = live.endpoint
        assert pick(env_for(tmp_path, endpoint)).returncode == 0
    offline = pick(env_for(tmp_path, endpoint))
    assert offline.returncode == 0, offline.stderr
    notes = json.loads(offline.stdout)["notes"]
    assert any("did not answer" in n and "local Hugging Face cache" in n for n in notes)


def test_hf_hub_offline_reads_the_cache_without_a_request(hub: HubServer, tmp_path: Path) -> None:
    env = env_for(tmp_path, hub.endpoint, HF_TOKEN=SECRET)
    assert pick(env).returncode == 0
    before = len(hub.requests)
    offline = pick({**env, "HF_HUB_OFFLINE": "1"})
    assert offline.returncode == 0, offline.stderr
    assert len(hub.requests) == before


def test_a_gated_model_cached_earlier_answers_without_a_token(hub: HubServer, tmp_path: Path) -> None:
    assert pick(env_for(tmp_path, hub.endpoint, HF_TOKEN=SECRET)).returncode == 0
    without = pick(env_for(tmp_path, hub.endpoint))
    assert without.returncode == 0, without.stderr
    assert any("refused" in n and "local Hugging Face cache" in n for n in json.loads(without.stdout)["notes"])
