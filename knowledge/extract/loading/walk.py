"""`get_quant_config` (model_loader/weight_utils.py) walked for one `--quantization` value on a BF16 checkpoint.

The function changes shape every few releases (an early `return quant_cls()` for gguf/inc at
v0.14.0, the online branch and the fp8 redirect later), so it is read as code: its statements in
order, each `if` decided from what the input fixes (the method's name, whether an online
`--quantization-config` was resolved, the method's `get_config_filenames()`, the JSON files of a
checkpoint without a quantization config), until a `return` or a `raise`. A condition the input
does not fix leaves the answer `conditional` at that line, unless its branch neither returns nor
raises (the download of the config files). What ends the walk decides:
`quant_cls()` is checked against its constructor's required arguments (Python's own TypeError,
word for word); `OnlineQuantizationConfig(...)` after `resolve_quantization_config("<shorthand>")`
is a redirect; a `raise` is vLLM's own message with the method's name put in.
"""

from __future__ import annotations

from dataclasses import dataclass

import tree_sitter

from vllm_quant_mcp.knowledge.extract.engine import ClassRef, Modules
from vllm_quant_mcp.knowledge.extract.engine.syntax import (
    NotLiteral,
    definition,
    if_clauses,
    line,
    literal,
    message,
    text,
)
from vllm_quant_mcp.knowledge.registry.loading import LoadStep, Raise
from vllm_quant_mcp.knowledge.sources.tree import SourceTree

__all__ = ["LOADER", "UNQUANTIZED_FILES", "Walk", "config_filenames", "missing_arguments"]

LOADER = "vllm/model_executor/model_loader/weight_utils.py"
# The JSON files of a BF16 Hugging Face checkpoint: what get_quant_config's glob("*.json") finds there.
UNQUANTIZED_FILES = ("config.json", "generation_config.json", "tokenizer.json", "tokenizer_config.json")
_UNKNOWN = object()
_ONLINE = "OnlineQuantizationConfig"
_NONE_NAMES = {"hf_quant_config", "quantization_config_file", "quantization_config_json"}


@dataclass(frozen=True)
class Input:
    method: str
    cls: ClassRef | None
    shorthands: frozenset[str]
    online_args: bool
    files: tuple[str, ...] = UNQUANTIZED_FILES


