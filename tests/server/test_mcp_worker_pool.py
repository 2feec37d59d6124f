"""An HTTP server runs the compute lane's calls in worker processes: the same answers, and nothing left running.

Real server processes (support/http_server.py); the slow calls are real too: pick_format reading
a model from a stand-in hub that holds its answers until the test lets go, so a worker stays
busy for as long as the test needs, and audits of a script of a thousand unknown flags (each
looked up at every release) for CPU. The workers are found as the server's child processes.
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Callable, Iterator
from pathlib import Path

import anyio
import anyio.to_thread
import pytest
from mcp.client.session import ClientSession
from mcp.types import CallToolResult, TextContent
from support.http_server import HttpServer, http_server, http_session, until_working
from support.hubserver import HubServer
from support.proctree import alive, descendants
from support.releases import install_release_tree

pytestmark = pytest.mark.anyio
TAG = "v0.32.0"
SLOW = "meta-llama/Llama-3.1-70B-Instruct"
OTHER = "Qwen/Qwen3-30B-A3B"
AUDIT = {"text": "#!/bin/sh\nvllm serve m " + " ".join(f"--x{i}" for i in range(1000)) + "\n", "tag": TAG}
COMPUTE_CALLS: list[tuple[str, dict[str, object]]] = [
    (
        "audit_deployment",
        {"text": "vllm serve m --quantization fp8 --kv-cache-dtype fp8_e5m2 --max-num-seqs 8", "tag": TAG},
    ),
    ("check_gates", {"from_tag": "v0.30.0", "to_tag": TAG, "serve_command": "vllm serve m --quantization fp8"}),
    ("diff_tags", {"from_tag": "v0.30.0", "to_tag": TAG}),
    ("render_serve_cmd", {"model": "m", "quantization": "fp8", "kv_cache_dtype": "fp8", "tag": TAG}),
    ("pick_format", {"gpu": "h200", "tag": TAG, "model": OTHER, "num_gpus": 2}),
    ("check_gates", {"from_tag": "v0.30.0", "to_tag": "v9.9.9"}),  # refused: the same tool error both ways
]


@pytest.fixture
def hub() -> Iterator[HubServer]:
    with HubServer() as server:
        server.stalled.add(SLOW)
        yield server


def _workers(server: HttpServer) -> list[int]:
    """The server's compute workers: its spawned children (not multiprocessing's resource tracker beside them)."""
    return [pid for pid in descendants(server.proc.pid) if b"spawn_main" in Path(f"/proc/{pid}/cmdline").read_bytes()]


def _text(result: CallToolResult) -> str:
    return "".join(c.text for c in result.content if isinstance(c, TextContent))


def _pick(model: str) -> dict[str, object]:
    return {"gpu": "h200", "model": model, "num_gpus": 2, "tag": TAG}


async def _until(condition: Callable[[], bool], what: str) -> None:
    """Wait until `condition()` holds; bounded, to fail (saying `what` did not happen) rather than hang."""
    try:
        with anyio.fail_after(60):
            while not condition():
                await anyio.sleep(0.05)
    except TimeoutError:
        raise AssertionError(f"never happened: {what}") from None


async def test_compute_calls_answer_the_same_from_worker_processes_as_from_threads(
    tmp_path: Path, hub: HubServer
) -> None:
    answers: dict[str, list[tuple[bool, str, object]]] = {}
    children: dict[str, int] = {}
    for mode, args in (("pool", ()), ("threads", ("--no-worker-pool",))):
        with http_server(tmp_path / mode, *args, env={"HF_ENDPOINT": hub.endpoint}) as server:
            async with http_session(server.url) as session:
                results = [await session.call_tool(name, arguments) for name, arguments in COMPUTE_CALLS]
            children[mode] = len(_workers(server))
        answers[mode] = [(r.is_error, _text(r), r.structured_content) for r in results]
    assert children == {"pool": 2, "threads": 0}
    assert [error for error, _, _ in answers["pool"]] == [False] * 5 + [True]
    assert "v9.9.9" in answers["pool"][-1][1]
    assert answers["pool"] == answers["threads"]


async def test_cheap_calls_answer_while_every_worker_is_busy_and_audits_queue(tmp_path: Path, hub: HubServer) -> None:
    with http_server(tmp_path / "cache", env={"HF_ENDPOINT": hub.endpoint}) as server:
        held: list[CallToolResult] = []
        audits: list[CallToolResult] = []

        async def pick(session: ClientSession) -> None:
            held.append(await session.call_tool("pick_format", _pick(SLOW)))

        async def audit(session: ClientSession) -> None:
            audits.append(await session.call_tool("audit_deployment", AUDIT))

        async with http_session(server.url) as busy, anyio.create_task_group() as tg:
            for _ in range(2):  # both workers wait on the hub
                tg.start_soon(pick, busy)
            await _until(lambda: sum(SLOW in path for path in hub.requests) >= 2, "both picks reach the hub")
            for _ in range(6):  # queued behind them in the compute lane
                tg.start_soon(audit, busy)
            async with http_session(server.url) as cheap:
                tags = await cheap.call_tool("list_tags", {})
                registry = await cheap.call_tool("get_registry", {"kind": "kv_cache_dtypes", "tag": TAG})
            assert held == [] and audits == []  # answered while every compute call was still under way
            hub.release.set()
    assert not tags.is_error and not registry.is_error
    assert (registry.structured_content or {})["total"] == 19
    assert [r.is_error for r in held] == [False, False]
    assert len(audits) == 6 and not any(r.is_error for r in audits)


async def test_a_worker_killed_under_a_call_is_replaced_and_the_call_says_so(tmp_path: Path, hub: HubServer) -> None:
    with http_server(tmp_path / "cache", env={"HF_ENDPOINT": hub.endpoint}) as server:
        async with http_session(server.url) as session:
            await _until(lambda: len(_workers(server)) == 2, "both workers start")
            first = _workers(server)
            result: list[CallToolResult] = []

            async def held() -> None:
                result.append(await session.call_tool("pick_format", _pick(SLOW)))

            async with anyio.create_task_group() as tg:
                tg.start_soon(held)
                await _until(lambda: any(SLOW in path for path in hub.requests), "the pick reaches the hub")
                for pid in first:  # the busy worker and the idle one
                    os.kill(pid, signal.SIGKILL)
            # a killed process ends when the kernel next runs it: at nice 10 on a loaded box, seconds later; the
            # pool finds the idle one dead at the next call, not before it has ended
            await _until(lambda: not any(alive(pid) for pid in first), "the killed workers end")
            after = await session.call_tool("pick_format", _pick(OTHER))
            await _until(lambda: len(set(_workers(server)) - set(first)) == 2, "both workers are replaced")
            workers = _workers(server)
    assert result[0].is_error
    assert "ended (killed by SIGKILL); a new one has taken its place: retry" in _text(result[0]), _text(result[0])
    assert not after.is_error and (after.structured_content or {})["tag"] == TAG
    assert len(workers) == 2 and not set(workers) & set(first)


async def test_a_call_the_client_cancels_kills_its_worker_and_another_takes_its_place(
    tmp_path: Path, hub: HubServer
) -> None:
    with http_server(tmp_path / "cache", env={"HF_ENDPOINT": hub.endpoint}) as server:
        await _until(lambda: len(_workers(server)) == 2, "both workers start")
        first = _workers(server)
        async with http_session(server.url) as session:
            with anyio.CancelScope() as scope:

                async def cancel_once_at_the_hub() -> None:
                    await _until(lambda: any(SLOW in path for path in hub.requests), "the pick reaches the hub")
                    scope.cancel()

                async with anyio.create_task_group() as tg:
                    tg.start_soon(cancel_once_at_the_hub)
                    await session.call_tool("pick_format", _pick(SLOW))
            await _until(lambda: sum(alive(pid) for pid in first) == 1, "the cancelled call's worker is killed")
            await _until(lambda: len(_workers(server)) == 2, "a new worker takes its place")
            after = await session.call_tool("pick_format", _pick(OTHER))
        hub.release.set()
    assert not after.is_error


async def test_sigterm_under_audits_greps_and_held_calls_leaves_no_worker_alive(
    cache_with_tree: Path, hub: HubServer
) -> None:
    with http_server(cache_with_tree, env={"HF_ENDPOINT": hub.endpoint}) as server:
        await _until(lambda: len(_workers(server)) == 2, "both workers start")
        workers, children = _workers(server), descendants(server.proc.pid)  # the resource tracker too

        async def flood(name: str, arguments: dict[str, object], count: int) -> None:
            try:
                async with http_session(server.url) as session, anyio.create_task_group() as tg:
                    for _ in range(count):
                        tg.start_soon(session.call_tool, name, arguments)
            except Exception:  # the server is stopped under these calls; how they end is not what this test checks
                return

        async with anyio.create_task_group() as tg:
            tg.start_soon(flood, "pick_format", _pick(SLOW), 1)
            await _until(lambda: any(SLOW in path for path in hub.requests), "a worker is held at the hub")
            tg.start_soon(flood, "audit_deployment", AUDIT, 20)
            tg.start_soon(flood, "grep_vllm_source", {"pattern": r"(\w+)\s+\1\b", "tag": TAG, "max_results": 1}, 4)
            await until_working(server.proc.pid)  # the other worker audits, the server greps
            server.proc.send_signal(signal.SIGTERM)
            code = await anyio.to_thread.run_sync(lambda: server.proc.wait(timeout=30))
            tg.cancel_scope.cancel()
        await _until(lambda: not any(alive(pid) for pid in children), "every child of the server is gone")
    assert len(workers) == 2
    assert code == 0


async def test_workers_of_a_server_killed_with_sigkill_exit_by_themselves(tmp_path: Path, hub: HubServer) -> None:
    with http_server(tmp_path / "cache", env={"HF_ENDPOINT": hub.endpoint}) as server:
        async with http_session(server.url) as session, anyio.create_task_group() as tg:
            workers = _workers(server)

            async def held() -> None:
                with contextlib.suppress(Exception):  # the server dies under this call
                    await session.call_tool("pick_format", _pick(SLOW))

            tg.start_soon(held)
            await _until(lambda: any(SLOW in path for path in hub.requests), "a worker is held at the hub")
            server.proc.kill()  # no handler runs: nothing of the server stops its workers
            server.proc.wait()
            await _until(lambda: not any(alive(pid) for pid in workers), "the orphaned workers exit")
            tg.cancel_scope.cancel()
    assert len(workers) == 2


async def test_a_worker_relays_its_calls_progress_to_the_client(tmp_path: Path, hub: HubServer) -> None:
    cache = tmp_path / "cache"
    install_release_tree(cache, "0.32.0")
    (cache / "registries").mkdir(exist_ok=True)
    (cache / "registries" / f"{TAG}.json").write_text("{damaged", encoding="utf-8")  # derived again from the tree
    progress: list[str] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append(message or "")

    with http_server(cache, env={"HF_ENDPOINT": hub.endpoint}) as server:
        async with http_session(server.url) as session:
            result = await session.call_tool(
                "diff_tags", {"from_tag": "v0.30.0", "to_tag": TAG}, progress_callback=on_progress
            )
        workers = _workers(server)
    assert not result.is_error, _text(result)
    assert len(workers) == 2  # a server with its pool: diff_tags, of the compute lane, ran in a worker
    assert progress and {m.partition(":")[0] for m in progress} == {"derive"}, progress
