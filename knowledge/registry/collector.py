"""Python's cyclic garbage collector, run less often while a registry is derived.

A derive allocates millions of short-lived objects (tree-sitter nodes, tuples, the interpreter's values); their
reference counts free them, and almost none sits in a cycle. At the default threshold the collector still walks
the young objects every 700 allocations (net), promotes the ones alive at that moment, and walks those again in
the older generations, the whole heap among them. Raising the young threshold took 8% off a derive of v0.26.0
and 2% off v0.22.0 (a small release runs too few collections to tell). It is raised for the derive only, and put
back when the last derive running ends: the threshold is the process's, and a server may derive in two threads.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["YOUNG_THRESHOLD", "collecting_less"]

# Young objects allowed before a collection: garbage in cycles waits for at most this many allocations.
YOUNG_THRESHOLD = 50_000

_lock = threading.Lock()
_running = 0
_saved: tuple[int, int, int] = gc.get_threshold()


@contextmanager
def collecting_less() -> Iterator[None]:
    """The young generation's threshold raised to YOUNG_THRESHOLD inside; a collector the process turned off
    (threshold 0) stays off, and one set higher keeps its own."""
    global _running, _saved
    with _lock:
        if _running == 0:
            _saved = gc.get_threshold()
            if 0 < _saved[0] < YOUNG_THRESHOLD:
                gc.set_threshold(YOUNG_THRESHOLD, *_saved[1:])
        _running += 1
    try:
        yield
    finally:
        with _lock:
            _running -= 1
            if _running == 0:
                gc.set_threshold(*_saved)
