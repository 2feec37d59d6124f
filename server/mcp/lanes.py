"""One lane per kind of cost (tools/spec.py `Cost`): a slow call never holds a thread another kind needs.

The SDK runs every sync tool on anyio's one default limiter of 40 threads, so 45 slow calls
of one client left none for a cheap call of another. Here each kind has its own limiter,
sized for what it spends, and cheap kinds never share one with expensive ones:

- `registry` (16): reads of registries and the knowledge base, milliseconds each; the bound
  only stops a flood from spawning a thread per request.
- `compute` (2): audits, gate checks, diffs, serve commands and format rankings, which read
  many registries or the whole knowledge base: 0.1-2 s of CPU each. In the registry lane,
  45 audits in flight held all 16 slots and cheap calls waited 15 s (13 of 20 "busy"); in a
  lane of their own they queue behind each other. Two slots, as for scans; an HTTP server runs
  them in as many worker processes (mcp/pool.py), so they hold no GIL the event loop needs.
- `source` (2): scans of a tree, up to seconds of CPU each. A back-referencing regex runs
  the `regex` engine over the 2,600 files of v0.32.0 in 5-8 s alone; two or four at once in
  one process (one GIL) all reached the 10 s limit and answered nothing. Two, not one, so a
  heavy scan never holds up the quick engine greps most calls are (60 ms); more scans at
  once come from more processes (`serve --stateless` replicas), not more threads.
- `network` (8): waits on GitHub or the Hugging Face hub, each under its own timeouts;
  cheap in CPU, bounded so a remote that stalls holds at most 8 threads.

A call waits at most `wait` seconds for a slot (15: longer than one scan's 10 s limit, so a
queue one deep per slot drains before anyone is turned away; shorter than the 30-60 s many
clients wait for a tool call), then gets a tool error saying the server is busy. A client
that cancels a queued call (notifications/cancelled) takes it out of the queue; a running
call stops at its next progress step (mcp/progress.py). Admitted calls run on a limiter of
their own (the lanes' sum), never on the default one resources and completions use.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TypeVar

import anyio
import anyio.to_thread
from mcp.server.mcpserver.exceptions import ToolError

from vllm_quant_mcp.tools.spec import Cost

__all__ = ["LANES", "Lane", "Lanes"]

T = TypeVar("T")


@dataclass(frozen=True)
class Lane:
    slots: int  # calls of this kind that run at once
    wait: float  # seconds a call may wait for a slot before it is told the server is busy
    noun: str  # what a running call of this kind is, in the busy message


WAIT = 15.0
LANES: Mapping[Cost, Lane] = {
    "registry": Lane(16, WAIT, "registry reads"),
    "compute": Lane(2, WAIT, "audits, gate checks, diffs or rankings"),
    "source": Lane(2, WAIT, "source scans"),
    "network": Lane(8, WAIT, "network lookups"),
}


class Lanes:
    """The limiters of one server, created with it (anyio binds them to the loop on first use)."""

    def __init__(self, lanes: Mapping[Cost, Lane] = LANES) -> None:
        self._lanes = dict(lanes)
        self._slots = {kind: anyio.CapacityLimiter(lane.slots) for kind, lane in self._lanes.items()}
        self._threads = anyio.CapacityLimiter(sum(lane.slots for lane in self._lanes.values()))

    async def run(self, kind: Cost, work: Callable[[], T]) -> T:
        """`work` on a worker thread once a slot of its kind is free; a busy ToolError past the lane's wait."""
        return await self.admit(kind, lambda: anyio.to_thread.run_sync(work, limiter=self._threads))

    async def admit(self, kind: Cost, work: Callable[[], Awaitable[T]]) -> T:
        """`await work()` once a slot of its kind is free (the compute lane's calls go to mcp/pool.py's workers)."""
        lane, slots = self._lanes[kind], self._slots[kind]
        admitted = False
        with anyio.move_on_after(lane.wait):
            await slots.acquire()
            admitted = True
        if not admitted:
            waiting = slots.statistics().tasks_waiting
            raise ToolError(
                f"busy: {slots.borrowed_tokens} {lane.noun} running, {waiting} more waiting; retry in a few seconds"
            )
        try:
            return await work()
        finally:
            slots.release()
