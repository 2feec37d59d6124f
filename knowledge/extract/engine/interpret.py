"""A small three-valued interpreter for the pure predicates vLLM's attention selector calls.

Which KV dtype runs on which GPU is decided in vLLM by short classmethods
(`supports_kv_cache_dtype`, `supports_compute_capability`, `supports_combination`) and
by `_get_backend_priorities`, whose bodies change shape every few releases. Matching
each shape with a query would rot; reading them as code does not. This interpreter
walks the tree-sitter nodes of such a function (never executing vLLM: nothing is
imported, every value is built here) with the capability of one GPU bound, and
answers a value, or `Unknown` carrying each runtime check that decides it (a compiled
extension, an optional package, an env var, the model's config) with its path:line.

What it understands is what these predicates use: literals, names resolved through
imports across the tree, attributes, calls with parameter defaults, if/elif/else,
assignments, return and raise, comparisons, and/or/not in three-valued logic, a few
builtins and str/list methods, `super()`, Enum members, `DeviceCapability` and the
capability questions of `current_platform`. Anything else is Unknown, with where it is.
An undecided `if` runs both branches: equal results are still decided.
"""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, cast

import tree_sitter

from vllm_quant_mcp.knowledge.errors import InternalError
from vllm_quant_mcp.knowledge.extract.engine.modules import ClassRef, Modules
from vllm_quant_mcp.knowledge.extract.engine.syntax import NotLiteral, is_static, line, literal, text

__all__ = [
    "CAPABILITY",
    "INPUT",
    "Cap",
    "Entered",
    "Interpreter",
    "Marked",
    "Member",
    "Obj",
    "Reason",
    "Scope",
    "Shared",
    "Unknown",
    "class_ref",
]

MAX_STEPS = 20_000
# A statement of a walk that follows the path itself: enough for the predicates and small helpers it
# calls, not for the workspaces and wrappers a constructor builds, which decide nothing about refusals.
STEP_BUDGET = 400
MAX_DEPTH = 24


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
class _Class:
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


@dataclass(frozen=True)
class _Function:
    path: str
    node: tree_sitter.Node  # function_definition
    bound: _Class | Obj | None = None  # cls of a classmethod, or self
    owner: ClassRef | None = None  # class that defines it, for super()


@dataclass(frozen=True)
class _Super:
    bound: _Class | Obj
    after: ClassRef


Marked = tuple[Any, frozenset[str]]  # a value and the marks of what computing it read


@dataclass
class Entered:
    """A call about to run: its scope, its statements, `Class.method` for messages, and its self (or cls)."""

    scope: Scope
    body: list[tree_sitter.Node]
    where: str
    bound: Any


@dataclass(frozen=True)
class _Platform:
    kind: str  # cuda, rocm, cpu, xpu
    capability: Cap | None
    arch: str | None = None  # ROCm: the gfx name amdsmi reports, e.g. gfx942


@dataclass(frozen=True)
class _Builtin:
    fn: Callable[..., Any]


class _Return(InternalError):
    """Control flow: a `return` unwinding the interpreted function (never leaves this module)."""

    def __init__(self, value: Any, line: int = 0) -> None:
        self.value = value
        self.line = line


class _Raise(InternalError):
    """Control flow: a `raise` in the interpreted source."""

    def __init__(self, reason: Reason) -> None:
        self.reason = reason


class _TooComplex(InternalError):
    """Control flow: the step or depth budget ran out."""

    def __init__(self, reason: Reason) -> None:
        self.reason = reason


@dataclass
class Scope:
    """The locals of one interpreted function, and what the interpreter learns from reading them."""

    path: str
    locals: dict[str, Any] = field(default_factory=dict)
    owner: ClassRef | None = None
    bound: _Class | Obj | None = None
    read: set[str] = field(default_factory=set)  # names looked up in `locals`: what the call's result depends on
    marks: dict[str, frozenset[str]] = field(default_factory=dict)  # locals computed from the input, as in Obj


_Frame = Scope


_PLATFORM_MODULES = {"vllm.platforms"}
_ENV_WORDS: dict[str, Any] = {"0": False, "false": False, "1": True, "true": True, "none": None, "": None}
_TORCH_DTYPES = {"float16", "bfloat16", "float32", "half", "float", "uint8", "int8", "float8_e4m3fn"}
_KNOWN_STR_METHODS = {"startswith", "endswith", "lower", "upper", "strip", "split", "replace"}


def _unknown(why: str, path: str, node: tree_sitter.Node) -> Unknown:
    return Unknown((Reason(why, path, line(node)),))


def _merge(*values: Any) -> Unknown:
    reasons: list[Reason] = []
    for v in values:
        if isinstance(v, Unknown):
            reasons += [r for r in v.reasons if r not in reasons]
    return Unknown(tuple(reasons))


_MISSING = object()
_CAPABILITY = "\0capability"  # marks, among the `assumed` of a call, that it asked for the GPU's capability
INPUT = "\0input"  # marks, in the same way, that it read a value an Obj or Scope holds as the caller's input
CAPABILITY = _CAPABILITY
_MARKS = frozenset({_CAPABILITY, INPUT})


@dataclass
class Shared:
    """What every interpreter of one tree may share: lookups, class attributes, capability-free results."""

    calls: dict[tuple[Any, ...], tuple[Any, frozenset[str], int]] = field(default_factory=dict)
    reads: dict[tuple[Any, ...], frozenset[str]] = field(default_factory=dict)
    attrs: dict[tuple[str, int, str], tuple[ClassRef, tree_sitter.Node, str] | None] = field(default_factory=dict)
    params: dict[tuple[str, int], list[tuple[str, tree_sitter.Node | None]]] = field(default_factory=dict)
    values: dict[tuple[str, int], Any] = field(default_factory=dict)
    literals: dict[int, Any] = field(default_factory=dict)  # by node id: the parsed trees outlive the interpreters
    names: dict[tuple[str, str], Any] = field(default_factory=dict)
    enums: dict[tuple[str, int], bool] = field(default_factory=dict)  # whether a class is an Enum, read once each
    words: dict[int, str] = field(default_factory=dict)  # by node id, as literals: each name's text, read once


