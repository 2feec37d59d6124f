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
from typing import Any

import tree_sitter

from vllm_quant_mcp.knowledge.extract.engine.expressions import Expressions
from vllm_quant_mcp.knowledge.extract.engine.modules import ClassRef, Modules
from vllm_quant_mcp.knowledge.extract.engine.signals import Raised, Returned, TooComplex
from vllm_quant_mcp.knowledge.extract.engine.syntax import definition, line, text
from vllm_quant_mcp.knowledge.extract.engine.values import (
    CAPABILITY,
    INPUT,
    Cap,
    ClassValue,
    Entered,
    Function,
    Marked,
    Platform,
    Reason,
    Scope,
    Shared,
    Unknown,
    marks_of,
    truth,
)

__all__ = ["MAX_STEPS", "STEP_BUDGET", "Interpreter"]

MAX_STEPS = 20_000
# A statement of a walk that follows the path itself: enough for the predicates and small helpers it
# calls, not for the workspaces and wrappers a constructor builds, which decide nothing about refusals.
STEP_BUDGET = 400


class Interpreter(Expressions):
    """Evaluates functions of one tree for one platform and capability; results are cached per call.

    `env` holds the defaults of VLLM_* variables as vllm/envs.py writes them: `envs.X` reads
    its default, and each default read is recorded in `assumed`, so an answer can say
    "with X unset". A variable without a literal default stays Unknown.

    `forced` decides run-time checks by where they are (a call such as `find_spec("aiter")`, a
    name set when a compiled module imports): a caller asks "and if it holds?" and "if not?" in
    two interpreters, each with its own caches, and compares the answers. On ROCm, `arch` is
    the gfx name the platform module reads from amdsmi, so the arch-gated lists resolve.

    The work is split by job: names.py resolves names, statements.py runs calls and statements,
    expressions.py evaluates expressions; this class holds their state and the entry points.
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
        self.platform = Platform(platform, capability, arch)
        self.env = env or {}
        self.shared = shared or Shared()
        self.forced = forced or {}  # run-time checks decided by the caller: (path, line) -> the value assumed
        self._assumed = set()
        self._steps = 0
        self._budget = MAX_STEPS
        self._depth = 0
        self._cache = {}
        self.decided_at = None  # the `return` that gave the last call's answer

    @property
    def asked_gpu(self) -> bool:
        """Whether the last evaluation read the GPU's capability (or anything computed from it)."""
        return CAPABILITY in self._assumed

    @property
    def assumed(self) -> set[str]:
        """The env defaults the last evaluation relied on (and INPUT, where it read the caller's input), without the
        GPU's marks."""
        return {m for m in self._assumed if m == INPUT or m[:1] != "\0"}

    # -- a call from the top ----------------------------------------------------------------------------------

    def call_method(self, cls: ClassRef, name: str, **kwargs: Any) -> Any:
        """`cls.name(**kwargs)` for a classmethod found through the MRO; Unknown when it cannot be decided."""
        found = self.modules.method(cls, name)
        if found is None:
            return Unknown((Reason(f"{cls.name}.{name} is not in the tree", cls.path, line(cls.node)),))
        owner, node = found
        return self.run(Function(owner.path, definition(node), ClassValue(cls), owner), [], kwargs)

    def call_function(self, path: str, name: str, **kwargs: Any) -> Any:
        index = self.modules.index(path)
        if index is None or name not in index.functions:
            return Unknown((Reason(f"{name} is not defined in {path}", path, 1),))
        return self.run(Function(path, definition(index.functions[name])), [], kwargs)

    def truth(self, value: Any) -> bool | Unknown:
        return truth(value)

    def run(self, fn: Function, args: list[Any], kwargs: dict[str, Any]) -> Any:
        """One evaluation from the top; `assumed` afterwards names the env defaults it relied on."""
        self._steps, self._budget = 0, MAX_STEPS
        self._assumed = set()
        try:
            return self._call(fn, args, kwargs)
        except Raised as raised:
            return Unknown((raised.reason,))
        except TooComplex as stop:
            return Unknown((stop.reason,))

    # -- statement by statement, for a walk that follows the path itself (attention/build.py) ---------------

    def enter(self, callee: Any, args: list[Marked], kwargs: dict[str, Marked]) -> Entered | None:
        """The scope a call of `callee` starts in (arguments bound, with their marks), or None if not source."""
        if not isinstance(callee, Function):
            return None
        scope = Scope(callee.path, owner=callee.owner, bound=callee.bound)
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
        except (Raised, TooComplex) as stopped:
            value = Unknown((stopped.reason,))
        return value, marks_of(self._assumed)

    def execute(self, stmt: tree_sitter.Node, scope: Scope) -> None:
        """A simple statement (an assignment, a call, an import) for its effect on the scope and on `self`.

        A raise or return inside a function it calls ends that call's effects only: which raises
        count is the caller's walk to decide, not this statement's.
        """
        self._steps, self._budget = 0, STEP_BUDGET
        self._assumed = set()
        with contextlib.suppress(Raised, TooComplex, Returned):
            self._statement(stmt, scope)
