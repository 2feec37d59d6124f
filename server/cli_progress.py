"""Long work shown on stderr, stage by stage: a bar on a terminal, plain lines otherwise; stdout keeps the results.

knowledge/progress.py reports `Step(stage, done, total, message)`; this sink draws them.
On a terminal each stage gets a rich progress bar (bytes for fetch, counts otherwise);
into a pipe or a CI log, a line when a stage starts, when it is done, and in between at
most one every few seconds (at a new tenth of the way, or a tenfold count when the total
is unknown), so a log shows that a long download moves without filling up with a quick
one. rich is imported only when the first step arrives on a terminal: a command that does
no long work pays nothing for it.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO

from vllm_quant_mcp.knowledge.progress import Step, listening

__all__ = ["StderrProgress", "progress_on_stderr"]

_UNITS = {"fetch": "bytes", "extract": "files", "derive": "kinds", "index": "files"}
LINE_INTERVAL_S = 5.0


def amount(stage: str, done: int, total: int | None) -> str:
    """`12.3/45.0 MB` for bytes, `120/9,400 files` for counts; the total left out when unknown."""
    unit = _UNITS.get(stage, "")
    if not done and not total:
        return ""
    if unit == "bytes":
        return f"{done / 1e6:.1f}/{total / 1e6:.1f} MB" if total else f"{done / 1e6:.1f} MB"
    return f"{done:,}/{total:,} {unit}" if total else f"{done:,} {unit}"


class StderrProgress:
    """A progress sink for the CLI; `close()` ends the bars (the context manager below does it)."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.terminal = self.stream.isatty()
        self._marks: dict[tuple[str, str], tuple[int, float]] = {}
        self._finished: set[tuple[str, str]] = set()
        self._bars: Any = None
        self._tasks: dict[tuple[str, str], Any] = {}

    def __call__(self, step: Step) -> None:
        if self.terminal:
            self._bar(step)
        else:
            self._line(step)

    def _line(self, step: Step) -> None:
        key = (step.stage, step.message)
        if key in self._finished:
            return
        finished = step.total is not None and step.done >= step.total
        mark = step.done * 10 // step.total if step.total else len(str(step.done))
        now = time.monotonic()
        if key in self._marks and not finished:
            last_mark, last_time = self._marks[key]
            if mark == last_mark or now - last_time < LINE_INTERVAL_S:
                return
        self._marks[key] = (mark, now)
        if finished:
            self._finished.add(key)
        percent = f" {step.done * 100 // step.total}%" if step.total else ""
        state = ", done" if finished else ""
        self.stream.write(
            f"{step.stage}: {step.message}{percent} ({amount(step.stage, step.done, step.total)}{state})\n"
        )
        self.stream.flush()

    def _bar(self, step: Step) -> None:
        if self._bars is None:
            from rich.console import Console
            from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn

            self._bars = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                TaskProgressColumn(),
                TextColumn("{task.fields[amount]}"),
                console=Console(file=self.stream),
                redirect_stdout=False,  # results stay on stdout, whatever rich's live display does with it
                redirect_stderr=False,
            )
            self._bars.start()
        key = (step.stage, step.message)
        shown = amount(step.stage, step.done, step.total)
        if key not in self._tasks:
            self._tasks[key] = self._bars.add_task(f"{step.stage} {step.message}", total=step.total, amount=shown)
        self._bars.update(self._tasks[key], completed=step.done, total=step.total, amount=shown)

    def close(self) -> None:
        if self._bars is not None:
            self._bars.stop()
            self._bars = None


@contextmanager
def progress_on_stderr(stream: TextIO | None = None) -> Iterator[StderrProgress]:
    sink = StderrProgress(stream)
    try:
        with listening(sink):
            yield sink
    finally:
        sink.close()
