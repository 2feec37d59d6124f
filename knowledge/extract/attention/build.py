"""Past backend selection: the raises the selected backend's builder and impl constructors reach for an input.

vLLM does not stop at picking a backend. It then builds the backend's metadata builder
(`get_builder_cls()`) for each KV cache group and its impl (`get_impl_cls()`) for each attention
layer, and either constructor may refuse what selection let through: at v0.23.0 FlashInfer's
builder raises for nvfp4 KV off SM100, after FlashInfer was selected on an H100. This walk follows
those two constructors statement by statement with the input bound (the KV dtype as
`vllm_config.cache_config.cache_dtype`, as the `kv_cache_dtype` argument and as the KV cache spec's
quant mode; the GPU as the interpreter's platform) and reduces each `raise` to reached, not reached,
or conditional on a run-time check, citing the line.

Bounded on purpose: the two constructors, and the methods they call on `self` (or `super()`) one
level deep. That is where a backend checks its configuration once, at start-up; deeper calls build
workspaces and kernel wrappers, and a walk into them would reach code that runs per batch.
A raise counts only if its guards read the input (the KV dtype or the GPU). A condition on its way
that the source leaves open and that reads neither (attention sinks, context parallelism, the
model's head counts) asks about the model or the run, alike for every KV dtype: it is taken not to
hold, as the selection assumes a plain model (no sinks, default configs). An open condition that
does read the input makes the raise conditional, citing that condition's line.
"""

from __future__ import annotations

from dataclasses import dataclass

import tree_sitter

from vllm_quant_mcp.knowledge.extract.engine import (
    CAPABILITY,
    INPUT,
    ClassRef,
    Entered,
    Interpreter,
    Marked,
    Modules,
    Obj,
    Unknown,
    class_ref,
)
from vllm_quant_mcp.knowledge.extract.engine.branches import State
from vllm_quant_mcp.knowledge.extract.engine.syntax import definition, if_clauses, line, message, text
from vllm_quant_mcp.knowledge.registry.matrix import BuildRaise

__all__ = ["Constructors"]

QUANT_MODES = "vllm/v1/kv_cache_interface.py"  # get_kv_quant_mode: the spec's quant mode for a KV dtype
MAX_STATEMENTS = 2_000  # statements walked per constructor, branches included


@dataclass(frozen=True)
class _Guard:
    """A condition on the way to a statement; `negated` when the way is its else side."""

    truth: bool | Unknown
    marks: frozenset[str]
    node: tree_sitter.Node
    path: str
    negated: bool = False


# What the scans of a body pass over: nested definitions (not run by the constructor) and leaves that hold
# no statement or call (names, numbers, comments: most of the nodes of a body).
_UNREAD = frozenset(
    {"function_definition", "class_definition", "identifier", "integer", "float", "true", "false", "none", "comment"}
)
_Under = tuple[set[str], bool]  # the names a statement assigns, and whether a raise or a call on self is in it
# A function read once: the names its calls on self pass, and its conditions and assignments as `_collect` gives them.
_Scanned = tuple[frozenset[str], list[tuple[set[str], set[str], bool]]]


class _Stop(Exception):
    """Control flow, not an error: the statement budget ran out (caught in this module, never leaves it)."""


