"""`<Config>.from_config(quantization_config)` and the constructor it calls, reduced to guards over the dict.

A checkpoint with a quantization config reaches `quant_cls.from_config(config)`; from_config reads keys
(`cls.get_from_keys(config, [...])`, `get_from_keys_or`, `config.get`, `config[...]`), calls the
constructor, and both raise on contents they refuse (GPTQ's bits, AWQ's 4-bit only, Fp8Config's
activation scheme, ModelOpt's quant_algo). The registry is bundled and must answer for any checkpoint
offline, so the code is not evaluated here against one dict: it is walked once per class, symbolically,
with the dict a free value, and every raise is kept with the condition that reaches it as a `Term` tree
over the dict's keys (path conditions of the ifs around it, assignments followed through branches as
`if` terms, helpers of vLLM inlined). knowledge/support/config_replay.py evaluates those terms against a
given dict in three values. What this walk cannot read (a platform query, a loop body, a call it cannot
resolve) becomes an `unknown` term carrying the code and its path:line, so a guard that needs it is
undecided there, never guessed. Calls it cannot resolve (torch, third-party code) are taken not to raise.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import tree_sitter

from vllm_quant_mcp.knowledge.extract.engine import ClassRef, Modules
from vllm_quant_mcp.knowledge.extract.engine.syntax import (
    NotLiteral,
    definition,
    if_clauses,
    is_static,
    line,
    literal,
    message,
    parameters,
    text,
)
from vllm_quant_mcp.knowledge.extract.loading.config_args import find_raise
from vllm_quant_mcp.knowledge.registry.loading import ConfigGuard, ConfigReplay, Raise, Term
from vllm_quant_mcp.knowledge.sources.tree import SourceTree

__all__ = ["JsonSizes", "replay_from_config"]

BASE_CONFIG = "vllm/model_executor/layers/quantization/base_config.py"
_MAX_DEPTH = 5
_MAX_GUARDS = 200
_TRUE, _FALSE, _NONE = Term(op="const", value=True), Term(op="const", value=False), Term(op="const", value=None)
_METHODS = {"upper", "lower", "strip"}
_NEXT, _RAISED = Term(op="next"), Term(op="raised")
_MAX_TERM = 4000


@dataclass(frozen=True)
class _Class:
    """`cls` (or the class of `self`) inside a walked method: the class from_config was called on."""

    ref: ClassRef


@dataclass(frozen=True)
class _Self:
    ref: ClassRef


@dataclass(frozen=True)
class _Function:
    path: str
    node: tree_sitter.Node


_Value = Term | _Class | _Self | _Function


@dataclass
class _Frame:
    path: str
    env: dict[str, _Value]
    cls: ClassRef | None


def replay_from_config(
    tree: SourceTree, modules: Modules, cls: ClassRef, passes_hf_config: bool = False
) -> ConfigReplay | None:
    """The guards of `cls.from_config(config)` and of the constructor it calls; None without a from_config.

    `passes_hf_config`: _verify_quantization gives the probe the model's config (`hf_config=self.hf_config`);
    otherwise the probe sees its default, None."""
    found = modules.method(cls, "from_config")
    if found is None:
        return None
    owner, node = found
    walker = _Walker(tree, modules)
    walker.call(owner.path, node, _Class(cls), {"config": Term(op="config")}, _TRUE)
    override = modules.method(cls, "override_quantization_method")
    override_term = None
    if override is not None:
        # Its own raises are not the checkpoint's refusals; only the method name it answers is kept.
        quiet = _Walker(tree, modules)
        override_term = quiet.call(
            override[0].path,
            override[1],
            _Class(cls),
            {
                "hf_quant_cfg": Term(op="config"),
                "user_quant": Term(op="user"),
                "hf_config": Term(op="model") if passes_hf_config else _NONE,
            },
            _TRUE,
        )
    return ConfigReplay(
        config_class=cls.name,
        provenance=tree.provenance(owner.path, line(definition(node))),
        guards=walker.guards,
        scheme=walker.scheme or {},
        override=override_term,
    )


class _Walker:
    def __init__(self, tree: SourceTree, modules: Modules) -> None:
        self.tree, self.modules = tree, modules
        self.guards: list[ConfigGuard] = []
        self.scheme: dict[str, Term] | None = None
        self.depth = 0
        self._missing = _base_raise(tree, "Cannot find any of")
        self._sizes = JsonSizes()

    # Calls -------------------------------------------------------------------------------------------
    def call(self, path: str, node: tree_sitter.Node, bound: _Value | None, given: dict[str, _Value], pc: Term) -> Term:
        """Walk one function with its parameters bound; its return value as a term (an `if` over its returns)."""
        function = definition(node)
        params = parameters(node)
        env: dict[str, _Value] = {}
        names = [n for n, _ in params]
        if bound is not None and names and not is_static(node):
            env[names[0]] = bound
            params = params[1:]
        for name, default in params:
            if name in given:
                env[name] = given[name]
            elif default is not None:
                env[name] = self.expr(default, _Frame(path, {}, None), pc)
            else:
                env[name] = _unknown(self.tree, path, default or function, f"the argument {name}")
        frame = _Frame(path, env, bound.ref if isinstance(bound, (_Class, _Self)) else None)
        body = function.child_by_field_name("body")
        if self.depth >= _MAX_DEPTH or body is None:
            return _unknown(self.tree, path, function, "a call nested too deep to follow")
        self.depth += 1
        try:
            _, result = self.block(body, frame, pc)
        finally:
            self.depth -= 1
        return _then(result, _NONE, self._sizes)

    def _bind(
        self, function: tree_sitter.Node, arguments: tree_sitter.Node | None, frame: _Frame, pc: Term, skip_first: bool
    ) -> dict[str, _Value]:
        names = [n for n, _ in parameters(function)]
        if skip_first and not is_static(function):
            names = names[1:]
        given: dict[str, _Value] = {}
        position = 0
        for arg in arguments.named_children if arguments is not None else []:
            if arg.type == "keyword_argument":
                key, value = arg.child_by_field_name("name"), arg.child_by_field_name("value")
                if key is not None and value is not None:
                    given[text(key)] = self.expr(value, frame, pc)
            elif arg.type in ("list_splat", "dictionary_splat"):
                continue
            elif position < len(names):
                given[names[position]] = self.expr(arg, frame, pc)
                position += 1
        return given

    # Statements --------------------------------------------------------------------------------------
    def block(self, block: tree_sitter.Node, frame: _Frame, pc: Term) -> tuple[Term, Term]:
        """Walk statements under path condition `pc`: the condition under which control falls off the end, and
        the block's outcome as a term over the *local* conditions of its ifs (`next` where it falls through,
        `raised` where it raises), so a return value does not carry the conditions of earlier exits."""
        outcomes: list[Term] = []
        for stmt in block.named_children:
            if _is_false(pc) or len(self.guards) >= _MAX_GUARDS:
                break
            pc, outcome = self.statement(stmt, frame, pc)
            outcomes.append(outcome)
        result = _NEXT
        for outcome in reversed(outcomes):
            result = _then(outcome, result, self._sizes)
        return pc, result

    def statement(self, stmt: tree_sitter.Node, frame: _Frame, pc: Term) -> tuple[Term, Term]:
        kind = stmt.type
        if kind == "expression_statement" and stmt.named_children:
            expr = stmt.named_children[0]
            if expr.type == "assignment":
                self._assign(expr, frame, pc)
            elif expr.type == "augmented_assignment":
                left = expr.child_by_field_name("left")
                if left is not None:
                    frame.env[text(left)] = _unknown(self.tree, frame.path, expr, text(expr))
            else:
                self.expr(expr, frame, pc)
            return pc, _NEXT
        if kind == "if_statement":
            return self._if(stmt, frame, pc)
        if kind == "raise_statement":
            self._raise(stmt, frame, pc)
            return _FALSE, _RAISED
        if kind == "return_statement":
            value = self._term(stmt.named_children[0], frame, pc) if stmt.named_children else _NONE
            return _FALSE, value
        if kind in ("for_statement", "while_statement", "try_statement", "with_statement"):
            return self._opaque(stmt, frame, pc)
        return pc, _NEXT

    def _assign(self, expr: tree_sitter.Node, frame: _Frame, pc: Term) -> None:
        left, right = expr.child_by_field_name("left"), expr.child_by_field_name("right")
        if left is None or right is None:
            return
        value = self.expr(right, frame, pc)
        if left.type in ("identifier", "attribute"):
            frame.env[text(left)] = value
        else:
            for name in _names(left):
                frame.env[name] = _unknown(self.tree, frame.path, expr, text(expr))

    def _if(self, stmt: tree_sitter.Node, frame: _Frame, pc: Term) -> tuple[Term, Term]:
        clauses = if_clauses(stmt)
        rest = _TRUE  # none of the earlier clauses held
        branches: list[tuple[Term, Term, dict[str, _Value]]] = []
        outcomes: list[tuple[Term, Term]] = []
        for condition, body in clauses:
            held = _truthy(self._term(condition, frame, _and(pc, rest))) if condition is not None else _TRUE
            local = _and(rest, held)
            sub = _Frame(frame.path, dict(frame.env), frame.cls)
            out, outcome = self.block(body, sub, _and(pc, local)) if body is not None else (_and(pc, local), _NEXT)
            outcomes.append((held, outcome))
            if not _is_false(out):
                branches.append((local, out, sub.env))
            rest = _and(rest, _not(held))
            if _is_false(rest):
                break
        result = _NEXT
        for held, outcome in reversed(outcomes):
            result = _if(held, outcome, result)
        after = _FALSE
        for _, out, _ in branches:
            after = _or(after, out)
        if len(branches) == len(clauses) and all(out == _and(pc, local) for local, out, _ in branches):
            after = pc  # no clause raised or returned: control goes on as it came
        names = {n for _, _, env in branches for n in env}
        for name in names:
            merged: Term | None = None
            for local, _, env in reversed(branches):
                value = env.get(name)
                term = value if isinstance(value, Term) else None
                if term is None:
                    merged = None if value is not None else _unknown(self.tree, frame.path, stmt, f"`{name}`")
                    break
                merged = term if merged is None else _if(local, term, merged)
            if merged is None:
                first = branches[0][2].get(name)
                if first is not None and all(env.get(name) == first for _, _, env in branches):
                    frame.env[name] = first
                continue
            frame.env[name] = merged
        return after, result

    def _opaque(self, stmt: tree_sitter.Node, frame: _Frame, pc: Term) -> tuple[Term, Term]:
        """A loop, try or with: its body runs under a condition this walk does not decide (once, or not at
        all, or caught), so its raises are undecided and what it assigns is unknown afterwards."""
        undecided = _unknown(self.tree, frame.path, stmt, " ".join(text(stmt).split("\n")[0].split()))
        if stmt.type == "with_statement":
            body = stmt.child_by_field_name("body")
            return self.block(body, frame, pc) if body is not None else (pc, _NEXT)
        if stmt.type == "for_statement":
            # A loop over an empty value runs no body: its raises are not taken.
            over = stmt.child_by_field_name("right")
            if over is not None:
                undecided = _and(_truthy(self._term(over, frame, pc)), undecided)
        sub = _Frame(frame.path, dict(frame.env), frame.cls)
        exits = False
        for part in stmt.named_children:
            blocks = [part] if part.type == "block" else []
            if part.type in ("except_clause", "else_clause", "finally_clause"):
                blocks = [inner for inner in part.named_children if inner.type == "block"]
            for inner in blocks:
                _, outcome = self.block(inner, sub, _and(pc, undecided))
                exits = exits or outcome != _NEXT
        for name, value in sub.env.items():
            if frame.env.get(name) != value:
                frame.env[name] = undecided
        # A return or raise inside: whether the statement exits, and with what, is undecided.
        return pc, (_if(undecided, undecided, _NEXT) if exits else _NEXT)

    def _raise(self, stmt: tree_sitter.Node, frame: _Frame, pc: Term) -> None:
        call = stmt.named_children[0] if stmt.named_children else None
        error, said, fills = "Exception", " ".join(text(stmt).split()), {}
        if call is not None and call.type == "call":
            error = text(call.child_by_field_name("function") or call)
            args = call.child_by_field_name("arguments")
            first = args.named_children[0] if args is not None and args.named_children else None
            if first is not None and first.type in ("string", "concatenated_string"):
                said = message(first)
                fills = self._fills(first, frame, pc)
        raised = Raise(error=error, message=said, provenance=self.tree.provenance(frame.path, line(stmt)))
        self.guards.append(ConfigGuard(when=pc, raised=raised, fills=fills))

    def _fills(self, string: tree_sitter.Node, frame: _Frame, pc: Term) -> dict[str, Term]:
        fills: dict[str, Term] = {}
        stack = [string]
        while stack:
            node = stack.pop()
            if node.type == "interpolation":
                inner = node.named_children[0] if node.named_children else None
                value = self.expr(inner, frame, pc) if inner is not None else None
                if isinstance(value, Term) and value.op != "unknown":
                    fills[" ".join(text(node).split())] = value
            else:
                stack.extend(node.named_children)
        return fills

    # Expressions -------------------------------------------------------------------------------------
    def expr(self, node: tree_sitter.Node, frame: _Frame, pc: Term) -> _Value:
        kind = node.type
        if kind in ("integer", "float", "true", "false", "none", "unary_operator") or (
            kind == "string" and not _is_f(node)
        ):
            return _const(node) or _unknown(self.tree, frame.path, node, text(node))
        if kind == "parenthesized_expression" and node.named_children:
            return self.expr(node.named_children[0], frame, pc)
        if kind == "identifier":
            return self._name(text(node), node, frame, pc)
        if kind == "attribute":
            return self._attribute(node, frame, pc)
        if kind == "subscript":
            return self._subscript(node, frame, pc)
        if kind == "call":
            return self._call(node, frame, pc)
        if kind == "comparison_operator":
            operands = node.named_children
            ops = " ".join(text(c) for c in node.children if not c.is_named)
            if len(operands) == 2:
                return _compare(ops, self._term(operands[0], frame, pc), self._term(operands[1], frame, pc))
        if kind == "boolean_operator":
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            op = text(node.child_by_field_name("operator") or node)
            if left is not None and right is not None:
                return Term(op=op, args=[self._term(left, frame, pc), self._term(right, frame, pc)])
        if kind == "not_operator":
            arg = node.child_by_field_name("argument")
            if arg is not None:
                return _not(_truthy(self._term(arg, frame, pc)))
        if kind == "conditional_expression" and len(node.named_children) == 3:
            then, condition, other = (self._term(c, frame, pc) for c in node.named_children)
            return _if(_truthy(condition), then, other)
        if kind in ("tuple", "list", "set"):
            return self._sequence(node, frame, pc)
        if kind in ("generator_expression", "list_comprehension", "set_comprehension"):
            return self._comprehension(node, frame, pc)
        if kind == "dictionary":
            return self._dictionary(node, frame)
        return _unknown(self.tree, frame.path, node, text(node))

    def _term(self, node: tree_sitter.Node, frame: _Frame, pc: Term) -> Term:
        value = self.expr(node, frame, pc)
        return value if isinstance(value, Term) else _unknown(self.tree, frame.path, node, text(node))

    def _name(self, name: str, node: tree_sitter.Node, frame: _Frame, pc: Term) -> _Value:
        if name in frame.env:
            return frame.env[name]
        return self._global(name, frame.path, node) or _unknown(self.tree, frame.path, node, name)

    def _global(self, name: str, path: str, node: tree_sitter.Node, hops: int = 3) -> _Value | None:
        index = self.modules.index(path)
        if index is None:
            return None
        if name in index.functions:
            return _Function(path, index.functions[name])
        rhs = index.assignment(name)
        if rhs is not None:
            return self.expr(rhs, _Frame(path, {}, None), _TRUE)
        target = self.modules.imported(index, name) if hops > 0 else None
        return self._global(target[1], target[0], node, hops - 1) if target is not None else None

    def _attribute(self, node: tree_sitter.Node, frame: _Frame, pc: Term) -> _Value:
        obj, attr = node.child_by_field_name("object"), node.child_by_field_name("attribute")
        if obj is None or attr is None:
            return _unknown(self.tree, frame.path, node, text(node))
        spelled = text(node)
        if spelled in frame.env:
            return frame.env[spelled]
        base = self.expr(obj, frame, pc)
        if isinstance(base, (_Class, _Self)):
            if isinstance(base, _Self) and f"self.{text(attr)}" in frame.env:
                return frame.env[f"self.{text(attr)}"]
            found = self._class_attribute(base.ref, text(attr))
            if found is not None:
                return found
        return _unknown(self.tree, frame.path, node, spelled)

    def _class_attribute(self, cls: ClassRef, name: str, depth: int = 4) -> _Value | None:
        body = definition(cls.node).child_by_field_name("body")
        for child in body.named_children if body is not None else []:
            stmt = child.named_children[0] if child.type == "expression_statement" and child.named_children else None
            if stmt is not None and stmt.type == "assignment":
                left, right = stmt.child_by_field_name("left"), stmt.child_by_field_name("right")
                if left is not None and right is not None and text(left) == name:
                    return self.expr(right, _Frame(cls.path, {}, cls), _TRUE)
        if self.modules.method(cls, name) is not None:
            return None
        for base in self.modules.bases(cls) if depth > 0 else []:
            found = self._class_attribute(base, name, depth - 1)
            if found is not None:
                return found
        return None

    def _subscript(self, node: tree_sitter.Node, frame: _Frame, pc: Term) -> _Value:
        value, key = node.child_by_field_name("value"), node.child_by_field_name("subscript")
        base = self.expr(value, frame, pc) if value is not None else None
        index = _const(key) if key is not None else None
        if isinstance(base, Term) and _from_config(base) and index is not None and isinstance(index.value, str):
            missing = _not(Term(op="has", value=index.value, args=[base]))
            raised = Raise(
                error="KeyError", message=repr(index.value), provenance=self.tree.provenance(frame.path, line(node))
            )
            self.guards.append(ConfigGuard(when=_and(pc, missing), raised=raised))
            return Term(op="get", value=[index.value], args=[base])
        return _unknown(self.tree, frame.path, node, text(node))

    def _call(self, node: tree_sitter.Node, frame: _Frame, pc: Term) -> _Value:
        fn = node.child_by_field_name("function")
        arguments = node.child_by_field_name("arguments")
        # A keyword given by name to get_from_keys_or/get (`default={}`) reads as its value here.
        args = [
            (a.child_by_field_name("value") or a) if a.type == "keyword_argument" else a
            for a in (arguments.named_children if arguments is not None else [])
        ]
        if arguments is not None and arguments.type == "generator_expression":
            args = [arguments]  # `tuple(a for a in ...)`: the generator is the one argument
        spelled = text(fn) if fn is not None else ""
        name = spelled.split(".")[-1]
        unknown = _unknown(self.tree, frame.path, node, text(node))
        if fn is None:
            return unknown
        if name in ("get_from_keys", "get_from_keys_or") and len(args) >= 2:
            return self._get_from_keys(name, args, frame, pc) or unknown
        if fn.type == "attribute" and name == "get" and args and len(args) <= 2:
            obj = fn.child_by_field_name("object")
            base = self._term(obj, frame, pc) if obj is not None else None
            key = _const(args[0])
            if base is not None and _from_config(base) and key is not None and isinstance(key.value, str):
                default = self._term(args[1], frame, pc) if len(args) == 2 else _NONE
                return Term(op="get", value=[key.value], args=[base, default])
            return unknown
        if fn.type == "attribute" and name in _METHODS and not args:
            obj = fn.child_by_field_name("object")
            return Term(op=name, args=[self._term(obj, frame, pc)]) if obj is not None else unknown
        if fn.type == "attribute" and name in ("startswith", "endswith") and len(args) == 1:
            obj, prefix = fn.child_by_field_name("object"), _const(args[0])
            if obj is not None and prefix is not None and isinstance(prefix.value, str):
                return Term(op=name, value=prefix.value, args=[self._term(obj, frame, pc)])
            return unknown
        if fn.type == "attribute" and name == "items" and not args:
            obj = fn.child_by_field_name("object")
            base = self._term(obj, frame, pc) if obj is not None else None
            if base is not None and base.op == "const" and isinstance(base.value, dict):
                return Term(op="const", value=[[k, v] for k, v in base.value.items()])
            return Term(op="items", args=[base]) if base is not None else unknown
        if fn.type == "attribute" and name == "join" and len(args) == 1:
            obj = fn.child_by_field_name("object")
            glue, parts = (self._term(obj, frame, pc) if obj is not None else unknown), self._term(args[0], frame, pc)
            literal = glue.op == "const" and parts.op == "const" and isinstance(parts.value, list)
            if literal and isinstance(glue.value, str) and all(isinstance(p, str) for p in parts.value):
                return Term(op="const", value=glue.value.join(parts.value))
            return unknown
        if spelled in ("tuple", "list") and len(args) == 1:
            items = self._term(args[0], frame, pc)
            return items if items.op == "const" and isinstance(items.value, list) else unknown
        if fn.type == "attribute" and name == "keys" and not args:
            obj = fn.child_by_field_name("object")
            base = self._term(obj, frame, pc) if obj is not None else None
            return Term(op="dict_keys", args=[base]) if base is not None and base.op == "keys" else unknown
        if spelled in ("isinstance", "len", "str") and args:
            subject = self._term(args[0], frame, pc)
            if spelled == "isinstance" and len(args) == 2:
                types = [text(t) for t in (args[1].named_children if args[1].type == "tuple" else [args[1]])]
                return Term(op="isinstance", value=types, args=[subject])
            return Term(op=spelled, args=[subject]) if spelled != "isinstance" else unknown
        if spelled.startswith("super()"):
            return unknown
        if spelled.startswith("current_platform.is_") and not args:
            # Which platform vLLM runs on: decided by the caller's deployment, or left open.
            return Term(op="platform", value=[name, f"`{spelled}()` at {frame.path}:{line(node)}"])
        if spelled == "getattr" and len(args) >= 2:
            subject, attr = self._term(args[0], frame, pc), _const(args[1])
            if subject.op == "model" and attr is not None and attr.value == "model_type":
                default = self._term(args[2], frame, pc) if len(args) == 3 else _NONE
                return Term(op="model_type", args=[default])
            return unknown
        return self._follow(fn, arguments, frame, pc) or unknown

    def _get_from_keys(self, name: str, args: list[tree_sitter.Node], frame: _Frame, pc: Term) -> Term | None:
        """`cls.get_from_keys(config, ["bits"])`: the first key present; absent, a ValueError (base_config)."""
        base = self._term(args[0], frame, pc)
        try:
            keys = literal(args[1])
        except NotLiteral:
            return None
        if not _from_config(base) or not isinstance(keys, list) or not all(isinstance(k, str) for k in keys):
            return None
        if name == "get_from_keys_or":
            default = self._term(args[2], frame, pc) if len(args) > 2 else _NONE
            return Term(op="get", value=keys, args=[base, default])
        if self._missing is not None:
            present = _FALSE
            for key in keys:
                present = _or(present, Term(op="has", value=key, args=[base]))
            fills = {"{keys}": Term(op="const", value=keys)}
            self.guards.append(ConfigGuard(when=_and(pc, _not(present)), raised=self._missing, fills=fills))
        return Term(op="get", value=keys, args=[base])

    def _follow(
        self, fn: tree_sitter.Node, arguments: tree_sitter.Node | None, frame: _Frame, pc: Term
    ) -> _Value | None:
        """A call into vLLM's own code: the constructor (`cls(...)`), a method of the class, a function."""
        if fn.type == "attribute":
            obj, attr = fn.child_by_field_name("object"), fn.child_by_field_name("attribute")
            owner = self.expr(obj, frame, pc) if obj is not None else None
            if isinstance(owner, (_Class, _Self)) and attr is not None:
                found = self.modules.method(owner.ref, text(attr))
                if found is None:
                    return None
                given = self._bind(found[1], arguments, frame, pc, skip_first=True)
                return self.call(found[0].path, found[1], owner, given, pc)
            return None
        target = self.expr(fn, frame, pc)
        if isinstance(target, _Class):
            init = self.modules.method(target.ref, "__init__")
            if init is None:
                return None
            given = self._bind(init[1], arguments, frame, pc, skip_first=True)
            if self.scheme is None:
                self.scheme = {k: v for k, v in given.items() if isinstance(v, Term) and _from_config(v)}
            self.call(init[0].path, init[1], _Self(target.ref), given, pc)
            return _unknown(self.tree, frame.path, fn, f"an instance of {target.ref.name}")
        if isinstance(target, _Function):
            given = self._bind(target.node, arguments, frame, pc, skip_first=False)
            return self.call(target.path, target.node, None, given, pc)
        return None

    def _sequence(self, node: tree_sitter.Node, frame: _Frame, pc: Term) -> Term:
        items: list[Term] = []
        for child in node.named_children:
            if child.type == "comment":
                continue
            if child.type == "list_splat" and child.named_children:
                spread = self._term(child.named_children[0], frame, pc)
                if spread.op == "keys" or (spread.op == "const" and isinstance(spread.value, (list, dict))):
                    items.extend(Term(op="const", value=v) for v in spread.value)
                    continue
                return _unknown(self.tree, frame.path, node, text(node))
            items.append(self._term(child, frame, pc))
        if all(i.op == "const" for i in items):
            values = [i.value for i in items]
            return Term(op="const", value=values) if node.type != "set" else Term(op="keys", value=values)
        return Term(op="seq", value=node.type, args=items)

    def _comprehension(self, node: tree_sitter.Node, frame: _Frame, pc: Term) -> Term:
        """A comprehension over a literal (a module's table): computed here, element by element."""
        unknown = _unknown(self.tree, frame.path, node, text(node))
        body = node.child_by_field_name("body")
        clauses = [c for c in node.named_children if c.type in ("for_in_clause", "if_clause")]
        if body is None or not clauses or [c.type for c in clauses].count("for_in_clause") != 1:
            return unknown
        target, over = clauses[0].child_by_field_name("left"), clauses[0].child_by_field_name("right")
        items = self._term(over, frame, pc) if over is not None else unknown
        values = items.value if items.op in ("const", "keys") else None
        if isinstance(values, dict):
            values = list(values)
        if target is None or not isinstance(values, list):
            return unknown
        out: list[object] = []
        for value in values:
            sub = _Frame(frame.path, dict(frame.env), frame.cls)
            if not _bind_pattern(target, value, sub.env):
                return unknown
            kept = True
            for clause in clauses[1:]:
                test = _truthy(self._term(clause.named_children[0], sub, pc)) if clause.named_children else unknown
                if test.op != "const":
                    return unknown
                kept = kept and bool(test.value)
            if kept:
                element = self._term(body, sub, pc)
                if element.op != "const":
                    return unknown
                out.append(element.value)
        return Term(op="const", value=out)

    def _dictionary(self, node: tree_sitter.Node, frame: _Frame) -> Term:
        """A dict literal: its value where all of it is literal, else its literal keys (membership, `.keys()`)."""
        try:
            value = literal(node)
        except NotLiteral:
            value = None
        if isinstance(value, dict) and all(isinstance(k, str) for k in value):
            return Term(op="const", value={k: _jsonable(v) for k, v in value.items()})
        keys: list[object] = []
        for pair in node.named_children:
            if pair.type == "comment":
                continue
            key = pair.child_by_field_name("key") if pair.type == "pair" else None
            try:
                keys.append(_jsonable(literal(key)) if key is not None else None)
            except NotLiteral:
                return _unknown(self.tree, frame.path, node, "a dict with computed keys")
        return Term(op="keys", value=keys)


