"""Running a function of the source: binding its arguments, its statements in order, both ways of an undecided
`if`, and its result kept for the next call that binds the same values.

Its own module because it is the interpreter's control flow, where the three-valued logic meets the
source's shape: an `if` whose condition is Unknown takes the rest of the function along into each
branch and keeps an answer both agree on, and a call's cache key is what its body was seen to read.
Expressions (expressions.py) call back in here for a call of a source function.
"""

from __future__ import annotations

from typing import Any

import tree_sitter

from vllm_quant_mcp.knowledge.extract.engine.names import Names
from vllm_quant_mcp.knowledge.extract.engine.signals import Raised, Returned, TooComplex
from vllm_quant_mcp.knowledge.extract.engine.syntax import is_static, line, parameters, text
from vllm_quant_mcp.knowledge.extract.engine.values import (
    CAPABILITY,
    RAW,
    Builtin,
    Function,
    Obj,
    Reason,
    Scope,
    Unknown,
    answers_alike,
    arithmetic,
    copied,
    frozen,
    marks_of,
    merge,
    questions_of,
    same,
    truth,
    unknown,
)

__all__ = ["MAX_DEPTH", "Statements"]

MAX_DEPTH = 24
# The ROCm platform module's probes for the GPU's gfx name (amdsmi, then torch): answered from the GPU.
_ARCH_PROBES = frozenset({"_get_gcn_arch", "_query_gcn_arch_from_amdsmi"})


