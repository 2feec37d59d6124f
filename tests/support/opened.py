"""Which files the code under test opens, seen through Python's own audit events (sys.addaudithook).

Every `open()` (pathlib's read_bytes and importlib.resources included) raises the `open`
audit event, so a test can count how often a file is read without replacing anything in
the code it tests. A hook cannot be removed once added: one hook is installed for the
process, and it records only while a `recording()` block is active.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["recording"]

_active: list[list[str]] = []


def _hook(event: str, args: tuple[Any, ...]) -> None:
    if event == "open" and _active and isinstance(args[0], str | bytes | os.PathLike):
        _active[-1].append(os.fsdecode(args[0]))


sys.addaudithook(_hook)


@contextmanager
def recording() -> Iterator[list[str]]:
    """The paths opened inside the block, in order (one entry per open)."""
    opened: list[str] = []
    _active.append(opened)
    try:
        yield opened
    finally:
        _active.pop()
