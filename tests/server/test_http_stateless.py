"""`serve --transport http --stateless`: replicas on one prepared cache behind a round-robin balancer serve one session.

Two real server processes share a cache that already holds the v0.32.0 tree (as `refresh`
by one job would leave it); a round-robin proxy sends each request to the other one.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import pytest
from mcp.shared.exceptions import MCPError
from support.http_server import http_server, http_session
from support.rrproxy import round_robin

pytestmark = pytest.mark.anyio


@contextmanager
def _replicas(cache: Path, *args: str) -> Iterator[list[str]]:
    with ExitStack() as stack:
        yield [stack.enter_context(http_server(cache, *args)).url.removesuffix("/mcp") for _ in range(2)]


async def test_one_session_is_served_by_two_stateless_replicas_in_turn(cache_with_tree: Path) -> None:
    with _replicas(cache_with_tree, "--stateless") as backends:
        with round_robin(backends) as (base, proxy):
            async with http_session(f"{base}/mcp") as session:
                tools = await session.list_tools()
                registry = await session.call_tool("get_registry", {"kind": "kv_cache_dtypes", "tag": "v0.32.0"})
                tags = await session.call_tool("list_tags", {})
                grep = await session.call_tool(
                    "grep_vllm_source", {"pattern": r"^CacheDType = Literal\[", "tag": "v0.32.0"}
                )
        assert "grep_vllm_source" in {t.name for t in tools.tools}
        assert (registry.structured_content or {})["total"] == 19
        assert not tags.is_error
        assert [m["path"] for m in (grep.structured_content or {})["matches"]] == ["vllm/config/cache.py"]
        assert set(proxy.served) == set(backends)


async def test_without_stateless_the_replica_that_did_not_start_the_session_refuses_it(
    cache_with_tree: Path,
) -> None:
    """Why the flag exists: a session lives in the process that answered initialize."""
    with (
        _replicas(cache_with_tree) as backends,
        round_robin(backends) as (base, _),
        pytest.raises(BaseExceptionGroup) as caught,
    ):
        async with http_session(f"{base}/mcp", timeout=10) as session:
            await session.call_tool("list_tags", {})
    assert "Session not found" in [str(e) for e in _leaves(caught.value) if isinstance(e, MCPError)]


def _leaves(exc: BaseException) -> Iterator[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            yield from _leaves(inner)
    else:
        yield exc
