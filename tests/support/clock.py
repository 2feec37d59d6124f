"""A clock the code under test reads instead of time.time(): tests move it forward instead of sleeping."""

from __future__ import annotations

__all__ = ["START", "Clock"]

START = 1_700_000_000.0


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> float:
        return self.now