class Interpreter:
    """Evaluates functions of one tree for one platform and capability; results are cached per call.

    `env` holds the defaults of VLLM_* variables as vllm/envs.py writes them: `envs.X` reads
    its default, and each default read is recorded in `assumed`, so an answer can say
    "with X unset". A variable without a literal default stays Unknown.

    `forced` decides run-time checks by where they are (a call such as `find_spec("aiter")`, a
    name set when a compiled module imports): a caller asks "and if it holds?" and "if not?" in
    two interpreters, each with its own caches, and compares the answers. On ROCm, `arch` is
    the gfx name the platform module reads from amdsmi, so the arch-gated lists resolve.
    """

    def __init__(
        self,
        modules: Modules,
        platform: str,
        capability: Cap | None,
        env: dict[str, str | None] | None = None,
        shared: Shared | None = None,
        arch: str | None = None,
        forced: dict[tuple[str, int], Any] | None = None,
    ) -> None:
        self.modules = modules
        self.platform = _Platform(platform, capability, arch)
        self.env = env or {}
        self.shared = shared or Shared()
        self.forced = forced or {}  # run-time checks decided by the caller: (path, line) -> the value assumed
        self._assumed: set[str] = set()
        self._steps = 0
        self._budget = MAX_STEPS
        self._depth = 0
        self._cache: dict[tuple[Any, ...], tuple[Any, frozenset[str], int]] = {}
        self.decided_at: tuple[str, int] | None = None  # the `return` that gave the last call's answer

    @property
    def asked_gpu(self) -> bool:
        """Whether the last evaluation read the GPU's capability (or anything computed from it)."""
        return _CAPABILITY in self._assumed

    @property
    def assumed(self) -> set[str]:
        """The env defaults the last evaluation relied on."""
        return self._assumed - {_CAPABILITY}

    # -- entry points -------------------------------------------------------------------------------------

    def call_method(self, cls: ClassRef, name: str, **kwargs: Any) -> Any:
        """`cls.name(**kwargs)` for a classmethod found through the MRO; Unknown when it cannot be decided."""
        found = self.modules.method(cls, name)
        if found is None:
            return Unknown((Reason(f"{cls.name}.{name} is not in the tree", cls.path, line(cls.node)),))
        owner, node = found
        return self.run(_Function(owner.path, _definition(node), _Class(cls), owner), [], kwargs)

    def call_function(self, path: str, name: str, **kwargs: Any) -> Any:
        index = self.modules.index(path)
        if index is None or name not in index.functions:
            return Unknown((Reason(f"{name} is not defined in {path}", path, 1),))
        return self.run(_Function(path, _definition(index.functions[name])), [], kwargs)

    def class_attribute(self, cls: ClassRef, name: str) -> Any:
        return self._class_attr(_Class(cls), name, cls.path, cls.node)

    def truth(self, value: Any) -> bool | Unknown:
        if isinstance(value, Unknown):
            return value
        if isinstance(value, _Platform | _Class | _Function | Member | Obj):
            return True
        return bool(value)

    def run(self, fn: _Function, args: list[Any], kwargs: dict[str, Any]) -> Any:
        """One evaluation from the top; `assumed` afterwards names the env defaults it relied on."""
        self._steps, self._budget = 0, MAX_STEPS
        self._assumed = set()
        try:
            return self._call(fn, args, kwargs)
        except _Raise as raised:
            return Unknown((raised.reason,))
        except _TooComplex as stop:
            return Unknown((stop.reason,))

    # -- statement by statement, for a walk that follows the path itself (attention_build.py) --------------

    def member(self, obj: Obj, name: str) -> Any:
        """`obj.name`: an attribute set so far, or a method of its class bound to it."""
        if obj.ref is None:
            return obj.attrs.get(name, Unknown((Reason(f"{obj.what}.{name} is set at run time", "", 1),)))
        return self._obj_attr(obj, name, obj.ref.path, obj.ref.node)

    def enter(self, callee: Any, args: list[Marked], kwargs: dict[str, Marked]) -> Entered | None:
        """The scope a call of `callee` starts in (arguments bound, with their marks), or None if not source."""
        if not isinstance(callee, _Function):
            return None
        scope = _Frame(callee.path, owner=callee.owner, bound=callee.bound)
        self._bind(callee, scope, [value for value, _ in args], {k: v for k, (v, _) in kwargs.items()})
        names = [name for name, _ in self._parameters(callee) if name not in ("self", "cls")]
        for name, (_, marks) in [*zip(names, args, strict=False), *((k, kwargs[k]) for k in names if k in kwargs)]:
            if marks:
                scope.marks[name] = marks
        body = callee.node.child_by_field_name("body")
        fn_name = callee.node.child_by_field_name("name")
        owner = f"{callee.owner.name}." if callee.owner is not None else ""
        where = owner + (text(fn_name) if fn_name is not None else "?")
        return Entered(scope, list(body.named_children) if body is not None else [], where, callee.bound)

    def evaluate(self, node: tree_sitter.Node, scope: Scope) -> Marked:
        """An expression's value, with the marks (the GPU, the input) of what it read, within STEP_BUDGET."""
        self._steps, self._budget = 0, STEP_BUDGET
        self._assumed = set()
        try:
            value = self._expr(node, scope)
        except (_Raise, _TooComplex) as stopped:
            value = Unknown((stopped.reason,))
        return value, frozenset(self._assumed & _MARKS)

    def execute(self, stmt: tree_sitter.Node, scope: Scope) -> None:
        """A simple statement (an assignment, a call, an import) for its effect on the scope and on `self`.

        A raise or return inside a function it calls ends that call's effects only: which raises
        count is the caller's walk to decide, not this statement's.
        """
        self._steps, self._budget = 0, STEP_BUDGET
        self._assumed = set()
        with contextlib.suppress(_Raise, _TooComplex, _Return):
            self._statement(stmt, scope)

    # -- calls --------------------------------------------------------------------------------------------

    def _call(self, fn: _Function, args: list[Any], kwargs: dict[str, Any]) -> Any:
        name = fn.node.child_by_field_name("name")
        if self.platform.arch is not None and name is not None and text(name) in _ARCH_PROBES:
            self._assumed.add(_CAPABILITY)
            return self.platform.arch
        if self._depth >= MAX_DEPTH:
            raise _TooComplex(Reason("calls nest too deep to follow", fn.path, line(fn.node)))
        frame = _Frame(fn.path, owner=fn.owner, bound=fn.bound)
        self._bind(fn, frame, args, kwargs)
        # Keyed on what the function binds, not on what it was offered: checks called with the whole
        # selector configuration share one answer across the values they never read.
        # Keyed on the arguments the function has been seen to read, not all it was given: the priority
        # function called for every KV dtype answers once per dtype only where it looks at the dtype. A
        # result that never asked the platform for the GPU's capability is the same for every GPU: it goes
        # to the cache all interpreters of the tree share.
        fn_key = (self.platform.kind, fn.path, fn.node.start_byte, fn.bound)
        reads = self.shared.reads.get(fn_key, frozenset())
        key = (*fn_key, reads, _frozen((n, frame.locals.get(n)) for n in sorted(reads)))
        cacheable = key[-1] is not None and not isinstance(fn.bound, Obj)
        cached = (self.shared.calls.get(key) or self._cache.get(key)) if cacheable else None
        if cached is not None:
            self._assumed |= cached[1]
            self.decided_at = (fn.path, cached[2])
            return cached[0]
        outer, self._assumed = self._assumed, set()
        self._depth += 1
        returned = line(fn.node)
        try:
            body = fn.node.child_by_field_name("body")
            if body is not None:
                self._block(body, frame, tail=True)
            result = None
        except _Return as done:
            result, returned = done.value, done.line or returned
        finally:
            self._depth -= 1
            inner, self._assumed = self._assumed, outer | self._assumed
        read = reads | (frame.read & {name for name, _ in self._parameters(fn)})
        self.shared.reads[fn_key] = read
        key = (*fn_key, read, _frozen((n, frame.locals.get(n)) for n in sorted(read)))
        if cacheable and key[-1] is not None:
            (self._cache if _CAPABILITY in inner else self.shared.calls)[key] = (result, frozenset(inner), returned)
        self.decided_at = (fn.path, returned)
        return result

    def _bind(self, fn: _Function, frame: _Frame, args: list[Any], kwargs: dict[str, Any]) -> None:
        positional = list(args)
        # A @staticmethod whose first parameter is named cls (MoE experts' is_supported_config) is handed its class
        # positionally when called through another class: the argument wins over the class it was looked up on.
        static = bool(positional) and fn.node.parent is not None and is_static(fn.node.parent)
        for name, default in self._parameters(fn):
            if name in ("cls", "self") and fn.bound is not None and not frame.locals and not static:
                frame.locals[name] = fn.bound
            elif positional:
                frame.locals[name] = positional.pop(0)
            elif name in kwargs:
                frame.locals[name] = kwargs[name]
            elif default is not None:
                frame.locals[name] = self._expr(default, _Frame(fn.path))
            else:
                frame.locals[name] = _unknown(f"argument {name} not given", fn.path, fn.node)

    def _parameters(self, fn: _Function) -> list[tuple[str, tree_sitter.Node | None]]:
        key = (fn.path, fn.node.start_byte)
        if key not in self.shared.params:
            params = fn.node.child_by_field_name("parameters")
            names: list[tuple[str, tree_sitter.Node | None]] = []
            for p in params.named_children if params is not None else []:
                if p.type == "identifier":
                    names.append((text(p), None))
                elif p.type in ("default_parameter", "typed_default_parameter"):
                    names.append((text(p.child_by_field_name("name") or p), p.child_by_field_name("value")))
                elif p.type == "typed_parameter":
                    names.append((text(p.named_children[0]), None))
            self.shared.params[key] = names
        return self.shared.params[key]

    # -- statements ---------------------------------------------------------------------------------------

    def _block(self, block: tree_sitter.Node, frame: _Frame, tail: bool = False) -> None:
        self._run(list(block.named_children), frame, tail)

    def _run(self, statements: list[tree_sitter.Node], frame: _Frame, tail: bool) -> None:
        """Statements in order; an `if` takes the rest of them along into whichever branches it runs.

        `tail` says the statements end the function: falling off their end returns None, which lets
        `if x: return A` followed by `return A` be decided whatever x is.
        """
        for i, stmt in enumerate(statements):
            if stmt.type == "if_statement":
                self._tick(stmt, frame)
                self._if(stmt, frame, statements[i + 1 :], tail)
                return
            if stmt.type == "try_statement":
                body = stmt.child_by_field_name("body")
                self._run([*(body.named_children if body is not None else []), *statements[i + 1 :]], frame, tail)
                return
            self._statement(stmt, frame)

    def _statement(self, stmt: tree_sitter.Node, frame: _Frame) -> None:
        self._tick(stmt, frame)
        kind = stmt.type
        if kind == "expression_statement":
            inner = stmt.named_children[0] if stmt.named_children else None
            if inner is None or inner.type == "string":
                return
            if inner.type == "assignment":
                self._assign(inner, frame)
            elif inner.type == "augmented_assignment":
                self._augmented(inner, frame)
            elif not _is_logging(inner):  # a log line changes no answer
                self._expr(inner, frame)
        elif kind == "return_statement":
            value = stmt.named_children[0] if stmt.named_children else None
            raise _Return(self._expr(value, frame) if value is not None else None, line(stmt))
        elif kind == "raise_statement":
            raise _Raise(Reason(f"raises: {text(stmt)[:160]}", frame.path, line(stmt)))
        elif kind == "import_from_statement":
            self._import(stmt, frame)
        elif kind in ("pass_statement", "comment", "assert_statement", "import_statement", "global_statement"):
            return
        elif kind == "for_statement":
            self._for(stmt, frame)
        elif kind == "function_definition" and (name := stmt.child_by_field_name("name")) is not None:
            frame.locals[text(name)] = _Function(frame.path, stmt)  # a helper defined inside (MoE's _move_to_front)
        else:
            raise _Raise(Reason(f"{kind} is beyond this reading of the source", frame.path, line(stmt)))

    def _tick(self, node: tree_sitter.Node, frame: _Frame) -> None:
        self._steps += 1
        if self._steps > self._budget:
            raise _TooComplex(Reason("too many steps to follow", frame.path, line(node)))

    def _assign(self, node: tree_sitter.Node, frame: _Frame) -> None:
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if right is None or left is None:
            return
        outer, self._assumed = self._assumed, set()
        try:
            value = self._expr(right, frame)
        finally:
            marks, self._assumed = frozenset(self._assumed & _MARKS), outer | self._assumed
        if left.type == "identifier":
            frame.locals[text(left)] = value
            if marks or frame.marks:
                frame.marks[text(left)] = marks
        elif left.type == "attribute":
            self._set_attribute(left, value, marks, frame)
        elif left.type in ("pattern_list", "tuple_pattern") and isinstance(value, Unknown):
            for target in left.named_children:
                if target.type == "identifier":
                    frame.locals[text(target)] = value
        elif left.type in ("pattern_list", "tuple_pattern") and isinstance(value, tuple | list):
            for target, item in zip(left.named_children, value, strict=False):
                if target.type == "identifier":
                    frame.locals[text(target)] = item
        else:
            for target in left.named_children if left.type in ("pattern_list", "tuple_pattern") else [left]:
                if target.type == "identifier":
                    frame.locals[text(target)] = _unknown("assigned from a value we cannot unpack", frame.path, node)

    def _set_attribute(self, target: tree_sitter.Node, value: Any, marks: frozenset[str], frame: _Frame) -> None:
        """`obj.name = value` where obj is an Obj (self, in a constructor); anywhere else it changes no answer."""
        owner, name = target.child_by_field_name("object"), target.child_by_field_name("attribute")
        obj = self._expr(owner, frame) if owner is not None else None
        if isinstance(obj, Obj) and name is not None:
            obj.attrs[text(name)] = value
            obj.marks[text(name)] = marks

    def _augmented(self, node: tree_sitter.Node, frame: _Frame) -> None:
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        operator = node.child_by_field_name("operator")
        if left is None or right is None or operator is None or left.type != "identifier":
            return
        current = frame.locals.get(text(left))
        value = self._expr(right, frame)
        frame.locals[text(left)] = self._binary(text(operator).rstrip("="), current, value, frame, node)

    def _if(self, stmt: tree_sitter.Node, frame: _Frame, after: list[tree_sitter.Node], tail: bool) -> None:
        self._branch(stmt, stmt.children_by_field_name("alternative"), frame, after, tail)

    def _branch(
        self,
        clause: tree_sitter.Node,
        alternatives: list[tree_sitter.Node],
        frame: _Frame,
        after: list[tree_sitter.Node],
        tail: bool,
    ) -> None:
        """An `if`/`elif` clause: its consequence or what follows it, then `after`; both when undecided."""
        condition = clause.child_by_field_name("condition")
        test = self.truth(self._expr(condition, frame)) if condition is not None else False
        consequence = clause.child_by_field_name("consequence")
        then = [*(consequence.named_children if consequence is not None else []), *after]
        if isinstance(test, Unknown):
            self._both(test, then, alternatives, frame, after, tail)
        elif test:
            self._run(then, frame, tail)
        else:
            self._else(alternatives, frame, after, tail)

    def _else(
        self, alternatives: list[tree_sitter.Node], frame: _Frame, after: list[tree_sitter.Node], tail: bool
    ) -> None:
        if not alternatives:
            self._run(after, frame, tail)
        elif alternatives[0].type == "else_clause":
            body = alternatives[0].child_by_field_name("body")
            self._run([*(body.named_children if body is not None else []), *after], frame, tail)
        else:
            self._branch(alternatives[0], alternatives[1:], frame, after, tail)

    def _both(
        self,
        test: Unknown,
        then: list[tree_sitter.Node],
        alternatives: list[tree_sitter.Node],
        frame: _Frame,
        after: list[tree_sitter.Node],
        tail: bool,
    ) -> None:
        """An undecided condition: run each way to its end on a copy; equal outcomes stand, others are Unknown."""
        outcomes: list[tuple[str, Any]] = []
        for branch_is_then in (True, False):
            branch = _Frame(frame.path, _copy(frame.locals), frame.owner, frame.bound, frame.read, frame.marks)
            try:
                if branch_is_then:
                    self._run(then, branch, tail)
                else:
                    self._else(alternatives, branch, after, tail)
                outcomes.append(("returned", None) if tail else ("fell through", branch.locals))
            except _Return as done:
                outcomes.append(("returned", done.value))
            except _Raise as raised:
                outcomes.append(("raised", raised.reason))
        (kind_a, a), (kind_b, b) = outcomes
        if kind_a == kind_b == "returned" and _same(a, b):
            raise _Return(a, line(then[0]) if then else 0)
        if kind_a == kind_b == "fell through":
            for name in set(a) | set(b):
                same = _same(a.get(name), b.get(name))
                frame.locals[name] = a[name] if same else _merge(test, a.get(name), b.get(name))
            return
        raise _Return(_merge(test, *(v for k, v in outcomes if k == "returned")))

    def _for(self, stmt: tree_sitter.Node, frame: _Frame) -> None:
        target, iterable = stmt.child_by_field_name("left"), stmt.child_by_field_name("right")
        body = stmt.child_by_field_name("body")
        items = self._expr(iterable, frame) if iterable is not None else None
        unpacked = target is not None and target.type in ("pattern_list", "tuple_pattern")
        if target is None or body is None or not (target.type == "identifier" or unpacked):
            raise _Raise(Reason("a loop over values the source computes at run time", frame.path, line(stmt)))
        if not isinstance(items, list | tuple) or (unpacked and not all(isinstance(i, tuple) for i in items)):
            raise _Raise(Reason("a loop over values the source computes at run time", frame.path, line(stmt)))
        names = [text(n) for n in target.named_children] if unpacked else [text(target)]
        for item in items:
            for name, value in zip(names, item if unpacked else (item,), strict=False):  # `for module, attr in pairs`
                frame.locals[name] = value
            self._block(body, frame)

    def _import(self, stmt: tree_sitter.Node, frame: _Frame) -> None:
        module = stmt.child_by_field_name("module_name")
        if module is None:
            return
        for name_node in stmt.children_by_field_name("name"):
            original = name_node.child_by_field_name("name") if name_node.type == "aliased_import" else name_node
            alias = name_node.child_by_field_name("alias") if name_node.type == "aliased_import" else name_node
            if original is not None and alias is not None:
                frame.locals[text(alias)] = self._imported(text(module), text(original), frame.path, stmt)

    # -- names ----------------------------------------------------------------------------------------------

    def _imported(self, dotted: str, name: str, importer: str, node: tree_sitter.Node, hops: int = 4) -> Any:
        if dotted in _PLATFORM_MODULES and name == "current_platform":
            return self.platform
        if name == "DeviceCapability":
            return _Builtin(lambda major, minor=0: Cap(int(major), int(minor)))
        path = self.modules.module_path(dotted, importer)
        if path is None:
            return _unknown(f"{name} comes from {dotted}, which is not vLLM Python source", importer, node)
        return self._module_name(path, name, node, hops) if hops > 0 else self._resolve(path, name, node, 0)

    def _module_name(self, path: str, name: str, node: tree_sitter.Node, hops: int) -> Any:
        """A module-level name of `path`, resolved once per tree: a definition, an import, or a value."""
        key = (path, name)
        if key in self.shared.names:
            value = self.shared.names[key]
            return copy.copy(value) if isinstance(value, list | dict | set) else value
        outer, self._assumed = self._assumed, set()
        try:
            value = self._resolve(path, name, node, hops)
        finally:
            inner, self._assumed = self._assumed, outer | self._assumed
        # The platform, and anything computed from its GPU, differs between interpreters: never shared.
        if _CAPABILITY not in inner and not isinstance(value, _Platform):
            self.shared.names[key] = value
        return value

    def _resolve(self, path: str, name: str, node: tree_sitter.Node, hops: int) -> Any:
        index = self.modules.index(path)
        if index is None:
            return _unknown(f"{path} is not in the tree", path, node)
        if name in index.functions:
            return _Function(path, _definition(index.functions[name]))
        if name in index.classes:
            return _Class(ClassRef(path, name, index.classes[name]))
        rhs = index.assignment(name)
        if rhs is not None:
            return self._expr(rhs, _Frame(path))
        if name in index.imports and hops > 0:
            dotted, original = index.imports[name]
            return self._imported(dotted, original, path, node, hops - 1)
        return _unknown(
            f"{name} is decided when {path} is imported (a compiled extension or optional package)", path, node
        )

    def _name(self, node: tree_sitter.Node, frame: _Frame) -> Any:
        name = self._word(node)
        if name in frame.locals:
            frame.read.add(name)
            if frame.marks:
                self._assumed |= frame.marks.get(name, frozenset())
            return frame.locals[name]
        if name in _BUILTINS:
            return _BUILTINS[name]
        return self._module_name(frame.path, name, node, hops=4)

    def _word(self, node: tree_sitter.Node) -> str:
        """A name's text: the same few thousand names are looked up at every call, and decoding each costs."""
        known = self.shared.words.get(node.id)
        if known is None:
            known = self.shared.words[node.id] = text(node)
        return known

    # -- expressions ----------------------------------------------------------------------------------------

    def _expr(self, node: tree_sitter.Node, frame: _Frame) -> Any:
        self._tick(node, frame)
        kind = node.type
        if kind in ("string", "concatenated_string", "integer", "float"):
            known = self.shared.literals.get(node.id, _MISSING)
            if known is _MISSING:
                try:
                    known = literal(node)
                except NotLiteral:
                    known = text(node)  # an f-string: its text stands in for a message
                self.shared.literals[node.id] = known
            return known
        if kind == "true":
            return True
        if kind == "false":
            return False
        if kind == "none":
            return None
        if kind == "identifier":
            return self._name(node, frame)
        if kind == "parenthesized_expression":  # a comment may open it: `(  # unquantized ...`
            return self._expr(next(c for c in node.named_children if c.type != "comment"), frame)
        if kind in ("list", "tuple", "set", "expression_list"):
            items: list[Any] = []
            for child in node.named_children:
                if child.type == "list_splat":
                    spread = self._expr(child.named_children[0], frame)
                    if isinstance(spread, Unknown):
                        return spread
                    items += list(spread)
                elif child.type != "comment":
                    items.append(self._expr(child, frame))
            return items if kind == "list" else tuple(items) if kind != "set" else set(items)
        if kind == "dictionary":
            return {
                self._expr(_field(p, "key", frame.path), frame): self._expr(_field(p, "value", frame.path), frame)
                for p in node.named_children
                if p.type == "pair"
            }
        if kind == "attribute":
            return self._attribute(node, frame)
        if kind == "call":
            return self._call_expr(node, frame)
        if kind == "comparison_operator":
            return self._compare(node, frame)
        if kind == "boolean_operator":
            return self._boolean(node, frame)
        if kind == "not_operator":
            value = self.truth(self._expr(_field(node, "argument", frame.path), frame))
            return value if isinstance(value, Unknown) else not value
        if kind == "conditional_expression":
            then, test, otherwise = node.named_children
            truth = self.truth(self._expr(test, frame))
            if isinstance(truth, Unknown):
                a, b = self._expr(then, frame), self._expr(otherwise, frame)
                return a if _same(a, b) else _merge(truth, a, b)
            return self._expr(then if truth else otherwise, frame)
        if kind == "binary_operator":
            operator = node.child_by_field_name("operator")
            left = self._expr(_field(node, "left", frame.path), frame)
            right = self._expr(_field(node, "right", frame.path), frame)
            return self._binary(text(operator) if operator else "", left, right, frame, node)
        if kind == "unary_operator":
            value = self._expr(_field(node, "argument", frame.path), frame)
            return -value if isinstance(value, int) and text(node).startswith("-") else value
        if kind == "subscript":
            return self._subscript(node, frame)
        if kind in ("generator_expression", "list_comprehension"):
            return self._comprehension(node, frame)
        return _unknown(f"a {kind} expression is beyond this reading of the source", frame.path, node)

    def _attribute(self, node: tree_sitter.Node, frame: _Frame) -> Any:
        obj_node, attr_node = node.child_by_field_name("object"), node.child_by_field_name("attribute")
        attr = self._word(attr_node) if attr_node is not None else ""
        owner = self._word(obj_node) if obj_node is not None and obj_node.type == "identifier" else ""
        if owner == "torch" and attr in _TORCH_DTYPES:
            return attr
        if owner == "envs":
            return self._env(attr, frame.path, node)
        obj = self._expr(obj_node, frame) if obj_node is not None else None
        if isinstance(obj, Unknown):
            return obj
        if isinstance(obj, Cap) and attr in ("major", "minor"):
            return getattr(obj, attr)
        if isinstance(obj, Cap) and attr == "to_int":
            return _Builtin(obj.to_int)
        if isinstance(obj, _Platform):
            return self._platform_attr(obj, attr, frame, node)
        if isinstance(obj, _Class):
            return self._class_attr(obj, attr, frame.path, node)
        if isinstance(obj, Obj):
            return self._obj_attr(obj, attr, frame.path, node)
        if isinstance(obj, _Super):
            return self._super_attr(obj, attr, node)
        if isinstance(obj, str) and attr in _KNOWN_STR_METHODS:
            return _Builtin(getattr(obj, attr))
        if isinstance(obj, list) and attr in ("append", "insert", "extend", "remove", "index", "copy", "pop"):
            return _Builtin(getattr(obj, attr))
        if isinstance(obj, dict) and attr in ("get", "keys", "values", "items"):
            method = getattr(obj, attr)
            return _Builtin(lambda *a: list(method(*a)) if attr != "get" else method(*a))
        if isinstance(obj, Member) and attr == "name":
            return obj.name
        return _unknown(f"attribute .{attr} of a value known only at run time", frame.path, node)

    def _obj_attr(self, obj: Obj, attr: str, path: str, node: tree_sitter.Node) -> Any:
        if attr in obj.attrs:
            self._assumed |= obj.marks.get(attr, frozenset())
            return obj.attrs[attr]
        found = self._find_attr(obj.ref, attr) if obj.ref is not None else None
        if found is None:
            return _unknown(f"{obj.what}.{attr} is set at run time", path, node)
        owner, definition, kind = found
        if kind == "function":
            return _Function(owner.path, definition, obj, owner)
        return self._class_attr(_Class(owner), attr, path, node)

    def _env(self, name: str, path: str, node: tree_sitter.Node) -> Any:
        if name not in self.env or self.env[name] is None:
            return _unknown(f"environment variable {name}", path, node)
        written = cast(str, self.env[name])
        self._assumed.add(f"{name} at its default ({written})")
        return _ENV_WORDS.get(written.strip().lower(), written)

    def _class_attr(self, cls: _Class, attr: str, path: str, node: tree_sitter.Node) -> Any:
        if self._is_enum(cls.ref):
            return Member(cls.ref.name, attr)
        found = self._find_attr(cls.ref, attr)
        if found is None:
            return _unknown(f"{cls.ref.name}.{attr} is not defined in the tree", path, node)
        owner, definition, kind = found
        if kind == "function":
            return _Function(owner.path, definition, cls, owner)
        key = (owner.path, definition.start_byte)
        if key not in self.shared.values:
            self.shared.values[key] = self._expr(definition, _Frame(owner.path, owner=owner, bound=cls))
        value = self.shared.values[key]
        return copy.copy(value) if isinstance(value, list | dict | set) else value

    def _is_enum(self, cls: ClassRef) -> bool:
        """Asked at every class attribute read; its bases' text is read once per class."""
        key = (cls.path, cls.node.start_byte)
        known = self.shared.enums.get(key)
        if known is None:
            known = self.shared.enums[key] = _is_enum(cls)
        return known

    def _find_attr(self, cls: ClassRef, attr: str) -> tuple[ClassRef, tree_sitter.Node, str] | None:
        """Where `attr` is defined along the MRO: a method's definition, or a class attribute's value."""
        key = (cls.path, cls.node.start_byte, attr)
        if key in self.shared.attrs:
            return self.shared.attrs[key]
        found: tuple[ClassRef, tree_sitter.Node, str] | None = None
        for owner in self._mro(cls):
            body = owner.node.child_by_field_name("body")
            for child in body.named_children if body is not None else []:
                definition = child.child_by_field_name("definition") if child.type == "decorated_definition" else child
                if definition is None:
                    continue
                name = definition.child_by_field_name("name") if definition.type == "function_definition" else None
                if name is not None and text(name) == attr:
                    found = (owner, definition, "function")
                elif definition.type == "expression_statement" and definition.named_children:
                    assignment = definition.named_children[0]
                    left = assignment.child_by_field_name("left") if assignment.type == "assignment" else None
                    right = assignment.child_by_field_name("right") if left is not None else None
                    if left is not None and right is not None and text(left) == attr:
                        found = (owner, right, "value")
                if found is not None:
                    break
            if found is not None:
                break
        self.shared.attrs[key] = found
        return found

    def _super_attr(self, sup: _Super, attr: str, node: tree_sitter.Node) -> Any:
        if sup.bound.ref is None:
            return _unknown(f"super().{attr} of an object without a class", sup.after.path, node)
        mro = self._mro(sup.bound.ref)
        after = next((i for i, c in enumerate(mro) if c.path == sup.after.path and c.name == sup.after.name), -1)
        for owner in mro[after + 1 :]:
            found = self.modules.method(owner, attr, depth=0)
            if found is not None:
                return _Function(owner.path, _definition(found[1]), sup.bound, owner)
        return _unknown(f"super().{attr} is not in the tree", sup.after.path, node)

    def _mro(self, cls: ClassRef) -> list[ClassRef]:
        """Depth-first, left to right: vLLM's backend hierarchies are single inheritance chains."""
        order: list[ClassRef] = []
        todo = [cls]
        while todo and len(order) < 16:
            current = todo.pop(0)
            if all(c.path != current.path or c.name != current.name for c in order):
                order.append(current)
                todo = self.modules.bases(current) + todo
        return order

    def _platform_attr(self, platform: _Platform, attr: str, frame: _Frame, node: tree_sitter.Node) -> Any:
        cap = platform.capability
        # The platform's kind is the same for every GPU an interpreter of this platform is asked about.
        kinds = {"is_cuda": "cuda", "is_rocm": "rocm", "is_cpu": "cpu", "is_xpu": "xpu", "is_tpu": "tpu"}
        if attr in kinds:
            return _Builtin(lambda: platform.kind == kinds[attr])
        if attr == "is_cuda_alike":
            return _Builtin(lambda: platform.kind in ("cuda", "rocm"))
        if attr == "device_type":
            return {"cuda": "cuda", "rocm": "cuda", "xpu": "xpu"}.get(platform.kind, "cpu")
        self._assumed.add(_CAPABILITY)
        if cap is None:
            return _unknown(f"current_platform.{attr} needs a GPU", frame.path, node)
        if attr == "get_device_capability":
            return _Builtin(lambda device_id=0: cap)
        if attr == "has_device_capability":
            return _Builtin(lambda value, device_id=0: cap.to_int() >= _as_int(value))
        if attr == "is_device_capability":
            return _Builtin(lambda value, device_id=0: cap.to_int() == _as_int(value))
        if attr == "is_device_capability_family":
            return _Builtin(lambda value, device_id=0: cap.to_int() // 10 == _as_int(value) // 10)
        found = self._platform_method(platform, attr)
        if found is not None:  # e.g. CudaPlatformBase.supports_fp8: `cls.has_device_capability(89)`, cls the platform
            return found
        return _unknown(f"current_platform.{attr}() is decided on the machine", frame.path, node)

    def _platform_method(self, platform: _Platform, attr: str) -> _Function | None:
        """A classmethod of the platform's own module (vllm/platforms/cuda.py), run with `cls` as the platform."""
        path = f"vllm/platforms/{platform.kind}.py"
        index = self.modules.index(path)
        for name, node in index.classes.items() if index is not None else []:
            found = self.modules.method(ClassRef(path, name, node), attr, depth=0)
            if found is not None:
                return _Function(path, _definition(found[1]), cast(Any, platform), found[0])
        return None

    def _call_expr(self, node: tree_sitter.Node, frame: _Frame) -> Any:
        fn_node = node.child_by_field_name("function")
        arguments = node.child_by_field_name("arguments")
        called = text(fn_node) if fn_node is not None and fn_node.type == "identifier" else ""
        if called == "super":
            if frame.bound is None or frame.owner is None:
                return _unknown("super() outside a method", frame.path, node)
            return _Super(frame.bound, frame.owner)
        if called == "isinstance" and arguments is not None and len(arguments.named_children) == 2:
            return self._isinstance(arguments.named_children, frame, node)
        if called in _RUN_CONFIG:
            return _RUN_CONFIG[called](frame.path, node)
        if fn_node is None:
            return _unknown("a call without a callee: unparsed source", frame.path, node)
        fn = self._expr(fn_node, frame)
        args: list[Any] = []
        kwargs: dict[str, Any] = {}
        if arguments is not None and arguments.type == "generator_expression":  # f(x for x in y)
            args.append(self._comprehension(arguments, frame))
            arguments = None
        for arg in arguments.named_children if arguments is not None else []:
            if arg.type == "keyword_argument":
                kwargs[text(_field(arg, "name", frame.path))] = self._expr(_field(arg, "value", frame.path), frame)
            elif arg.type in ("list_splat", "dictionary_splat"):
                return _unknown("arguments spread at run time", frame.path, node)
            elif arg.type != "comment":
                args.append(
                    self._comprehension(arg, frame) if arg.type == "generator_expression" else self._expr(arg, frame)
                )
        if isinstance(fn, Unknown):
            if (frame.path, line(node)) in self.forced:
                return self.forced[(frame.path, line(node))]
            return _unknown(f"{' '.join(text(node).split())[:100]} is decided at run time", frame.path, node)
        if isinstance(fn, _Builtin):
            if _has_unknown([*args, *kwargs.values()]):
                return _merge(*args, *kwargs.values(), *(i for a in args if isinstance(a, list | tuple) for i in a))
            try:
                return fn.fn(*args, **kwargs)
            except (TypeError, ValueError, AttributeError, IndexError, KeyError):
                return _unknown(f"{text(fn_node)[:60]}(...) with these values", frame.path, node)
        if isinstance(fn, _Function):
            return self._call(fn, args, kwargs)
        if isinstance(fn, _Class):
            return _unknown(f"an instance of {fn.ref.name} built at run time", frame.path, node)
        if (frame.path, line(node)) in self.forced:
            return self.forced[(frame.path, line(node))]
        return _unknown(f"{text(fn_node)[:60]}(...) is decided at run time", frame.path, node)

    def _isinstance(self, args: list[tree_sitter.Node], frame: _Frame, node: tree_sitter.Node) -> Any:
        value = self._expr(args[0], frame)
        names = [text(n) for n in (args[1].named_children if args[1].type == "tuple" else [args[1]])]
        types = [_TYPES.get(n) for n in names]
        if isinstance(value, Unknown) or any(t is None for t in types):
            return (
                value if isinstance(value, Unknown) else _unknown(f"isinstance(..., {text(args[1])})", frame.path, node)
            )
        return isinstance(value, tuple(t for t in types if t is not None))

    def _compare(self, node: tree_sitter.Node, frame: _Frame) -> Any:
        operands = [c for c in node.named_children if c.type != "comment"]
        operators = [text(op) for op in node.children_by_field_name("operators")]
        left = self._expr(operands[0], frame)
        result: Any = True
        for op, right_node in zip(operators, operands[1:], strict=False):
            right = self._expr(right_node, frame)
            step = _compare(op, left, right, frame.path, node)
            if step is False:
                return False
            if isinstance(step, Unknown) or isinstance(left, Unknown) or isinstance(right, Unknown):
                result = _merge(result, step, left, right)
            left = right
        return result

    def _boolean(self, node: tree_sitter.Node, frame: _Frame) -> Any:
        operator = node.child_by_field_name("operator")
        is_and = operator is not None and operator.type == "and"  # a keyword token's type is its text
        left = self._expr(_field(node, "left", frame.path), frame)
        truth = self.truth(left)
        if not isinstance(truth, Unknown) and truth != is_and:
            return left  # `False and x` / `True or x`
        right = self._expr(_field(node, "right", frame.path), frame)
        if not isinstance(truth, Unknown):
            return right
        right_truth = self.truth(right)
        if not isinstance(right_truth, Unknown) and right_truth != is_and:
            return right  # `x and False` is False, `x or True` is True, whatever x is
        return _merge(left, right)

    def _binary(self, op: str, left: Any, right: Any, frame: _Frame, node: tree_sitter.Node) -> Any:
        if isinstance(left, Unknown) or isinstance(right, Unknown):
            return _merge(left, right)
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
        return _unknown(f"{op} on values known only at run time", frame.path, node)

    def _subscript(self, node: tree_sitter.Node, frame: _Frame) -> Any:
        value = self._expr(_field(node, "value", frame.path), frame)
        keys = node.children_by_field_name("subscript")
        if isinstance(value, Unknown) or len(keys) != 1:
            return value if isinstance(value, Unknown) else _unknown("a slice", frame.path, node)
        key = self._expr(keys[0], frame)
        if isinstance(value, _Class) and self._is_enum(value.ref) and isinstance(key, str):
            return Member(value.ref.name, key)
        try:
            return value[key]
        except (TypeError, KeyError, IndexError):
            return _unknown("an index decided at run time", frame.path, node)

    def _comprehension(self, node: tree_sitter.Node, frame: _Frame) -> Any:
        body = node.child_by_field_name("body")
        clauses = [c for c in node.named_children if c.type in ("for_in_clause", "if_clause")]
        if body is None or len(clauses) < 1 or clauses[0].type != "for_in_clause" or len(clauses) > 2:
            return _unknown("a comprehension beyond one for and one if", frame.path, node)
        loop = clauses[0]
        target, iterable = loop.child_by_field_name("left"), loop.child_by_field_name("right")
        items = self._expr(iterable, frame) if iterable is not None else None
        if target is None or target.type != "identifier" or not isinstance(items, list | tuple | set):
            return items if isinstance(items, Unknown) else _unknown("a loop over run-time values", frame.path, node)
        out = []
        for item in items:
            inner = _Frame(
                frame.path, {**frame.locals, text(target): item}, frame.owner, frame.bound, frame.read, frame.marks
            )
            if len(clauses) == 2:
                keep = self.truth(self._expr(clauses[1].named_children[0], inner))
                if isinstance(keep, Unknown):
                    return keep
                if not keep:
                    continue
            out.append(self._expr(body, inner))
        return out


def class_ref(value: Any) -> ClassRef | None:
    """The class a value names (what `get_builder_cls()` returns), or None."""
    return value.ref if isinstance(value, _Class) else None


def _field(node: tree_sitter.Node, name: str, path: str) -> tree_sitter.Node:
    """A field the grammar requires; a broken tree there is read as undecidable, not as a crash."""
    found = node.child_by_field_name(name)
    if found is None:
        raise _Raise(Reason(f"{node.type} without its {name}: unparsed source", path, line(node)))
    return found


def _is_logging(node: tree_sitter.Node) -> bool:
    function = node.child_by_field_name("function") if node.type == "call" else None
    owner = function.child_by_field_name("object") if function is not None and function.type == "attribute" else None
    return owner is not None and text(owner) in ("logger", "logging", "warnings")


def _definition(node: tree_sitter.Node) -> tree_sitter.Node:
    if node.type == "decorated_definition":
        inner = node.child_by_field_name("definition")
        if inner is not None:
            return inner
    return node


def _is_enum(cls: ClassRef) -> bool:
    bases = cls.node.child_by_field_name("superclasses")
    return bases is not None and any(text(b).rsplit(".", 1)[-1].endswith("Enum") for b in bases.named_children)


def _as_int(value: Any) -> int:
    if isinstance(value, Cap):
        return value.to_int()
    if isinstance(value, tuple):
        return int(value[0]) * 10 + int(value[1])
    return int(value)


def _compare(op: str, left: Any, right: Any, path: str, node: tree_sitter.Node) -> Any:
    if isinstance(left, Unknown) or isinstance(right, Unknown):
        return _merge(left, right)
    if isinstance(left, Cap) and _pair(right):
        right = Cap(*right)
    if isinstance(right, Cap) and _pair(left):
        left = Cap(*left)
    if op in ("in", "not in") and isinstance(left, Cap) and isinstance(right, list | tuple | set):
        right = [Cap(*r) if _pair(r) else r for r in right]
    try:
        return cast(bool, _OPS[op](left, right))
    except (TypeError, KeyError):
        return _unknown(f"{op} between values known only at run time", path, node)


_TYPES: dict[str, type] = {
    "str": str,
    "int": int,
    "bool": bool,
    "float": float,
    "list": list,
    "tuple": tuple,
    "dict": dict,
    "set": set,
}
# Calls that read the run's configuration: with no config set (a plain `vllm serve` default), or the model's.
# The ROCm platform module's probes for the GPU's gfx name (amdsmi, then torch): answered from the GPU.
_ARCH_PROBES = frozenset({"_get_gcn_arch", "_query_gcn_arch_from_amdsmi"})

_RUN_CONFIG: dict[str, Callable[[str, tree_sitter.Node], Any]] = {
    "get_current_vllm_config_or_none": lambda path, node: None,
    "get_current_vllm_config": lambda path, node: _unknown(
        "the model's config, read when the engine starts", path, node
    ),
}


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

_BUILTINS: dict[str, _Builtin] = {
    "len": _Builtin(len),
    "list": _Builtin(lambda x=(): list(x)),
    "tuple": _Builtin(lambda x=(): tuple(x)),
    "set": _Builtin(lambda x=(): set(x)),
    "frozenset": _Builtin(lambda x=(): frozenset(x)),
    "any": _Builtin(any),
    "all": _Builtin(all),
    "min": _Builtin(min),
    "max": _Builtin(max),
    "str": _Builtin(str),
    "int": _Builtin(int),
    "bool": _Builtin(bool),
    "sorted": _Builtin(sorted),
}


def _frozen(values: Any) -> tuple[Any, ...] | None:
    """The call arguments as a cache key, or None when one is mutable (a list the callee may append to)."""
    key = tuple(values)
    try:
        hash(key)
    except TypeError:
        return None
    return key


def _has_unknown(values: Any) -> bool:
    return any(
        isinstance(v, Unknown) or (isinstance(v, list | tuple) and any(isinstance(i, Unknown) for i in v))
        for v in values
    )


def _copy(values: dict[str, Any]) -> dict[str, Any]:
    return {k: copy.copy(v) if isinstance(v, list | dict | set) else v for k, v in values.items()}


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, Unknown) or isinstance(b, Unknown):
        return False
    try:
        return bool(a == b) and type(a) is type(b)
    except Exception:  # comparison of arbitrary values must not stop the walk
        return False