def _base_raise(tree: SourceTree, words: str) -> Raise | None:
    return find_raise(tree, BASE_CONFIG, words) if tree.exists(BASE_CONFIG) else None


def _unknown(tree: SourceTree, path: str, node: tree_sitter.Node, what: str) -> Term:
    said = " ".join(what.split())
    said = said if len(said) <= 100 else said[:97] + "..."
    return Term(op="unknown", value=f"`{said}` at {path}:{line(node)}")


def _const(node: tree_sitter.Node) -> Term | None:
    try:
        return Term(op="const", value=_jsonable(literal(node)))
    except NotLiteral:
        return None


def _jsonable(value: object) -> object:
    if isinstance(value, (tuple, list)):
        return [_jsonable(v) for v in value]
    return value


def _is_f(node: tree_sitter.Node) -> bool:
    return any(c.type == "interpolation" for c in node.named_children)


def _names(node: tree_sitter.Node) -> list[str]:
    return [text(n) for n in [node, *node.named_children] if n.type == "identifier"]


def _from_config(term: Term) -> bool:
    """Whether a term reads the checkpoint's dict (and so belongs in a guard or the scheme)."""
    return term.op in ("config", "get", "has", "user") or any(_from_config(a) for a in term.args)


def _is_false(term: Term) -> bool:
    return term.op == "const" and term.value is False


