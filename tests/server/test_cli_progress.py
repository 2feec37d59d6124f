"""`refresh` reports each stage on stderr (fetch in bytes, extract, index, derive): plain lines into a pipe, bars on
a terminal; stdout holds the result alone. A real sdist served by the local package index."""

from __future__ import annotations

import os
import pty
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.cli import EXE, cli_env
from support.httpindex import IndexServer
from support.releases import sdist


@pytest.fixture(scope="module")
def index() -> Iterator[IndexServer]:
    with IndexServer([sdist("0.6.3")]) as server:
        yield server


def test_refresh_into_a_pipe_prints_one_line_per_stage_start_and_end_on_stderr(
    index: IndexServer, tmp_path: Path
) -> None:
    env = cli_env(tmp_path, VLLM_QUANT_MCP_INDEX_URL=index.index_url)
    done = subprocess.run(
        [EXE, "refresh", "--tag", "v0.6.3", "--source", "pypi"], capture_output=True, text=True, env=env, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0].startswith("v0.6.3: tree fetched from pypi")
    assert not any(word in done.stdout for word in ("fetch:", "extract:", "derive:"))
    size = sdist("0.6.3").stat().st_size
    lines = done.stderr.splitlines()
    assert lines[0] == f"fetch: vllm-0.6.3.tar.gz 0% (0.0/{size / 1e6:.1f} MB)"
    assert f"fetch: vllm-0.6.3.tar.gz 100% ({size / 1e6:.1f}/{size / 1e6:.1f} MB, done)" in lines
    for stage, unit in (("extract", "files"), ("index", "files"), ("derive", "kinds")):
        assert any(line.startswith(f"{stage}: ") and line.endswith(f" {unit}, done)") for line in lines), stage
    stages = [line.split(":")[0] for line in lines]
    assert stages.index("fetch") < stages.index("extract") < stages.index("index") < stages.index("derive")


def test_refresh_on_a_terminal_draws_progress_bars_on_stderr(index: IndexServer, tmp_path: Path) -> None:
    env = cli_env(tmp_path, VLLM_QUANT_MCP_INDEX_URL=index.index_url, COLUMNS="100", TERM="xterm")
    leader, follower = pty.openpty()
    chunks: list[bytes] = []
    reader = threading.Thread(target=_drain, args=(leader, chunks), daemon=True)
    reader.start()  # a terminal nobody reads fills up and blocks the writer: read while it runs
    try:
        proc = subprocess.Popen(
            [EXE, "refresh", "--tag", "v0.6.3", "--source", "pypi"], stdout=subprocess.PIPE, stderr=follower, env=env
        )
        out, _ = proc.communicate(timeout=300)
    finally:
        os.close(follower)
        reader.join(timeout=60)
        os.close(leader)
    drawn = b"".join(chunks).decode("utf-8", errors="replace")
    assert proc.returncode == 0
    assert out.decode().startswith("v0.6.3: tree fetched from pypi")
    assert "fetch vllm-0.6.3.tar.gz" in drawn and "derive registry of v0.6.3" in drawn
    assert "━" in drawn and "100%" in drawn


def _drain(fd: int, chunks: list[bytes]) -> None:
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # the terminal's other end closed: everything written has been read
            return
        if not chunk:
            return
        chunks.append(chunk)