class Walk:
    """One walk of get_quant_config's body; `run` answers the step that ends it."""

    def __init__(self, tree: SourceTree, modules: Modules, function: tree_sitter.Node, given: Input) -> None:
        self.tree, self.modules, self.function, self.given = tree, modules, function, given
        self.filenames = config_filenames(modules, given.cls) if given.cls is not None else None
        self.redirect: str | None = None
        self.warning: str | None = None

    def run(self) -> LoadStep:
        body = definition(self.function).child_by_field_name("body")
        step = self._block(body) if body is not None else None
        return step or self._step(
            "conditional", "get_quant_config ends without a return this walk reads", self.function
        )

    def _step(
        self, outcome: str, why: str, node: tree_sitter.Node, loads_as: str | None = None, raised: Raise | None = None
    ) -> LoadStep:
        return LoadStep.model_validate(
            {
                "outcome": outcome,
                "loads_as": loads_as,
                "why": why,
                "provenance": self.tree.provenance(LOADER, line(node)),
                "raised": raised,
            }
        )

    def _block(self, block: tree_sitter.Node) -> LoadStep | None:
        for stmt in block.named_children:
            step = self._statement(stmt)
            if step is not None:
                return step
        return None

    def _statement(self, stmt: tree_sitter.Node) -> LoadStep | None:
        kind = stmt.type
        if kind == "if_statement":
            return self._if(stmt)
        if kind == "return_statement":
            return self._return(stmt)
        if kind == "raise_statement":
            return self._raise(stmt)
        if kind in ("with_statement", "try_statement"):
            body = stmt.child_by_field_name("body")
            return self._block(body) if body is not None else None
        if kind == "expression_statement":
            self._note(stmt)
        return None

    def _if(self, stmt: tree_sitter.Node) -> LoadStep | None:
        for condition, body in if_clauses(stmt):
            holds = True if condition is None else self._truth(condition)
            if holds is False or body is None:
                continue
            if holds is None:
                if not _ends(body):
                    continue  # either way the walk goes on: this branch only fetches or fills in
                assert condition is not None
                return self._step(
                    "conditional",
                    f"get_quant_config branches on `{' '.join(text(condition).split())}`, which a run-time value "
                    "decides",
                    condition,
                )
            return self._block(body)
        return None

    def _note(self, stmt: tree_sitter.Node) -> None:
        """A redirect's pieces: `x = resolve_quantization_config("<shorthand>", ...)` and the warning logged."""
        expr = stmt.named_children[0] if stmt.named_children else None
        if expr is None:
            return
        call = expr.child_by_field_name("right") if expr.type == "assignment" else expr
        if call is None or call.type != "call":
            return
        fn = text(call.child_by_field_name("function") or call)
        args = call.child_by_field_name("arguments")
        first = args.named_children[0] if args is not None and args.named_children else None
        if first is None:
            return
        if fn.endswith("resolve_quantization_config") and first.type == "string":
            value = literal(first)
            self.redirect = value if isinstance(value, str) else None
        elif fn.split(".")[-1].startswith("warning") and first.type in ("string", "concatenated_string"):
            self.warning = message(first)

    def _return(self, stmt: tree_sitter.Node) -> LoadStep:
        expr = stmt.named_children[0] if stmt.named_children else None
        while expr is not None and expr.type == "call":
            fn = expr.child_by_field_name("function")
            args = expr.child_by_field_name("arguments")
            name = text(fn) if fn is not None else ""
            if name == "quant_cls":
                return self._construct(stmt)
            if name == _ONLINE:
                if self.redirect is not None:
                    why = f"get_quant_config sends --quantization {self.given.method} to {self.redirect}"
                    return self._step(
                        "redirected", why + (f": {self.warning}" if self.warning else ""), stmt, self.redirect
                    )
                return self._step(
                    "loads", "an online config, built from the resolved QuantizationConfigArgs", stmt, _ONLINE
                )
            if name == "quant_cls.from_config" and args is not None and text(args).replace(" ", "") == "({})":
                return self._step(
                    "loads", f"{self._cls()}.from_config({{}}): quantized while loading", stmt, self._cls()
                )
            if name in ("quant_cls.from_config", "make_checkpoint_config"):
                break
            inner = args.named_children[0] if args is not None and args.named_children else None
            expr = inner if inner is not None and inner.type == "call" else None
        return self._step(
            "conditional",
            f"{self._cls()}.from_config reads the config file found; its contents decide",
            stmt,
            self._cls(),
        )

    def _cls(self) -> str:
        return self.given.cls.name if self.given.cls is not None else "quant_cls"

    def _construct(self, stmt: tree_sitter.Node) -> LoadStep:
        cls = self.given.cls
        if cls is None:
            return self._step("conditional", "quant_cls() of a config class this tree does not define", stmt)
        init = self.modules.method(cls, "__init__")
        missing = missing_arguments(init[1]) if init is not None else []
        if init is None or not missing:
            return self._step("loads", f"{cls.name}() with its defaults: no file to read", stmt, cls.name)
        owner, node = init
        raised = Raise(
            error="TypeError",
            message=f"{owner.name}.__init__() {_python_missing(missing)}",
            provenance=self.tree.provenance(owner.path, line(definition(node))),
        )
        return self._step("refused", f"get_quant_config calls {cls.name}() with no arguments", stmt, raised=raised)

    def _raise(self, stmt: tree_sitter.Node) -> LoadStep:
        call = stmt.named_children[0] if stmt.named_children else None
        error, said = "Exception", text(stmt)
        if call is not None and call.type == "call":
            error = text(call.child_by_field_name("function") or call)
            args = call.child_by_field_name("arguments")
            first = args.named_children[0] if args is not None and args.named_children else None
            if first is not None and first.type in ("string", "concatenated_string"):
                said = message(first).replace("{model_config.quantization}", self.given.method)
        raised = Raise(error=error, message=said, provenance=self.tree.provenance(LOADER, line(stmt)))
        return self._step("refused", f"get_quant_config raises {error}", stmt, raised=raised)

    # Conditions: True, False, or None where a run-time value decides.
    def _truth(self, node: tree_sitter.Node) -> bool | None:
        kind = node.type
        if kind == "parenthesized_expression" and node.named_children:
            return self._truth(node.named_children[0])
        if kind == "not_operator":
            arg = node.child_by_field_name("argument")
            inner = self._truth(arg) if arg is not None else None
            return None if inner is None else not inner
        if kind == "boolean_operator":
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            op = text(node.child_by_field_name("operator") or node)
            a = self._truth(left) if left is not None else None
            if (op == "and" and a is False) or (op == "or" and a is True):
                return a
            b = self._truth(right) if right is not None else None
            if op == "and":
                return False if b is False else (True if a and b else None)
            return True if b is True else (False if a is False and b is False else None)
        if kind == "comparison_operator":
            return self._compare(node)
        if kind == "call":
            return self._predicate(node)
        value = self._value(node)
        return None if value is _UNKNOWN else bool(value)

    def _compare(self, node: tree_sitter.Node) -> bool | None:
        operands = node.named_children
        ops = " ".join(text(c) for c in node.children if not c.is_named)
        if len(operands) != 2:
            return None
        a, b = self._value(operands[0]), self._value(operands[1])
        if a is _UNKNOWN or b is _UNKNOWN:
            return None
        try:
            if ops in ("==", "is"):
                return bool(a == b)
            if ops in ("!=", "is not"):
                return bool(a != b)
            if ops == "in":
                return a in b  # type: ignore[operator]
            if ops == "not in":
                return a not in b  # type: ignore[operator]
            if ops in (">", "<", ">=", "<="):
                return bool({">": a > b, "<": a < b, ">=": a >= b, "<=": a <= b}[ops])  # type: ignore[operator]
        except TypeError:
            return None
        return None

    def _predicate(self, node: tree_sitter.Node) -> bool | None:
        fn = text(node.child_by_field_name("function") or node)
        args = node.child_by_field_name("arguments")
        names = [text(a) for a in args.named_children] if args is not None else []
        if fn == "isinstance" and names[:1] == ["hf_overrides"]:
            return "dict" in names[1]  # hf_overrides defaults to {}
        if fn == "callable" and names[:1] == ["hf_overrides"]:
            return False
        if fn == "issubclass" and names[:1] == ["quant_cls"] and self.given.cls is not None:
            return _inherits(self.modules, self.given.cls, names[1])
        return None

    def _value(self, node: tree_sitter.Node) -> object:
        given = self.given
        spelled = text(node)
        if node.type in ("string", "integer", "tuple", "list", "none", "true", "false"):
            try:
                return literal(node)
            except NotLiteral:
                return _UNKNOWN
        if spelled == "model_config.quantization":
            return given.method
        if spelled in ("model_config.quantization_config", "online_args"):
            return "args" if given.online_args else None
        if spelled in _NONE_NAMES:
            return None
        if spelled == "_ONLINE_SHORTHANDS":
            return given.shorthands
        if spelled == "possible_config_filenames":
            return _UNKNOWN if self.filenames is None else self.filenames
        if spelled == "quant_cls":
            return self._cls()
        if spelled == _ONLINE:
            return _ONLINE
        if spelled == "len(quant_config_files)":
            if self.filenames is None:
                return _UNKNOWN
            return sum(1 for f in given.files if any(f.endswith(x) for x in self.filenames))
        return _UNKNOWN


