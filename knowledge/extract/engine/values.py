"""What the interpreter computes with: the values it builds for vLLM's names, and three-valued logic over them.

Its own module because it is the part a client holds: a walk over a constructor (attention/build.py)
keeps these values in its scopes, compares them and asks their truth, and none of that needs the
interpreter that made them. Everything here is pure: a value, or an `Unknown` naming the run-time
checks (with path:line) that keep it open, never an exception for a value the source leaves open.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from typing import Any, cast

import tree_sitter

from vllm_quant_mcp.knowledge.errors import InternalError
from vllm_quant_mcp.knowledge.extract.engine.modules import ClassRef
from vllm_quant_mcp.knowledge.extract.engine.syntax import line

__all__ = [
    "CAPABILITY",
    "INPUT",
    "MARKS",
    "RAW",
    "Builtin",
    "Cap",
    "ClassValue",
    "Entered",
    "Function",
    "Marked",
    "Member",
    "Obj",
    "Platform",
    "Reason",
    "Record",
    "Scope",
    "Shared",
    "Super",
    "Unknown",
    "answer",
    "answers_alike",
    "arithmetic",
    "as_int",
    "class_ref",
    "compare",
    "copied",
    "frozen",
    "has_unknown",
    "marks_of",
    "merge",
    "question",
    "questions_of",
    "same",
    "truth",
    "unknown",
]

CAPABILITY = "\0capability"  # marks, among the `assumed` of a call, that it asked for the GPU's capability
INPUT = "\0input"  # marks, in the same way, that it read a value an Obj or Scope holds as the caller's input
MARKS = frozenset({CAPABILITY, INPUT})
# What a call asked about the GPU, kept with CAPABILITY: each yes/no question (`has_device_capability(90)`) with its
# answer, or RAW where the capability itself (or the gfx name) was read. A result whose questions another GPU
# answers alike is that GPU's result too; one that read the capability raw is its own GPU's only.
_QUESTION = "\0gpu "
RAW = "\0gpu raw"
_ASKS: dict[str, Callable[[int, int], bool]] = {
    "has": lambda cap, value: cap >= value,
    "is": lambda cap, value: cap == value,
    "family": lambda cap, value: cap // 10 == value // 10,
}


def question(kind: str, value: int, answer: bool) -> str:
    """The mark of one capability question and its answer: `has_device_capability(90)` on SM100 is ("has", 90, True)."""
    return f"{_QUESTION}{kind} {value} {int(answer)}"


def marks_of(assumed: set[str]) -> frozenset[str]:
    """The marks among what an evaluation relied on (the env defaults are not marks), questions included, so a
    value kept in a local or an attribute carries what its GPU was asked."""
    return frozenset(m for m in assumed if m[:1] == "\0")


@cache
def questions_of(marks: frozenset[str]) -> tuple[tuple[str, int, bool], ...] | None:
    """The capability questions among a call's marks; None when it read the capability raw, or asked it with no
    question recorded (then only its own GPU's answer is known)."""
    if RAW in marks:
        return None
    asked = tuple(
        (kind, int(value), answer == "1")
        for m in marks
        if m.startswith(_QUESTION)
        for kind, value, answer in [m[len(_QUESTION) :].split()]
    )
    return asked or None


def answer(kind: str, value: int, cap: Cap) -> bool:
    """`cap`'s answer to one capability question: `has_device_capability(90)` on SM100 is True."""
    return _ASKS[kind](cap.to_int(), value)


def answers_alike(asked: tuple[tuple[str, int, bool], ...], cap: Cap) -> bool:
    """Whether `cap` answers every question as the GPU that asked them did."""
    return all(answer(kind, value, cap) == answered for kind, value, answered in asked)


@dataclass(frozen=True, order=True)
class Cap:
    """A CUDA compute capability, ordered as vLLM's DeviceCapability NamedTuple is."""

    major: int
    minor: int

    def to_int(self) -> int:
        return self.major * 10 + self.minor

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}"


@dataclass(frozen=True)
class Reason:
    """A runtime check the source leaves open, or a line that decided: why, and where."""

    why: str
    path: str
    line: int


