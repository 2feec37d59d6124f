"""A checkpoint's quantization_config run through the tag's from_config guards, in three values.

The guards are derived from the source (knowledge/extract/loading/replay.py) as `Term` trees over
the dict; this module evaluates them against the dict of one checkpoint, offline. Python's own
semantics are kept where vLLM relies on them (`in` on a dict means its keys, `str(True)` prints
`True`, an f-string field is `str()` of its value, `!r` its `repr()`), so a refusal quotes vLLM's
message as vLLM would fill it. A term this replay cannot decide (a platform query, a loop) makes the
guard that needs it undecided: the answer is then conditional at that guard's line, never a guess.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from vllm_quant_mcp.knowledge.registry.loading import ConfigGuard, ConfigReplay, Raise, Term

__all__ = ["Deployment", "Replayed", "evaluate", "replay"]

# current_platform's questions that name one platform; others (is_cuda_alike...) stay open.
_PLATFORM_CHECKS = {"is_cuda", "is_rocm", "is_cpu", "is_xpu", "is_tpu"}
_TYPES: dict[str, type | tuple[type, ...]] = {
    "dict": dict,
    "Mapping": dict,
    "list": list,
    "tuple": tuple,
    "str": str,
    "int": int,
    "float": float,
    "bool": bool,
}


class _Unknown:
    """A value the replay does not decide, with the code and path:line that decide it at run time."""

    def __init__(self, why: str) -> None:
        self.why = why


class _Keys(tuple):  # type: ignore[type-arg]
    """A dict literal's keys (its values are vLLM objects this replay does not build)."""


class Replayed(BaseModel):
    outcome: Literal["loads", "refused", "conditional"]
    raised: Raise | None = Field(default=None, description="The raise taken, its message filled as vLLM fills it.")
    undecided: str | None = Field(default=None, description="What a run-time value decides, and where.")
    guard: ConfigGuard | None = None
    scheme: dict[str, Any] = Field(default={}, description="The constructor's arguments read from the dict.")


def replay(config_replay: ConfigReplay, config: dict[str, Any], given: Deployment | None = None) -> Replayed:
    """The first guard the dict takes (refused), the first it leaves undecided (conditional), else loads."""
    scheme = {}
    for name, term in config_replay.scheme.items():
        value = evaluate(term, config, given)
        if term.op != "config" and _plain(value):
            scheme[name] = value
    for guard in config_replay.guards:
        held = _truth(evaluate(guard.when, config, given))
        if held is True:
            return Replayed(outcome="refused", raised=_filled(guard, config, given), guard=guard, scheme=scheme)
        if held is None:
            undecided = _why(guard.when, config, given)
            return Replayed(outcome="conditional", undecided=undecided, guard=guard, scheme=scheme)
    return Replayed(outcome="loads", scheme=scheme)


class Deployment(BaseModel):
    """What the probes read beside the dict: --quantization, the platform vLLM runs on, the model's type."""

    quantization: str | None = None
    platform: str | None = Field(default=None, description="e.g. 'cuda'; None: not known, platform checks stay open.")
    model_type: str | None = Field(default=None, description="config.json's model_type.")


def evaluate(term: Term, config: dict[str, Any], given: Deployment | None = None) -> Any:
    """A term's value for this dict (and deployment), or an unknown carrying what decides it."""
    op, args = term.op, term.args
    given = given or Deployment()

    def arg(i: int) -> Any:
        return evaluate(args[i], config, given)

    if op == "config":
        return config
    if op == "user":
        return given.quantization
    if op == "platform":
        name, where = term.value
        if given.platform is None or name not in _PLATFORM_CHECKS:
            return _Unknown(where)
        return name == f"is_{given.platform}"
    if op == "model_type":
        return given.model_type if given.model_type is not None else arg(0)
    if op == "raised":
        return _Unknown("a path on which the code raises")
    if op == "const":
        return term.value
    if op == "keys":
        return _Keys(_frozen(v) for v in term.value)
    if op == "unknown":
        return _Unknown(str(term.value))
    if op == "get":
        base = arg(0)
        if not isinstance(base, dict):
            return base if isinstance(base, _Unknown) else _Unknown(f"a lookup of {term.value} in a {type(base)}")
        for key in term.value:
            if key in base:
                return base[key]
        return arg(1) if len(args) > 1 else _Unknown(f"{term.value} absent (vLLM raises first)")
    if op == "has":
        base = arg(0)
        return term.value in base if isinstance(base, dict) else _unknown_of(base)
    if op == "seq":
        items = [arg(i) for i in range(len(args))]
        bad = next((i for i in items if isinstance(i, _Unknown)), None)
        return bad if bad is not None else (tuple(items) if term.value == "tuple" else items)
    if op in ("and", "or"):
        return _logic(op, arg(0), lambda: arg(1))
    if op in ("not", "truthy"):
        held = _truth(arg(0))
        return _unknown_of(arg(0)) if held is None else (not held if op == "not" else held)
    if op == "if":
        held = _truth(arg(0))
        if held is None:
            then, other = arg(1), arg(2)
            return then if _same(then, other) else _unknown_of(arg(0))
        return arg(1) if held else arg(2)
    if op == "cmp":
        return _compare(str(term.value), arg(0), arg(1))
    return _call(op, term, arg(0) if args else None)