def config_filenames(modules: Modules, cls: ClassRef) -> list[str] | None:
    """get_config_filenames() when it returns a literal list (found by method resolution), else None."""
    found = modules.method(cls, "get_config_filenames")
    if found is None:
        return None
    body = definition(found[1]).child_by_field_name("body")
    for stmt in body.named_children if body is not None else []:
        if stmt.type == "raise_statement":
            return None
        if stmt.type == "return_statement" and stmt.named_children:
            try:
                value = literal(stmt.named_children[0])
            except NotLiteral:
                return None
            return [str(v) for v in value] if isinstance(value, list) else None
    return None


def missing_arguments(init: tree_sitter.Node) -> list[str]:
    """The parameters of `__init__` a call with no arguments leaves unbound (self aside, *args/**kwargs bind)."""
    params = definition(init).child_by_field_name("parameters")
    names: list[str] = []
    for param in params.named_children[1:] if params is not None else []:
        if param.type == "keyword_separator":
            continue
        if param.type == "identifier":
            names.append(text(param))
        elif param.type == "typed_parameter" and param.named_children and param.named_children[0].type == "identifier":
            names.append(text(param.named_children[0]))
    return names


def _python_missing(names: list[str]) -> str:
    """Python's wording for unbound positional parameters, so the message reads as vLLM prints it."""
    quoted = [f"'{n}'" for n in names]
    if len(quoted) == 1:
        listed = quoted[0]
    elif len(quoted) == 2:
        listed = f"{quoted[0]} and {quoted[1]}"
    else:
        listed = ", ".join(quoted[:-1]) + f", and {quoted[-1]}"
    plural = "argument" if len(names) == 1 else "arguments"
    return f"missing {len(names)} required positional {plural}: {listed}"


def _ends(block: tree_sitter.Node) -> bool:
    """Whether a branch can end the function: a return or raise in it, nested definitions aside."""
    stack = list(block.named_children)
    while stack:
        node = stack.pop()
        if node.type in ("return_statement", "raise_statement"):
            return True
        if node.type not in ("function_definition", "class_definition", "decorated_definition"):
            stack.extend(node.named_children)
    return False


def _inherits(modules: Modules, cls: ClassRef, base: str, depth: int = 6) -> bool:
    if cls.name == base:
        return True
    return depth > 0 and any(_inherits(modules, b, base, depth - 1) for b in modules.bases(cls))
