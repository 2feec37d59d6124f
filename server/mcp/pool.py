"""The compute lane's calls in worker processes: an audit flood spends its CPU beside the event loop, not under its GIL.

In threads of the server, two audits or gate checks in flight hold the GIL in turn with the
event loop, and every cheap call (list_tags, get_registry) waits its turn behind them
(benchmarks/bench_load.py gives the figures). Here each runs in one of `SIZE` worker processes,
as many as the lane has slots (mcp/lanes.py), so the server process only relays.

- A worker is a spawned interpreter, not a fork: the server has threads and an event loop,
  which a fork would copy half-way. It builds its own ToolContext from a picklable recipe
  (server/runtime.py `worker_context`), imports the compute tools and parses the knowledge
  base once, then answers one call at a time (mcp/worker.py). The call crosses as the
  tool's name and its JSON arguments; the answer as the text and the structured content
  (mcp/answer.py), rendered in the worker; progress steps as they happen, relayed to the
  client by a ClientSink in the relaying thread as in-thread calls are.
- Nothing is left running. A call the client cancels, or that runs past `LIMIT` seconds,
  kills its worker (every tool only reads: killing abandons nothing) and a new one takes its
  place; a worker that dies under a call is replaced and the call told so, in a tool error.
- `close()` (at SIGTERM) starts no more workers; `stop()` kills them all, when the server
  ends or at its deadline (http/run.py), and a worker whose server is gone exits by itself.
"""

from __future__ import annotations

import logging
import multiprocessing
import signal
from collections.abc import Callable
from multiprocessing.process import BaseProcess
from typing import Any

import anyio
import anyio.to_thread
from mcp.server.mcpserver.exceptions import ToolError

from vllm_quant_mcp.knowledge.errors import InternalError
from vllm_quant_mcp.knowledge.progress import Sink
from vllm_quant_mcp.server.mcp.answer import Answer
from vllm_quant_mcp.server.mcp.lanes import LANES
from vllm_quant_mcp.server.mcp.worker import serve_calls
from vllm_quant_mcp.tools.context import ToolContext
from vllm_quant_mcp.tools.spec import Cost

__all__ = ["KIND", "LIMIT", "SIZE", "WorkerPool"]

KIND: Cost = "compute"  # the lane whose calls run in the workers
SIZE = LANES[KIND].slots  # workers: one per slot of the compute lane, so an admitted call never waits for one
LIMIT = 60.0  # seconds a call may run before its worker is killed (slowest measured: a cold 1,000-flag audit, 5 s)

log = logging.getLogger("vllm_quant_mcp")


class _Worker:
    def __init__(self, context: Callable[[], ToolContext]) -> None:
        spawn = multiprocessing.get_context("spawn")
        self._conn, theirs = spawn.Pipe()
        self.process: BaseProcess = spawn.Process(
            target=serve_calls, args=(theirs, context, KIND), name="vllm-quant-mcp-worker", daemon=True
        )
        self.process.start()
        theirs.close()

    def call(self, name: str, arguments: dict[str, Any], make_sink: Callable[[], Sink | None]) -> tuple[str, Any]:
        """Send one call and wait for its outcome (mcp/worker.py), relaying its steps; runs on a thread of the server.

        `("died", how)` when the worker ends under the call (killed, out of memory, a crash of the interpreter).
        """
        sink = make_sink()  # made here: a ClientSink reports from the thread it was made in
        try:
            self._conn.send((name, arguments))
            while True:
                kind, value = self._conn.recv()
                if kind != "step":
                    return kind, value
                if sink is not None:
                    sink(value)
        except (EOFError, OSError):
            return "died", self.ending()

    def ending(self) -> str:
        self.process.join(1)
        code = self.process.exitcode
        if code is not None and code < 0:
            return f"killed by {signal.Signals(-code).name}"
        return f"exit status {code}" if code is not None else "its pipe closed"

    def kill(self) -> None:
        """SIGKILL; a thread still waiting on the pipe then reads its end and lets go of it."""
        self.process.kill()
        self.process.join(1)


class WorkerPool:
    """`SIZE` compute workers, each running `context()`'s tools; made before the event loop, used from it."""

    def __init__(self, context: Callable[[], ToolContext], size: int = SIZE) -> None:
        self._context = context
        self._size = size
        self._idle: list[_Worker] = []
        self._busy: set[_Worker] = set()
        self._free = anyio.CapacityLimiter(size)
        self._threads = anyio.CapacityLimiter(size)  # the relaying threads, one per call under way
        self._closed = False

    def start(self) -> None:
        """Start workers until `size` run, so the next calls find them ready (each boots on its own CPU).

        A worker found dead while idle (killed, out of memory) is replaced here, never handed a call.
        """
        for worker in [w for w in self._idle if not w.process.is_alive()]:
            log.error("compute worker %s ended while idle (%s); replaced", worker.process.pid, worker.ending())
            self._idle.remove(worker)
        while len(self._idle) + len(self._busy) < self._size and not self._closed:
            self._idle.append(_Worker(self._context))

    async def run(self, name: str, arguments: dict[str, Any], make_sink: Callable[[], Sink | None]) -> Answer:
        """Call tool `name` in a worker; a cancelled or overlong call kills its worker, which is replaced."""
        async with self._free:
            if self._closed:
                raise ToolError("the server is stopping; retry on another or once it is back")
            self.start()  # at most size - 1 busy here: one is idle after this
            worker = self._idle.pop()
            self._busy.add(worker)
            kind: str = "died"  # what stands if the call never returns: the worker is killed
            value: Any = "cancelled"
            try:
                with anyio.fail_after(LIMIT):
                    kind, value = await anyio.to_thread.run_sync(
                        worker.call, name, arguments, make_sink, abandon_on_cancel=True, limiter=self._threads
                    )
            except TimeoutError:
                raise ToolError(
                    f"time limit: {name} ran past {LIMIT:g} s and was stopped; ask for less (fewer tags, "
                    "a shorter script) or retry"
                ) from None
            finally:
                self._busy.discard(worker)
                if kind != "died" and not self._closed:
                    self._idle.append(worker)
                else:
                    worker.kill()
                    self.start()
        if kind == "died":
            log.error("compute worker %s ended under %s: %s", worker.process.pid, name, value)
            raise ToolError(
                f"the worker process running {name} ended ({value}); a new one has taken its place: retry the call"
            )
        if kind == "refused":
            raise ToolError(value)
        if kind == "crashed":
            raise InternalError(f"{name} failed in its worker: {value}")
        answer: Answer = value
        return answer

    def close(self) -> None:
        """Start no more workers and end the idle ones; calls under way may finish (SIGTERM's grace)."""
        self._closed = True
        while self._idle:
            self._idle.pop().kill()

    def stop(self) -> None:
        """End every worker now, under a call or not."""
        self.close()
        for worker in list(self._busy):
            worker.kill()
