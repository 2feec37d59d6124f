"""One time budget per lookup, shared by every HTTP request and git process the lookup starts.

A per-request timeout alone lets waits stack up: four requests to a server that
hangs cost four timeouts. A Deadline caps the whole lookup instead, and it trips
on the first timeout: from then on nothing waits on the network again, and each
later question is answered from the cache (with its age) or not at all, at once.
It reads a monotonic clock, so the wall-clock time the cache ages by (which tests
move by hand) never shortens or stretches it.
"""

from __future__ import annotations

import time
from collections.abc import Callable

__all__ = ["Deadline"]


class Deadline:
    def __init__(self, seconds: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.seconds = seconds
        self._clock = clock
        self._end = clock() + seconds
        self._tripped: str | None = None

    def remaining(self) -> float:
        return max(0.0, self._end - self._clock())

    def timeout(self, cap: float) -> float:
        """The wait one request or process may take: its own cap, or less when the lookup's budget is nearly spent."""
        return min(cap, self.remaining())

    def trip(self, why: str) -> None:
        """Record the first timeout; every later network wait of this lookup is skipped."""
        if self._tripped is None:
            self._tripped = why

    def stop_reason(self) -> str | None:
        """Why nothing more may wait on the network, or None while it still may."""
        if self._tripped is not None:
            return f"lookup deadline: {self._tripped}, so no further network waits"
        if self.remaining() <= 0:
            return f"lookup deadline: {self.seconds:g} s spent"
        return None