@dataclass(frozen=True)
class Unknown:
    reasons: tuple[Reason, ...]

    def __bool__(self) -> bool:
        raise InternalError("an Unknown was used as a bool; branch with Interpreter.truth instead")


@dataclass(frozen=True)
class Member:
    """`SomeEnum.NAME`."""

    enum: str
    name: str


@dataclass(frozen=True)
class ClassValue:
    """A class named in the source, as a value: `cls` in a classmethod, what `get_builder_cls()` returns."""

    ref: ClassRef


@dataclass(eq=False)
class Obj:
    """An object known attribute by attribute: one under construction (`ref` its class), or a run's input.

    `marks` says which attributes hold (or were computed from) the input a caller asks about, so that
    a condition reading them is known to depend on it. Compared and hashed by identity, and never
    part of a cached call: its attributes change as a constructor runs.
    """

    what: str  # how a reason names it: "vllm_config", "self"
    ref: ClassRef | None = None
    attrs: dict[str, Any] = field(default_factory=dict)
    marks: dict[str, frozenset[str]] = field(default_factory=dict)


class Record(Obj):
    """A NamedTuple instance (`GroupShape(1, 128)`): immutable, so equal by class and fields as tuples are,
    where an Obj is compared by identity. The source compares them: `group_shape != GroupShape(1, 128)`."""

    def _key(self) -> tuple[Any, ...]:
        return (self.what, tuple(sorted(self.attrs.items(), key=lambda kv: kv[0])))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Record) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())


@dataclass(frozen=True)
class Function:
    path: str
    node: tree_sitter.Node  # function_definition
    bound: ClassValue | Obj | None = None  # cls of a classmethod, or self
    owner: ClassRef | None = None  # class that defines it, for super()


@dataclass(frozen=True)
class Super:
    bound: ClassValue | Obj
    after: ClassRef


@dataclass(frozen=True)
class Platform:
    kind: str  # cuda, rocm, cpu, xpu
    capability: Cap | None
    arch: str | None = None  # ROCm: the gfx name amdsmi reports, e.g. gfx942


@dataclass(frozen=True)
class Builtin:
    fn: Callable[..., Any]


Marked = tuple[Any, frozenset[str]]  # a value and the marks of what computing it read


@dataclass
class Scope:
    """The locals of one interpreted function, and what the interpreter learns from reading them."""

    path: str
    locals: dict[str, Any] = field(default_factory=dict)
    owner: ClassRef | None = None
    bound: ClassValue | Obj | None = None
    read: set[str] = field(default_factory=set)  # names looked up in `locals`: what the call's result depends on
    marks: dict[str, frozenset[str]] = field(default_factory=dict)  # locals computed from the input, as in Obj


@dataclass
class Entered:
    """A call about to run: its scope, its statements, `Class.method` for messages, and its self (or cls)."""

    scope: Scope
    body: list[tree_sitter.Node]
    where: str
    bound: Any


@dataclass
class Shared:
    """What every interpreter of one tree may share: lookups, class attributes, capability-free results."""

    calls: dict[tuple[Any, ...], tuple[Any, frozenset[str], int]] = field(default_factory=dict)
    # results that asked the GPU only yes/no questions: (questions, result) per call, for any GPU answering alike
    by_gpu: dict[tuple[Any, ...], list[tuple[tuple[tuple[str, int, bool], ...], tuple[Any, frozenset[str], int]]]] = (
        field(default_factory=dict)
    )
    reads: dict[tuple[Any, ...], frozenset[str]] = field(default_factory=dict)
    attrs: dict[tuple[str, int, str], tuple[ClassRef, tree_sitter.Node, str] | None] = field(default_factory=dict)
    params: dict[tuple[str, int], list[tuple[str, tree_sitter.Node | None]]] = field(default_factory=dict)
    values: dict[tuple[str, int], Any] = field(default_factory=dict)
    literals: dict[int, Any] = field(default_factory=dict)  # by node id: the parsed trees outlive the interpreters
    names: dict[tuple[str, str], Any] = field(default_factory=dict)
    enums: dict[tuple[str, int], bool] = field(default_factory=dict)  # whether a class is an Enum, read once each
    words: dict[int, str] = field(default_factory=dict)  # by node id, as literals: each name's text, read once
    # facts of named constants the interpreter cannot build (`scalar_types.uint4b8.size_bits`): (enum, name, attr)
    member_attrs: dict[tuple[str, str, str], Any] = field(default_factory=dict)