class Constructors:
    """The constructor walks of one tree; what each class's walk needs to evaluate is worked out once,
    from each function read once (builders share their base class's methods)."""

    def __init__(self) -> None:
        self._relevant: dict[tuple[str, int], frozenset[str]] = {}
        self._scanned: dict[tuple[str, int], _Scanned] = {}
        self._matters: dict[tuple[str, int, int], bool] = {}

    def raises(
        self, interpreter: Interpreter, backend: ClassRef, kv: str, head_size: int
    ) -> tuple[list[BuildRaise], frozenset[str]]:
        """Raises the builder's and impl's constructors reach for `kv` on the interpreter's GPU, in source order;
        and what the conditions on the way read (CAPABILITY, INPUT): the answer holds for whatever they did not."""
        found, asked, _ = self._walk(interpreter, backend, kv, head_size)
        return found, asked

    def on_any_gpu(
        self, interpreter: Interpreter, backend: ClassRef, kv: str, head_size: int
    ) -> tuple[list[BuildRaise], frozenset[str]] | None:
        """With an interpreter bound to no GPU: `raises` for every GPU at once, where one walk can tell; else None.

        Every question about the GPU is then open (unknown, and marked as the GPU's), so the walk takes
        each way some GPU could take, and a raise that any GPU reaches is reached here too, at worst as
        conditional. A walk that asked nothing about the GPU answers every GPU alike; one that asked and
        reached no raise says no GPU reaches one. Otherwise (a raise some GPU may reach, a walk cut short, a
        GPU read before the walk starts: which class is built, its arguments) the caller walks per GPU.
        """
        found, asked, settled = self._walk(interpreter, backend, kv, head_size)
        return (found, asked) if settled and (CAPABILITY not in asked or not found) else None

    def _walk(
        self, interpreter: Interpreter, backend: ClassRef, kv: str, head_size: int
    ) -> tuple[list[BuildRaise], frozenset[str], bool]:
        """The raises, what the conditions read, and whether the walk ran to its end with no GPU read before it."""
        found: list[BuildRaise] = []
        asked: set[str] = set()
        settled = True
        for getter, arguments in (("get_builder_cls", _builder_arguments), ("get_impl_cls", _impl_arguments)):
            built = class_ref(interpreter.call_method(backend, getter))
            settled = settled and not interpreter.asked_gpu
            if built is None:
                continue
            this = Obj("self", built)
            entered = interpreter.enter(interpreter.member(this, "__init__"), [], arguments(interpreter, kv, head_size))
            settled = settled and not interpreter.asked_gpu  # the quant mode, and the defaults `enter` bound
            if entered is None:
                continue
            key = (built.path, built.node.start_byte)
            if key not in self._relevant:
                self._relevant[key] = self._needs(interpreter.modules, built, entered)
            walk = _Walk(interpreter, this, self._relevant[key], self._matters)
            try:
                walk.block(entered, entered.body, [], depth=0)
            except _Stop:  # what was found so far stands; the rest is left unread
                settled = False
            found += [r for r in walk.found if r not in found]
            asked |= walk.asked
        return found, frozenset(asked), settled

    def _needs(self, modules: Modules, cls: ClassRef, constructor: Entered) -> frozenset[str]:
        """The names a walk of `cls`'s constructor must compute: what the conditions on the way to a raise read.

        Read from the constructor and the methods of the class it calls on self or super(), by name
        (a local and an attribute of self alike), to a fixpoint: a condition over a raise or a call on
        self, what an assignment to a needed name reads, and the condition over such an assignment.
        Anything else (a workspace, a wrapper, a buffer, a flag only a kernel call reads) cannot change
        which raise is reached, and is not evaluated.
        """
        body = constructor.body
        functions = [(constructor.scope.path, body)]
        called = {n for stmt in body for n in _self_calls(stmt)}
        todo, seen = [cls], 0
        while todo and seen < 8:
            current, seen = todo.pop(0), seen + 1
            for name in called:
                found = modules.method(current, name, depth=0)
                if found is not None:
                    functions.append((found[0].path, _function_body(found[1])))
            todo += modules.bases(current)
        needed: set[str] = set()
        # (what it reads, the names it assigns under it, whether a raise or a call on self is under it)
        items: list[tuple[set[str], set[str], bool]] = []
        for path, statements in functions:
            if not statements:
                continue
            key = (path, statements[0].start_byte)
            if key not in self._scanned:
                arguments: set[str] = set()
                scanned: list[tuple[set[str], set[str], bool]] = []
                for stmt in statements:
                    _collect(stmt, arguments, scanned)
                self._scanned[key] = (frozenset(arguments), scanned)
            arguments_read, scanned_items = self._scanned[key]
            needed |= arguments_read
            items += scanned_items
        grown = True
        while grown:
            grown = False
            for reads, assigns, decisive in items:
                if (decisive or assigns & needed) and not reads <= needed:
                    needed |= reads
                    grown = True
        return frozenset(needed)


