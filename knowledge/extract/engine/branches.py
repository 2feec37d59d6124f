"""The state a client's walk carries through branches: the walked function's locals and the attributes of the
object it builds, saved before a branch, restored for the next, joined after them.

Its own module because a walk that follows the path itself, statement by statement (attention/build.py,
and the kernel and loading walks to come), needs the interpreter's idea of "after an undecided branch"
without the interpreter's own control flow (statements.py): a name every branch left the same keeps its
value, one they disagree on is unknown, and what a branch set depends on what chose the branch.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from vllm_quant_mcp.knowledge.extract.engine.values import Obj, Scope, Unknown, same

__all__ = ["State"]

_ABSENT = object()


@dataclass(frozen=True)
class State:
    """A copy of a scope's locals and an object's attributes, as one branch found or left them."""

    locals: dict[str, Any]
    attrs: dict[str, Any]

    @classmethod
    def of(cls, scope: Scope, obj: Obj) -> State:
        return cls(dict(scope.locals), dict(obj.attrs))

    def restore(self, scope: Scope, obj: Obj) -> None:
        """Puts this state back, for the next branch to start from what the last one started from."""
        scope.locals.clear()
        scope.locals.update(self.locals)
        obj.attrs.clear()
        obj.attrs.update(self.attrs)

    def taint(self, scope: Scope, obj: Obj, marks: frozenset[str]) -> None:
        """What a branch set since this state depends on what chose the branch: `if gpu_ok: self.x = True`
        makes x read the GPU."""
        if not marks:
            return
        for name, value in scope.locals.items():
            if self.locals.get(name, _ABSENT) is not value:
                scope.marks[name] = scope.marks.get(name, frozenset()) | marks
        for name, value in obj.attrs.items():
            if self.attrs.get(name, _ABSENT) is not value:
                obj.marks[name] = obj.marks.get(name, frozenset()) | marks

    @staticmethod
    def join(scope: Scope, obj: Obj, states: list[State]) -> None:
        """After branches: a name every branch left the same keeps its value; one they disagree on is unknown."""
        for target, of_state in ((scope.locals, _locals), (obj.attrs, _attrs)):
            names = {n for state in states for n in of_state(state)}
            target.clear()
            for name in names:
                values = [of_state(state).get(name, _ABSENT) for state in states]
                agreed = all(values[0] is v or same(values[0], v) for v in values[1:])
                target[name] = values[0] if agreed and values[0] is not _ABSENT else Unknown(())


def _locals(state: State) -> dict[str, Any]:
    return state.locals


def _attrs(state: State) -> dict[str, Any]:
    return state.attrs