def class_ref(value: Any) -> ClassRef | None:
    """The class a value names (what `get_builder_cls()` returns), or None."""
    return value.ref if isinstance(value, ClassValue) else None


def unknown(why: str, path: str, node: tree_sitter.Node) -> Unknown:
    return Unknown((Reason(why, path, line(node)),))


def merge(*values: Any) -> Unknown:
    """One Unknown holding the reasons of every Unknown among `values`, each once, in order."""
    reasons: list[Reason] = []
    for v in values:
        if isinstance(v, Unknown):
            reasons += [r for r in v.reasons if r not in reasons]
    return Unknown(tuple(reasons))


def truth(value: Any) -> bool | Unknown:
    if isinstance(value, Unknown):
        return value
    if isinstance(value, Platform | ClassValue | Function | Member | Obj):
        return True
    return bool(value)


def same(a: Any, b: Any) -> bool:
    """Two known values equal and of one type: what lets both sides of an undecided `if` agree."""
    if isinstance(a, Unknown) or isinstance(b, Unknown):
        return False
    try:
        return bool(a == b) and type(a) is type(b)
    except Exception:  # comparison of arbitrary values must not stop the walk
        return False


def has_unknown(values: Any) -> bool:
    return any(
        isinstance(v, Unknown) or (isinstance(v, list | tuple) and any(isinstance(i, Unknown) for i in v))
        for v in values
    )


def frozen(values: Any) -> tuple[Any, ...] | None:
    """The call arguments as a cache key, or None when one is mutable (a list the callee may append to)."""
    key = tuple(values)
    try:
        hash(key)
    except TypeError:
        return None
    return key


def copied(values: dict[str, Any]) -> dict[str, Any]:
    """Locals for one side of a branch: containers copied, so the other side never sees what this one appends."""
    return {k: copy.copy(v) if isinstance(v, list | dict | set) else v for k, v in values.items()}


def as_int(value: Any) -> int:
    if isinstance(value, Cap):
        return value.to_int()
    if isinstance(value, tuple):
        return int(value[0]) * 10 + int(value[1])
    return int(value)


def compare(op: str, left: Any, right: Any, path: str, node: tree_sitter.Node) -> Any:
    if isinstance(left, Unknown) or isinstance(right, Unknown):
        return merge(left, right)
    if isinstance(left, Cap) and _pair(right):
        right = Cap(*right)
    if isinstance(right, Cap) and _pair(left):
        left = Cap(*left)
    if op in ("in", "not in") and isinstance(left, Cap) and isinstance(right, list | tuple | set):
        right = [Cap(*r) if _pair(r) else r for r in right]
    try:
        return cast(bool, _OPS[op](left, right))
    except (TypeError, KeyError):
        return unknown(f"{op} between values known only at run time", path, node)


def arithmetic(op: str, left: Any, right: Any, path: str, node: tree_sitter.Node) -> Any:
    if isinstance(left, Unknown) or isinstance(right, Unknown):
        return merge(left, right)
    try:
        if op == "+":
            return left + right
        if op == "-":
            return left - right
        if op == "*":
            return left * right
        if op == "//":
            return left // right
        if op == "%":
            return left % right
    except TypeError:
        pass
    return unknown(f"{op} on values known only at run time", path, node)


def _pair(value: Any) -> bool:
    """A (major, minor) tuple, as vLLM writes capabilities to compare with a DeviceCapability."""
    return isinstance(value, tuple) and len(value) == 2 and all(isinstance(v, int) for v in value)


_OPS: dict[str, Callable[[Any, Any], Any]] = {
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
    "in": lambda a, b: a in b,
    "not in": lambda a, b: a not in b,
    "is": lambda a, b: a is b,
    "is not": lambda a, b: a is not b,
}