def _bind_pattern(target: tree_sitter.Node, value: object, env: dict[str, _Value]) -> bool:
    """`a, (owner, _)` bound to a literal element, as a for clause binds it; False where the shapes differ."""
    if target.type == "identifier":
        env[text(target)] = Term(op="const", value=value)
        return True
    if target.type in ("pattern_list", "tuple_pattern", "list_pattern", "tuple", "list") and isinstance(
        value, (list, tuple)
    ):
        parts = [c for c in target.named_children if c.type != "comment"]
        return len(parts) == len(value) and all(_bind_pattern(p, v, env) for p, v in zip(parts, value, strict=True))
    return False


_COMPARE: dict[str, Callable[[Any, Any], Any]] = {
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    "<": lambda a, b: a < b,
    ">": lambda a, b: a > b,
    "<=": lambda a, b: a <= b,
    ">=": lambda a, b: a >= b,
    "in": lambda a, b: a in b,
    "not in": lambda a, b: a not in b,
}


def _compare(op: str, a: Term, b: Term) -> Term:
    """A comparison; folded where both sides are literals (a table's entries against a literal argument)."""
    if a.op == "const" and b.op in ("const", "keys") and op in _COMPARE and not isinstance(b.value, dict):
        right = [_frozen(v) for v in b.value] if isinstance(b.value, list) else b.value
        try:
            return Term(op="const", value=bool(_COMPARE[op](_frozen(a.value), right)))
        except TypeError:
            pass
    return Term(op="cmp", value=op, args=[a, b])


