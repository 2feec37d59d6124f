"""Long calls tell the client as they go, over a real stdio session: progress, and logs at the level it set.

The tree of v0.14.0 (a bundled tag) is not cached, so the first find_symbol fetches the real
sdist from a package index on 127.0.0.1, extracts it and packs it for search: the 27-62 s
that agents used to wait through in silence. The client hears of each stage as
`notifications/progress` (it sent a progress token) and as log messages at the level it
chose with `logging/setLevel`. Then a damaged cached registry of that tag is derived again
from the tree, with the client asking for warnings only: progress still, logs none.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp.types import LoggingMessageNotificationParams
from support.httpindex import IndexServer
from support.mcp_session import stdio_session
from support.releases import sdist

pytestmark = [
    pytest.mark.anyio,
    # The spec marks logging deprecated (SEP-2577); clients still set the level, and this test is one.
    pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning"),
]


async def test_long_calls_report_each_stage_as_progress_and_as_logs_at_the_level_set(tmp_path: Path) -> None:
    progress: list[tuple[float, float | None, str | None]] = []
    logs: list[LoggingMessageNotificationParams] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, total, message))

    async def on_log(params: LoggingMessageNotificationParams) -> None:
        logs.append(params)

    with IndexServer([sdist("0.14.0")]) as index:
        env = {"VLLM_QUANT_MCP_INDEX_URL": index.index_url}
        async with stdio_session(tmp_path, env=env, logging_callback=on_log) as session:
            await session.set_logging_level("info")
            first = await session.call_tool(
                "find_symbol", {"name": "CacheDType", "tag": "v0.14.0"}, progress_callback=on_progress
            )
    assert not first.is_error, first.content
    stages = [str(p.data).partition(":")[0] for p in logs]
    assert {"fetch", "extract", "index"} <= set(stages), stages
    assert {p.level for p in logs} == {"info"} and {p.logger for p in logs} == {"vllm-quant-mcp"}
    values = [value for value, _, _ in progress]
    assert values == sorted(values) and len(set(values)) == len(values), "progress only grows"
    messages = [m or "" for _, _, m in progress]
    assert {m.partition(":")[0] for m in messages} <= {"fetch", "extract", "index"}
    assert any(m.startswith("fetch: vllm-0.14.0.tar.gz") for m in messages), messages[:3]

    logs.clear()
    progress.clear()
    (tmp_path / "registries").mkdir(exist_ok=True)
    (tmp_path / "registries" / "v0.14.0.json").write_text("{damaged", encoding="utf-8")
    async with stdio_session(tmp_path, logging_callback=on_log) as session:
        await session.set_logging_level("warning")
        again = await session.call_tool(
            "get_registry", {"tag": "v0.14.0", "kind": "quantization_methods"}, progress_callback=on_progress
        )
    assert not again.is_error, again.content
    assert progress and {(m or "").partition(":")[0] for _, _, m in progress} == {"derive"}
    assert logs == [], "nothing at info once the client asked for warnings and worse"
