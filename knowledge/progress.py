"""Progress of long work (fetch, extract, derive, index), reported to whoever listens, rendered by the edges.

Knowledge code calls `report(...)` at each step; it knows nothing of terminals or MCP. The
CLI listens with a bar on a terminal and plain lines otherwise (stderr), the MCP server
with `notifications/progress` and log messages. The listener is a context variable, so
concurrent calls (threads of one server) each report to their own client.

    with listening(sink):
        refresh(...)            # report("fetch", 1_000_000, 45_000_000, "vllm-0.32.0.tar.gz") ...
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Literal, Protocol

from .echo import redact

__all__ = ["Sink", "Stage", "Step", "listening", "report"]

Stage = Literal["fetch", "extract", "derive", "index"]


@dataclass(frozen=True)
class Step:
    """One report: `done` of `total` units (bytes, files; total None when unknown) of a stage."""

    stage: Stage
    done: int
    total: int | None
    message: str


class Sink(Protocol):
    def __call__(self, step: Step) -> None: ...


_sink: ContextVar[Sink | None] = ContextVar("vllm_quant_mcp_progress", default=None)


def report(stage: Stage, done: int, total: int | None, message: str) -> None:
    """Tell the current listener, if any; costs one context-variable read when nobody listens.

    The message reaches a terminal or an MCP client's log, so a URL in it loses its credentials here.
    """
    sink = _sink.get()
    if sink is not None:
        sink(Step(stage, done, total, redact(message)))


@contextmanager
def listening(sink: Sink) -> Iterator[None]:
    token = _sink.set(sink)
    try:
        yield
    finally:
        _sink.reset(token)