def _frozen(value: object) -> object:
    return tuple(_frozen(v) for v in value) if isinstance(value, list) else value


def _truthy(term: Term) -> Term:
    if term.op == "const":
        return Term(op="const", value=bool(term.value))
    return term if term.op in ("cmp", "and", "or", "not", "has", "isinstance") else Term(op="truthy", args=[term])


def _and(a: Term, b: Term) -> Term:
    if _is_false(a) or (b.op == "const" and b.value is True):
        return a
    if _is_false(b) or (a.op == "const" and a.value is True):
        return b
    return Term(op="and", args=[a, b])


def _or(a: Term, b: Term) -> Term:
    if _is_false(a):
        return b
    if _is_false(b):
        return a
    return Term(op="or", args=[a, b])


def _not(a: Term) -> Term:
    if a.op == "const":
        return Term(op="const", value=not a.value)
    return Term(op="not", args=[a])


def _then(outcome: Term, after: Term, sizes: JsonSizes) -> Term:
    """`outcome` with its fall-through leaves (`next`) continued by `after`; too large a tree is unknown."""
    if outcome == _NEXT:
        return after
    if outcome.op != "if":
        return outcome
    condition, then, other = outcome.args
    joined = _if(condition, _then(then, after, sizes), _then(other, after, sizes))
    if sizes.of(joined) > _MAX_TERM * 8:
        return Term(op="unknown", value="a function with more exits than this replay follows")
    return joined


class JsonSizes:
    """The length of each term's JSON, from its parts': the joined trees share their subtrees, and serializing
    each one whole again at every `_then` was 300 dumps a derive of v0.22.0."""

    def __init__(self) -> None:
        self._known: dict[int, tuple[Term, int]] = {}  # by id, the term kept alive with its size

    def of(self, term: Term) -> int:
        known = self._known.get(id(term))
        if known is not None and known[0] is term:
            return known[1]
        if term.args:  # `"args":[a,b,c]`: the parts, their commas, and the rest of the term with no args
            bare = len(Term(op=term.op, value=term.value).model_dump_json())
            size = bare + sum(self.of(arg) for arg in term.args) + len(term.args) - 1
        else:
            size = len(term.model_dump_json())
        self._known[id(term)] = (term, size)
        return size


def _if(condition: Term, then: Term, other: Term) -> Term:
    if condition.op == "const" and isinstance(condition.value, bool):
        return then if condition.value else other
    if then == other:
        return then
    return Term(op="if", args=[condition, then, other])