class Statements(Names):
    """Calls and statements; the counters and the per-interpreter cache are set by `Interpreter.__init__`."""

    forced: dict[tuple[str, int], Any]
    decided_at: tuple[str, int] | None
    _steps: int
    _budget: int
    _depth: int
    _cache: dict[tuple[Any, ...], tuple[Any, frozenset[str], int]]

    # -- calls --------------------------------------------------------------------------------------------

    def _call(self, fn: Function, args: list[Any], kwargs: dict[str, Any]) -> Any:
        name = fn.node.child_by_field_name("name")
        if self.platform.arch is not None and name is not None and text(name) in _ARCH_PROBES:
            self._assumed |= {CAPABILITY, RAW}
            return self.platform.arch
        if self._depth >= MAX_DEPTH:
            raise TooComplex(Reason("calls nest too deep to follow", fn.path, line(fn.node)))
        frame = Scope(fn.path, owner=fn.owner, bound=fn.bound)
        self._bind(fn, frame, args, kwargs)
        # Keyed on the arguments the function has been seen to read, not all it was given: checks called
        # with the whole selector configuration share one answer across the values they never read, and
        # the priority function called for every KV dtype answers once per dtype only where it looks at
        # the dtype. A result that never asked the platform for the GPU's capability is the same for every
        # GPU: it goes to the cache all interpreters of the tree share.
        fn_key = (self.platform.kind, fn.path, fn.node.start_byte, fn.bound)
        reads = self.shared.reads.get(fn_key, frozenset())
        key = (*fn_key, reads, frozen((n, frame.locals.get(n)) for n in sorted(reads)))
        cacheable = key[-1] is not None and not isinstance(fn.bound, Obj)
        cached = (self.shared.calls.get(key) or self._cache.get(key) or self._answered(key)) if cacheable else None
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
        except Returned as done:
            result, returned = done.value, done.line or returned
        finally:
            self._depth -= 1
            inner, self._assumed = self._assumed, outer | self._assumed
        read = reads | (frame.read & {name for name, _ in self._parameters(fn)})
        self.shared.reads[fn_key] = read
        key = (*fn_key, read, frozen((n, frame.locals.get(n)) for n in sorted(read)))
        if cacheable and key[-1] is not None:
            entry = (result, frozenset(inner), returned)
            if CAPABILITY not in inner:
                self.shared.calls[key] = entry
            else:
                self._cache[key] = entry
                asked = questions_of(marks_of(inner))
                if asked is not None and not isinstance(result, Builtin):
                    self.shared.by_gpu.setdefault(key, []).append((asked, entry))
        self.decided_at = (fn.path, returned)
        return result

    def _answered(self, key: tuple[Any, ...]) -> tuple[Any, frozenset[str], int] | None:
        """A result another GPU computed, where this GPU answers each of its capability questions alike: the
        experts' `_supports_current_device()` asks `is_device_capability_family(100)`, and SM100 and SM103 agree."""
        cap = self.platform.capability
        if cap is None:
            return None
        return next((entry for asked, entry in self.shared.by_gpu.get(key, ()) if answers_alike(asked, cap)), None)

    def _bind(self, fn: Function, frame: Scope, args: list[Any], kwargs: dict[str, Any]) -> None:
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
                frame.locals[name] = self._expr(default, Scope(fn.path))
            else:
                frame.locals[name] = unknown(f"argument {name} not given", fn.path, fn.node)

    def _parameters(self, fn: Function) -> list[tuple[str, tree_sitter.Node | None]]:
        """`syntax.parameters` of the function, read once per tree: every call binds them."""
        key = (fn.path, fn.node.start_byte)
        known = self.shared.params.get(key)
        if known is None:
            known = self.shared.params[key] = parameters(fn.node)
        return known

    # -- statements ---------------------------------------------------------------------------------------

    def _block(self, block: tree_sitter.Node, frame: Scope, tail: bool = False) -> None:
        self._run(list(block.named_children), frame, tail)

    def _run(self, statements: list[tree_sitter.Node], frame: Scope, tail: bool) -> None:
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

    def _statement(self, stmt: tree_sitter.Node, frame: Scope) -> None:
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
            raise Returned(self._expr(value, frame) if value is not None else None, line(stmt))
        elif kind == "raise_statement":
            raise Raised(Reason(f"raises: {text(stmt)[:160]}", frame.path, line(stmt)))
        elif kind == "import_from_statement":
            self._import(stmt, frame)
        elif kind in ("pass_statement", "comment", "assert_statement", "import_statement", "global_statement"):
            return
        elif kind == "for_statement":
            self._for(stmt, frame)
        elif kind == "function_definition" and (name := stmt.child_by_field_name("name")) is not None:
            frame.locals[text(name)] = Function(frame.path, stmt)  # a helper defined inside (MoE's _move_to_front)
        elif kind == "delete_statement":
            self._delete(stmt, frame)
        else:
            raise Raised(Reason(f"{kind} is beyond this reading of the source", frame.path, line(stmt)))

    def _delete(self, stmt: tree_sitter.Node, frame: Scope) -> None:
        """`del name` unbinds a local (`del compute_capability`: an argument the check does not use); `del
        obj.attr` leaves a known object without the attribute; other targets hold nothing this reading knows."""
        first = stmt.named_children[0] if stmt.named_children else None
        targets = first.named_children if first is not None and first.type == "expression_list" else stmt.named_children
        for target in targets:
            if target.type == "identifier":
                frame.locals.pop(text(target), None)
            elif target.type == "attribute" and (owner := target.child_by_field_name("object")) is not None:
                value, name = self._expr(owner, frame), target.child_by_field_name("attribute")
                if isinstance(value, Obj) and name is not None:
                    value.attrs.pop(text(name), None)

    def _tick(self, node: tree_sitter.Node, frame: Scope) -> None:
        self._steps += 1
        if self._steps > self._budget:
            raise TooComplex(Reason("too many steps to follow", frame.path, line(node)))

    def _assign(self, node: tree_sitter.Node, frame: Scope) -> None:
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if right is None or left is None:
            return
        outer, self._assumed = self._assumed, set()
        try:
            value = self._expr(right, frame)
        finally:
            marks, self._assumed = marks_of(self._assumed), outer | self._assumed
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
                    frame.locals[text(target)] = unknown("assigned from a value we cannot unpack", frame.path, node)

    def _set_attribute(self, target: tree_sitter.Node, value: Any, marks: frozenset[str], frame: Scope) -> None:
        """`obj.name = value` where obj is an Obj (self, in a constructor); anywhere else it changes no answer."""
        owner, name = target.child_by_field_name("object"), target.child_by_field_name("attribute")
        obj = self._expr(owner, frame) if owner is not None else None
        if isinstance(obj, Obj) and name is not None:
            obj.attrs[text(name)] = value
            obj.marks[text(name)] = marks

    def _augmented(self, node: tree_sitter.Node, frame: Scope) -> None:
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        operator = node.child_by_field_name("operator")
        if left is None or right is None or operator is None or left.type != "identifier":
            return
        current = frame.locals.get(text(left))
        value = self._expr(right, frame)
        frame.locals[text(left)] = arithmetic(text(operator).rstrip("="), current, value, frame.path, node)

    def _if(self, stmt: tree_sitter.Node, frame: Scope, after: list[tree_sitter.Node], tail: bool) -> None:
        self._branch(stmt, stmt.children_by_field_name("alternative"), frame, after, tail)

    def _branch(
        self,
        clause: tree_sitter.Node,
        alternatives: list[tree_sitter.Node],
        frame: Scope,
        after: list[tree_sitter.Node],
        tail: bool,
    ) -> None:
        """An `if`/`elif` clause: its consequence or what follows it, then `after`; both when undecided."""
        condition = clause.child_by_field_name("condition")
        test = truth(self._expr(condition, frame)) if condition is not None else False
        consequence = clause.child_by_field_name("consequence")
        then = [*(consequence.named_children if consequence is not None else []), *after]
        if isinstance(test, Unknown):
            self._both(test, then, alternatives, frame, after, tail)
        elif test:
            self._run(then, frame, tail)
        else:
            self._else(alternatives, frame, after, tail)

    def _else(
        self, alternatives: list[tree_sitter.Node], frame: Scope, after: list[tree_sitter.Node], tail: bool
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
        frame: Scope,
        after: list[tree_sitter.Node],
        tail: bool,
    ) -> None:
        """An undecided condition: run each way to its end on a copy; equal outcomes stand, others are Unknown."""
        outcomes: list[tuple[str, Any]] = []
        returned_at = 0  # where the first way that returns does: the line an agreed answer cites
        for branch_is_then in (True, False):
            branch = Scope(frame.path, copied(frame.locals), frame.owner, frame.bound, frame.read, frame.marks)
            try:
                if branch_is_then:
                    self._run(then, branch, tail)
                else:
                    self._else(alternatives, branch, after, tail)
                outcomes.append(("returned", None) if tail else ("fell through", branch.locals))
            except Returned as done:
                outcomes.append(("returned", done.value))
                returned_at = returned_at or done.line
            except Raised as raised:
                outcomes.append(("raised", raised.reason))
        (kind_a, a), (kind_b, b) = outcomes
        if kind_a == kind_b == "returned" and same(a, b):
            raise Returned(a, returned_at or (line(then[0]) if then else 0))
        if kind_a == kind_b == "fell through":
            for name in set(a) | set(b):
                agreed = same(a.get(name), b.get(name))
                frame.locals[name] = a[name] if agreed else merge(test, a.get(name), b.get(name))
            return
        raise Returned(merge(test, *(v for k, v in outcomes if k == "returned")))

    def _for(self, stmt: tree_sitter.Node, frame: Scope) -> None:
        target, iterable = stmt.child_by_field_name("left"), stmt.child_by_field_name("right")
        body = stmt.child_by_field_name("body")
        items = self._expr(iterable, frame) if iterable is not None else None
        unpacked = target is not None and target.type in ("pattern_list", "tuple_pattern")
        if target is None or body is None or not (target.type == "identifier" or unpacked):
            raise Raised(Reason("a loop over values the source computes at run time", frame.path, line(stmt)))
        if not isinstance(items, list | tuple) or (unpacked and not all(isinstance(i, tuple) for i in items)):
            raise Raised(Reason("a loop over values the source computes at run time", frame.path, line(stmt)))
        names = [text(n) for n in target.named_children] if unpacked else [text(target)]
        for item in items:
            for name, value in zip(names, item if unpacked else (item,), strict=False):  # `for module, attr in pairs`
                frame.locals[name] = value
            self._block(body, frame)

    def _import(self, stmt: tree_sitter.Node, frame: Scope) -> None:
        module = stmt.child_by_field_name("module_name")
        if module is None:
            return
        for name_node in stmt.children_by_field_name("name"):
            original = name_node.child_by_field_name("name") if name_node.type == "aliased_import" else name_node
            alias = name_node.child_by_field_name("alias") if name_node.type == "aliased_import" else name_node
            if original is not None and alias is not None:
                frame.locals[text(alias)] = self._imported(text(module), text(original), frame.path, stmt)


def _is_logging(node: tree_sitter.Node) -> bool:
    function = node.child_by_field_name("function") if node.type == "call" else None
    owner = function.child_by_field_name("object") if function is not None and function.type == "attribute" else None
    return owner is not None and text(owner) in ("logger", "logging", "warnings")