def _collect(node: tree_sitter.Node, needed: set[str], items: list[tuple[set[str], set[str], bool]]) -> _Under:
    """Each condition and assignment of a body as (reads, assigns, decisive), in one pass; call arguments to needed.

    Returns what `node` holds (the names it assigns, whether a raise or a call on self is in it), so a
    compound statement learns what is under it from its children, without reading them again.
    """
    assigns: set[str] = set()
    decisive = False
    for child in node.named_children:
        if child.type not in _UNREAD:
            under, inside = _collect(child, needed, items)
            assigns |= under
            decisive = decisive or inside
    kind = node.type
    calls = _self_calls(node) if kind in ("call", "expression_statement") else set()  # nothing else is such a call
    if kind in ("if_statement", "elif_clause", "while_statement", "for_statement"):
        head = node.child_by_field_name("right" if kind == "for_statement" else "condition")
        if head is not None:
            items.append((_names(head), set(assigns), decisive))
    elif kind == "assignment":
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is not None and right is not None:
            items.append((_names(right), _targets(left), False))
        if left is not None:
            assigns |= _targets(left)
    elif kind == "call" and calls:
        arguments = node.child_by_field_name("arguments")
        if arguments is not None:
            needed |= _names(arguments)
    return assigns, decisive or kind == "raise_statement" or bool(calls)


def _targets(left: tree_sitter.Node) -> set[str]:
    if left.type == "attribute":
        name = left.child_by_field_name("attribute")
        return {text(name)} if name is not None else set()
    return _names(left)


def _names(node: tree_sitter.Node) -> set[str]:
    if node.type == "identifier":
        return {text(node)}
    found: set[str] = set()
    for child in node.named_children:
        found |= _names(child)
    return found


def _self_calls(node: tree_sitter.Node) -> set[str]:
    """`NAME` of each `self.NAME(...)` / `super().NAME(...)` call directly in this statement or call."""
    call = node.named_children[0] if node.type == "expression_statement" and node.named_children else node
    function = call.child_by_field_name("function") if call.type == "call" else None
    if function is None or function.type != "attribute":
        return set()
    owner, name = function.child_by_field_name("object"), function.child_by_field_name("attribute")
    if owner is None or name is None or text(owner) not in ("self", "super()"):
        return set()
    return {text(name)}


def _function_body(node: tree_sitter.Node) -> list[tree_sitter.Node]:
    body = definition(node).child_by_field_name("body")
    return list(body.named_children) if body is not None else []


def _builder_arguments(interpreter: Interpreter, kv: str, head_size: int) -> dict[str, Marked]:
    mode = interpreter.call_function(QUANT_MODES, "get_kv_quant_mode", kv_cache_dtype=kv)
    spec = Obj("kv_cache_spec", attrs={"head_size": head_size})
    if not isinstance(mode, Unknown):
        spec.attrs["kv_quant_mode"] = mode
        spec.marks["kv_quant_mode"] = frozenset({INPUT})
    cache = Obj("cache_config", attrs={"cache_dtype": kv}, marks={"cache_dtype": frozenset({INPUT})})
    config = Obj("vllm_config", attrs={"cache_config": cache})
    return {"kv_cache_spec": (spec, frozenset()), "vllm_config": (config, frozenset())}


def _impl_arguments(interpreter: Interpreter, kv: str, head_size: int) -> dict[str, Marked]:
    return {"kv_cache_dtype": (kv, frozenset({INPUT})), "head_size": (head_size, frozenset())}