def _call(op: str, term: Term, subject: Any) -> Any:
    if isinstance(subject, _Unknown):
        return subject
    if op == "isinstance":
        types = [_TYPES.get(name) for name in term.value]
        if any(t is None for t in types):
            return _Unknown(f"isinstance against {term.value}")
        return any(isinstance(subject, t) for t in types if t is not None)
    if op == "len":
        return len(subject) if hasattr(subject, "__len__") else _Unknown("len() of a value without one")
    if op == "str":
        return str(subject)
    if op in ("upper", "lower", "strip"):
        return getattr(subject, op)() if isinstance(subject, str) else _Unknown(f".{op}() of a {type(subject)}")
    if op in ("startswith", "endswith"):
        return getattr(subject, op)(term.value) if isinstance(subject, str) else _Unknown(f".{op}() of {subject!r}")
    if op == "items":
        return list(subject.items()) if isinstance(subject, dict) else _Unknown(f".items() of {subject!r}")
    if op == "dict_keys":
        return f"dict_keys({list(subject)})" if isinstance(subject, tuple) else _Unknown("d.keys()")
    return _Unknown(f"an operation this replay does not know: {op}")


def _compare(op: str, a: Any, b: Any) -> Any:
    if isinstance(a, _Unknown) or isinstance(b, _Unknown):
        return a if isinstance(a, _Unknown) else b
    try:
        if op in ("in", "not in"):
            found = _frozen(a) in b if isinstance(b, _Keys) else a in b
            return found if op == "in" else not found
        if op == "is":
            return a is b or (a is None and b is None) or (isinstance(a, bool) and a == b and type(a) is type(b))
        if op == "is not":
            return not _compare("is", a, b)
        return {
            "==": lambda: a == b,
            "!=": lambda: a != b,
            "<": lambda: a < b,
            ">": lambda: a > b,
            "<=": lambda: a <= b,
            ">=": lambda: a >= b,
        }[op]()
    except (TypeError, KeyError):
        return _Unknown(f"`{a!r} {op} {b!r}`, which Python refuses or this replay does not know")


def _logic(op: str, a: Any, b: Any) -> Any:
    """Python's `and`/`or` (the value, not only its truth), with an unknown left side settled by the right
    where the right alone decides the truth."""
    held = _truth(a)
    if held is None:
        right = b()
        right_held = _truth(right)
        if (op == "and" and right_held is False) or (op == "or" and right_held is True):
            return right
        return a
    if op == "and":
        return b() if held else a
    return a if held else b()


def _truth(value: Any) -> bool | None:
    if isinstance(value, _Unknown):
        return None
    try:
        return bool(value)
    except (TypeError, ValueError):
        return None


def _filled(guard: ConfigGuard, config: dict[str, Any], given: Deployment | None) -> Raise:
    said = guard.raised.message
    for field, term in guard.fills.items():
        value = evaluate(term, config, given)
        if not isinstance(value, _Unknown):
            said = said.replace(field, repr(value) if "!r" in field else str(value))
    return guard.raised.model_copy(update={"message": said})


def _why(term: Term, config: dict[str, Any], given: Deployment | None) -> str:
    """The first unknown the guard's condition reaches, in evaluation order."""
    value = evaluate(term, config, given)
    if isinstance(value, _Unknown):
        return value.why
    for inner in term.args:
        found = _why(inner, config, given)
        if found:
            return found
    return "a value this replay does not decide"


def _unknown_of(value: Any) -> _Unknown:
    return value if isinstance(value, _Unknown) else _Unknown("a value of the wrong type")


def _same(a: Any, b: Any) -> bool:
    return not isinstance(a, _Unknown) and not isinstance(b, _Unknown) and type(a) is type(b) and a == b


def _frozen(value: Any) -> Any:
    return tuple(_frozen(v) for v in value) if isinstance(value, list) else value


def _plain(value: Any) -> bool:
    return (
        value is None
        or isinstance(value, (bool, int, float, str))
        or (isinstance(value, list) and all(isinstance(v, (bool, int, float, str)) for v in value))
    )
