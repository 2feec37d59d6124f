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
from dataclasses import dataclass
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


@dataclass
class _Seen:
    """What was last shown of a stage: its message, count, tenth (or digit count) and when."""

    message: str
    done: int
    mark: int
    at: float
    finished: bool = False
    task: Any = None


class StderrProgress:
    """A progress sink for the CLI; `close()` ends the bars (the context manager below does it).

    A stage is one line of output (or one bar) while it runs, whatever message each step
    carries (derive names the kind it is on); a step that starts over (a count going back, or
    a new message at zero, e.g. the package index after git failed) starts a new one.
    """

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.terminal = self.stream.isatty()
        self._seen: dict[str, _Seen] = {}
        self._bars: Any = None

    def __call__(self, step: Step) -> None:
        seen = self._seen.get(step.stage)
        finished = step.total is not None and step.done >= step.total
        mark = step.done * 10 // step.total if step.total else len(str(step.done))
        now = time.monotonic()
        restart = seen is not None and (
            step.done < seen.done or (step.done == 0 and step.message != seen.message) or seen.finished
        )
        if seen is None or restart:
            seen = self._seen[step.stage] = _Seen(step.message, step.done, mark, now)
            shown = True
        else:
            shown = finished or (mark != seen.mark and now - seen.at >= LINE_INTERVAL_S)
            seen.message, seen.done = step.message, step.done
        if self.terminal:
            self._bar(step, seen)
        elif shown:
            seen.mark, seen.at = mark, now
            self._line(step, finished)
        seen.finished = finished

    def _line(self, step: Step, finished: bool) -> None:
        percent = f" {step.done * 100 // step.total}%" if step.total else ""
        parts = [part for part in (amount(step.stage, step.done, step.total), "done" if finished else "") if part]
        self.stream.write(f"{step.stage}: {step.message}{percent}" + (f" ({', '.join(parts)})" if parts else "") + "\n")
        self.stream.flush()

    def _bar(self, step: Step, seen: _Seen) -> None:
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
        shown = amount(step.stage, step.done, step.total)
        description = f"{step.stage} {step.message}"
        if seen.task is None:
            seen.task = self._bars.add_task(description, total=step.total, amount=shown)
        self._bars.update(seen.task, description=description, completed=step.done, total=step.total, amount=shown)

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
