"""Control flow of the interpreted source, carried by Python exceptions: a `return`, a `raise`, a budget spent.

Its own module because three modules of the engine raise them (statements.py, expressions.py, and
names.py through a right-hand side) and the calls and entry points catch them (statements.py,
interpret.py). They are not errors of this package and sit outside its error tree: each is caught
inside the engine (an interpreted `raise` becomes an Unknown that cites it) and none leaves it.
"""

from __future__ import annotations

from typing import Any

from vllm_quant_mcp.knowledge.extract.engine.values import Reason

__all__ = ["Raised", "Returned", "TooComplex"]


class Returned(Exception):
    """A `return` unwinding the interpreted function, with its value and line."""

    def __init__(self, value: Any, line: int = 0) -> None:
        self.value = value
        self.line = line


class Raised(Exception):
    """A `raise` in the interpreted source, or a broken tree read as one."""

    def __init__(self, reason: Reason) -> None:
        self.reason = reason


class TooComplex(Exception):
    """The step or depth budget ran out."""

    def __init__(self, reason: Reason) -> None:
        self.reason = reason