class _Walk:
    def __init__(
        self, interpreter: Interpreter, this: Obj, relevant: frozenset[str], matters: dict[tuple[str, int, int], bool]
    ) -> None:
        self.interpreter = interpreter
        self.this = this
        self.relevant = relevant
        self.matters = matters  # per compound statement: whether it holds a raise, a self call or a needed assignment
        self.found: list[BuildRaise] = []
        self.steps = 0
        self.asked: set[str] = set()  # what the conditions walked read: the GPU, the input (else alike for all)

    def block(self, at: Entered, statements: list[tree_sitter.Node], guards: list[_Guard], depth: int) -> bool:
        """Walks statements in order; False when every path through them ends in a raise or return."""
        for stmt in statements:
            self.steps += 1
            if self.steps > MAX_STATEMENTS:
                raise _Stop
            kind = stmt.type
            if kind == "raise_statement":
                self._raised(at, stmt, guards)
                return False
            if kind == "return_statement":
                return False
            if kind in _COMPOUND and not self._matters(at.scope.path, stmt):
                continue
            if kind == "if_statement":
                if not self._if(at, stmt, guards, depth):
                    return False
            elif kind in ("try_statement", "with_statement"):
                body = stmt.child_by_field_name("body")
                if body is not None and not self.block(at, list(body.named_children), guards, depth):
                    return False
            elif kind in ("for_statement", "while_statement"):
                self._loop(at, stmt, guards, depth)
            elif not self._call_on_self(at, stmt, guards, depth) and self._needed(stmt):
                self.interpreter.execute(stmt, at.scope)
        return True

    def _matters(self, path: str, stmt: tree_sitter.Node) -> bool:
        """Whether walking a compound statement can find a raise or change what a condition reads."""
        key = (path, stmt.start_byte, id(self.relevant))
        if key not in self.matters:
            self.matters[key] = self._holds_needed(stmt)
        return self.matters[key]

    def _holds_needed(self, node: tree_sitter.Node) -> bool:
        if node.type in ("raise_statement", "import_from_statement") or _self_calls(node):
            return True
        if node.type == "expression_statement" and self._needed(node):
            return True
        return any(self._holds_needed(child) for child in node.named_children if child.type not in _UNREAD)

    def _asked(self, marks: frozenset[str]) -> None:
        self.asked |= marks

    def _needed(self, stmt: tree_sitter.Node) -> bool:
        """An import, or an assignment to a name some condition reads (see `_relevant`); nothing else matters."""
        if stmt.type == "import_from_statement":
            return True
        inner = stmt.named_children[0] if stmt.type == "expression_statement" and stmt.named_children else None
        if inner is None or inner.type != "assignment":
            return False
        left = inner.child_by_field_name("left")
        if left is None:
            return False
        if left.type == "attribute":
            name = left.child_by_field_name("attribute")
            return name is not None and text(name) in self.relevant
        return bool(_names(left) & self.relevant)

    def _if(self, at: Entered, stmt: tree_sitter.Node, guards: list[_Guard], depth: int) -> bool:
        """Each clause whose condition may hold is walked on its own copy of the state; what differs is unknown."""
        clauses = if_clauses(stmt)
        before = State.of(at.scope, self.this)
        after: list[State] = []
        earlier: list[_Guard] = []  # the else sides of earlier clauses: held, or left open
        for condition, body in clauses:
            path = [*guards, *earlier]
            truth: bool | Unknown = True
            if condition is not None:
                truth, atoms = self._condition(at, condition)
                marks = frozenset().union(*(a.marks for a in atoms))
                if truth is False:  # the way on passes its else side: a guard too, holding
                    earlier.append(_Guard(True, marks, condition, at.scope.path, negated=True))
                    continue
                path += atoms
            before.restore(at.scope, self.this)
            statements = list(body.named_children) if body is not None else []
            if self.block(at, statements, path, depth):
                before.taint(at.scope, self.this, frozenset().union(*(g.marks for g in path[len(guards) :])))
                after.append(State.of(at.scope, self.this))
            if truth is True:
                break
            if condition is not None:
                earlier.append(_Guard(truth, marks, condition, at.scope.path, negated=True))
        if not after:
            return False
        State.join(at.scope, self.this, after)
        return True

    def _condition(self, at: Entered, condition: tree_sitter.Node) -> tuple[bool | Unknown, list[_Guard]]:
        """A condition's truth, `a and b` part by part, so a part about the input is told from one about the model.

        Parts are read left to right until one is false (the whole is) or open without reading the
        input or GPU: a raise under it is the model's business whatever the rest says (module docstring).
        """
        atoms: list[_Guard] = []
        for part in _conjuncts(condition):
            value, marks = self.interpreter.evaluate(part, at.scope)
            self._asked(marks)
            truth = self.interpreter.truth(value)
            atoms.append(_Guard(truth, marks, part, at.scope.path))
            if truth is False:
                return False, atoms
            if isinstance(truth, Unknown) and not marks:
                break
        opened = [a.truth for a in atoms if isinstance(a.truth, Unknown)]
        return (opened[0] if opened else True), atoms

    def _loop(self, at: Entered, stmt: tree_sitter.Node, guards: list[_Guard], depth: int) -> None:
        """A loop body may run or not: walked once, under the loop as an open guard, its changes made unknown."""
        head = stmt.child_by_field_name("right") or stmt.child_by_field_name("condition")
        marks = self.interpreter.evaluate(head, at.scope)[1] if head is not None else frozenset()
        target = stmt.child_by_field_name("left")
        opened = Unknown(())
        if target is not None and target.type == "identifier":
            at.scope.locals[text(target)] = opened
        before = State.of(at.scope, self.this)
        body = stmt.child_by_field_name("body")
        self.block(
            at,
            list(body.named_children) if body is not None else [],
            [*guards, _Guard(opened, marks, stmt, at.scope.path)],
            depth,
        )
        ran = State.of(at.scope, self.this)
        before.restore(at.scope, self.this)
        State.join(at.scope, self.this, [before, ran])

    def _call_on_self(self, at: Entered, stmt: tree_sitter.Node, guards: list[_Guard], depth: int) -> bool:
        """`self.check(...)` or `super().__init__(...)` from the constructor: walked one level deep."""
        call = stmt.named_children[0] if stmt.type == "expression_statement" and stmt.named_children else None
        if depth > 0 or call is None or call.type != "call":
            return False
        function, arguments = call.child_by_field_name("function"), call.child_by_field_name("arguments")
        if function is None or function.type != "attribute":
            return False
        owner = function.child_by_field_name("object")
        if owner is not None and owner.type == "identifier" and text(owner) not in at.scope.locals:
            return False  # a module-level name (a logger, torch): never the object under construction
        callee, _ = self.interpreter.evaluate(function, at.scope)
        args: list[Marked] = []
        kwargs: dict[str, Marked] = {}
        for arg in arguments.named_children if arguments is not None else []:
            if arg.type == "keyword_argument":
                name, value = arg.child_by_field_name("name"), arg.child_by_field_name("value")
                if name is not None and value is not None:
                    kwargs[text(name)] = self.interpreter.evaluate(value, at.scope)
            elif arg.type in ("list_splat", "dictionary_splat"):
                return False
            elif arg.type != "comment":
                args.append(self.interpreter.evaluate(arg, at.scope))
        inner = self.interpreter.enter(callee, args, kwargs)
        if inner is None or inner.bound is not self.this:
            return False
        self.block(inner, inner.body, guards, depth + 1)
        return True

    def _raised(self, at: Entered, stmt: tree_sitter.Node, guards: list[_Guard]) -> None:
        if not any(g.marks for g in guards):
            return  # nothing on its way reads the KV dtype or the GPU: not this input's refusal
        if any(isinstance(g.truth, Unknown) and not g.marks and not g.negated for g in guards):
            return  # it needs a feature of the model or run the question does not ask for (module docstring)
        open_guards = [g for g in guards if isinstance(g.truth, Unknown) and g.marks]
        message = _message(stmt)
        where = f"{at.where} raises {message}"
        if not open_guards:
            self.found.append(BuildRaise(verdict="no", why=where, path=at.scope.path, line=line(stmt)))
            return
        guard = open_guards[0]
        condition = " ".join(text(guard.node).split())[:100]
        why = f"{where} (line {line(stmt)}) if {condition} holds at run time"
        self.found.append(BuildRaise(verdict="conditional", why=why, path=guard.path, line=line(guard.node)))


_COMPOUND = frozenset({"if_statement", "try_statement", "with_statement", "for_statement", "while_statement"})


def _conjuncts(node: tree_sitter.Node) -> list[tree_sitter.Node]:
    while node.type == "parenthesized_expression" and node.named_children:
        node = node.named_children[0]
    operator = node.child_by_field_name("operator")
    if node.type == "boolean_operator" and operator is not None and text(operator) == "and":
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is not None and right is not None:
            return [*_conjuncts(left), *_conjuncts(right)]
    return [node]


def _message(stmt: tree_sitter.Node) -> str:
    """`ValueError: --kv-cache-dtype nvfp4 requires sm100f, ...`: the exception and its message as written."""
    raised = stmt.named_children[0] if stmt.named_children else None
    if raised is None or raised.type != "call":
        return " ".join(text(stmt).split())[:160]
    function, arguments = raised.child_by_field_name("function"), raised.child_by_field_name("arguments")
    kind = text(function) if function is not None else "an exception"
    first = arguments.named_children[0] if arguments is not None and arguments.named_children else None
    return kind if first is None else f"{kind}: {message(first)[:160]}"
