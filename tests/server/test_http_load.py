"""A shared HTTP server under expensive calls: another client's cheap call still answers, and SIGTERM stops it.

The expensive calls are real: a back-referencing regex that only the `regex` engine can run,
over every file of the v0.32.0 tree (seconds of CPU each). The bounds here are generous, to
fail instead of hang; benchmarks/bench_load.py measures the real figures.
"""

from __future__ import annotations

import signal
from pathlib import Path

import anyio
import anyio.to_thread
import pytest
from support.http_server import http_server, http_session, until_working

pytestmark = pytest.mark.anyio
HEAVY = {"pattern": r"(\w+)\s+\1\b", "tag": "v0.32.0", "max_results": 1}
SESSIONS, CALLS_EACH = 3, 15  # 45 expensive calls in flight


async def _flood(url: str) -> None:
    try:
        async with http_session(url) as session, anyio.create_task_group() as tg:
            for _ in range(CALLS_EACH):
                tg.start_soon(session.call_tool, "grep_vllm_source", HEAVY)
    except Exception:  # the server is stopped under these calls; how they end is not what this test checks
        return


async def test_with_45_expensive_calls_in_flight_a_cheap_call_answers_and_sigterm_stops_the_server(
    cache_with_tree: Path,
) -> None:
    with http_server(cache_with_tree) as server:
        async with anyio.create_task_group() as flood:
            for _ in range(SESSIONS):
                flood.start_soon(_flood, server.url)
            await until_working(server.proc.pid)
            with anyio.fail_after(30):
                async with http_session(server.url) as session:
                    answer = await session.call_tool("get_registry", {"kind": "kv_cache_dtypes", "tag": "v0.32.0"})
            assert server.proc.poll() is None  # the expensive calls are still running
            server.proc.send_signal(signal.SIGTERM)
            code = await anyio.to_thread.run_sync(lambda: server.proc.wait(timeout=30))
            flood.cancel_scope.cancel()
    assert not answer.is_error and (answer.structured_content or {})["total"] == 19
    assert code == 0
