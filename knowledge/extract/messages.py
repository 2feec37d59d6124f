"""Message sites: every `raise` and log call on a quantized deployment's start-up path, with its message as written.

An operator pastes what vLLM printed; finding the line that printed it means matching the filled-in
message against the format string in the source (an f-string, `%` with arguments, `.format`, or vLLM's
own `ValueError("... %s ...", name)` whose placeholder is never filled). Each site keeps that format
string, how it is filled (`style`), the conditions of the `if`s that enclose it (innermost first, as the
source writes them) and, where those conditions ask for the GPU and the interpreter reduces them, the
capabilities on which they hold: "raised only on a GPU condition" is then a fact of the tree, not a guess.

The scope is the path a quantized `vllm serve` takes (arguments, config, platform, quantization, kernels,
MoE, attention, loading): the whole package holds about four times as many sites, mostly about features
this server does not answer for, and the registries are bundled for every release.
"""

from __future__ import annotations

import re
from typing import Literal

import tree_sitter

from vllm_quant_mcp.knowledge.extract.attention.select import CUDA_GRID
from vllm_quant_mcp.knowledge.extract.engine import CAPABILITY, Cap, Interpreter, Modules, Scope, Shared
from vllm_quant_mcp.knowledge.extract.engine.partial import roots_around
from vllm_quant_mcp.knowledge.extract.engine.syntax import line, message, text
from vllm_quant_mcp.knowledge.extract.result import Extracted
from vllm_quant_mcp.knowledge.registry.model import MessageSite, MessageStyle
from vllm_quant_mcp.knowledge.sources.tree import SourceTree

__all__ = ["SCOPE", "extract_message_sites"]

SCOPE = (
    "vllm/config.py",
    "vllm/config/",
    "vllm/engine/arg_utils.py",
    "vllm/envs.py",
    "vllm/platforms/",
    "vllm/model_executor/layers/quantization/",
    "vllm/model_executor/layers/fused_moe/",
    "vllm/model_executor/layers/linear.py",
    "vllm/model_executor/layers/attention/",
    "vllm/model_executor/kernels/",
    "vllm/model_executor/model_loader/",
    "vllm/kernels/",
    "vllm/attention/",
    "vllm/v1/attention/",
)
MAX_GUARDS = 4
MAX_GUARD_CHARS = 240
MAX_MESSAGE_CHARS = 600
# Conditions worth binding a GPU for: the rest never read one, and evaluating them would only cost time.
# Matched against the lowered text: re.I took two and a half times as long.
_GPU_WORDS = re.compile(r"capability|is_blackwell|is_hopper|is_sm\d|is_device|\bsm_?\d{2,3}\b")
_PREFILTER = (b"raise ", b"logger.", b"log.")
# Where a site can start, a superset of what _raised and _logged accept: (word, what must follow it). Found with
# bytes.find, six times as fast as one regex of the alternatives.
_SITE_WORDS = (
    (b"raise", None),
    (b"log", re.compile(rb"(?:ger)?\s*\.\s*(?:info|warn|error|exception|critical)")),
    (b"LOGGER", re.compile(rb"\s*\.\s*(?:info|warn|error|exception|critical)")),
)
_LOGGER = re.compile(r"_?(logger|log|LOGGER)\Z")
_LEVEL = re.compile(r"(info|info_once|warning|warning_once|warn|error|exception|critical)\Z")


def extract_message_sites(tree: SourceTree) -> Extracted[list[MessageSite]]:
    paths = sorted(p for p in tree.glob("vllm/**/*.py") if p.startswith(SCOPE))
    gpus = _GpuGuards(tree)
    sites: list[MessageSite] = []
    names: dict[str, int] = {}
    for path in paths:
        data = tree.source(path)
        if not any(word in data for word in _PREFILTER):
            continue
        for captures in (
            c for root, offsets in roots_around(tree, path, _site_words(data)) for c in _sites_in(root, data, offsets)
        ):
            site = _site(tree, path, captures, gpus)
            if site is None:
                continue
            seen = names.get(site.name, 0) + 1
            names[site.name] = seen
            sites.append(site if seen == 1 else site.model_copy(update={"name": f"{site.name} #{seen}"}))
    return Extracted(sites, note=None if sites else "no raise or log call with a message on the start-up path")


def _site_words(data: bytes) -> list[int]:
    """Where a `raise` or a logger call may stand, in order."""
    found: list[int] = []
    for word, after in _SITE_WORDS:
        at = data.find(word)
        while at != -1:
            if after is None or after.match(data, at + len(word)):
                found.append(at)
            at = data.find(word, at + len(word))
    return sorted(found)


def _sites_in(root: tree_sitter.Node, data: bytes, offsets: list[int]) -> list[dict[str, list[tree_sitter.Node]]]:
    """Each `raise X("...")` and `logger.<level>("...")` at the offsets, in the order written (a query over every
    call of a file took 0.24 s a release; this, 0.02 s): `raise` opens a raise statement whose exception is built
    by a call; a logger is `logger`, `log` or `LOGGER` (an underscore before allowed), called through a level
    method."""
    found: dict[int, dict[str, list[tree_sitter.Node]]] = {}
    for start in offsets:
        raised = data.startswith(b"raise", start)
        size = 5 if raised else 6 if data.startswith(b"LOGGER", start) else 3
        node = root.descendant_for_byte_range(start, start + size)
        captures = _raised(node) if raised else _logged(node)
        if captures is not None:
            top = captures["raise" if "raise" in captures else "log"][0]
            found.setdefault(top.start_byte, captures)
    return [found[at] for at in sorted(found)]


def _raised(keyword: tree_sitter.Node | None) -> dict[str, list[tree_sitter.Node]] | None:
    statement = keyword.parent if keyword is not None and keyword.type == "raise" else None
    if statement is None or statement.type != "raise_statement":
        return None
    for call in (c for c in statement.named_children if c.type == "call"):
        function, arguments = call.child_by_field_name("function"), call.child_by_field_name("arguments")
        if function is not None and arguments is not None and arguments.named_child_count:
            return {"raise": [statement], "raise.type": [function], "raise.message": [arguments.named_children[0]]}
    return None


def _logged(name: tree_sitter.Node | None) -> dict[str, list[tree_sitter.Node]] | None:
    attribute = name.parent if name is not None and name.type == "identifier" else None
    call = attribute.parent if attribute is not None and attribute.type == "attribute" else None
    if attribute is None or call is None or call.type != "call" or call.child_by_field_name("function") != attribute:
        return None
    owner, level = attribute.child_by_field_name("object"), attribute.child_by_field_name("attribute")
    arguments = call.child_by_field_name("arguments")
    if name is None or owner != name or level is None or arguments is None or arguments.type != "argument_list":
        return None
    if not _LOGGER.match(text(name)) or not _LEVEL.match(text(level)) or not arguments.named_child_count:
        return None
    return {"log": [call], "log.level": [level], "log.message": [arguments.named_children[0]]}


def _site(
    tree: SourceTree, path: str, captures: dict[str, list[tree_sitter.Node]], gpus: _GpuGuards
) -> MessageSite | None:
    kind: Literal["raise", "log"] = "raise" if "raise" in captures else "log"
    node = captures[kind][0]
    said = captures[f"{kind}.message"][0]
    raised = text(captures["raise.type"][0]) if kind == "raise" else text(captures["log.level"][0])
    after = said.next_named_sibling
    if said.type == "identifier":
        said = _assigned(said) or said
    read = _template(said, more_args=after is not None and after.type != "keyword_argument", logged=kind == "log")
    if read is None:
        return None
    template, style = read
    if not template.strip(" .%s{}") or len(template) > MAX_MESSAGE_CHARS:
        return None
    guards = _guards(node)
    raised_on, spared_on = gpus.of(path, guards)
    return MessageSite(
        name=template,
        provenance=tree.provenance(path, line(node)),
        kind=kind,
        raises=raised.rsplit(".", 1)[-1][:80],
        style=style,
        function=_function(node),
        guards=[_shown(c, negated) for c, negated in guards][:MAX_GUARDS],
        guard_line=line(guards[0][0]) if guards else None,
        raised_on=raised_on,
        spared_on=spared_on,
    )


def _template(node: tree_sitter.Node, more_args: bool, logged: bool) -> tuple[str, MessageStyle] | None:
    """The format string and how vLLM fills it; None for a message held in a variable (nothing to match)."""
    if node.type in {"string", "concatenated_string"}:
        pieces = node.named_children if node.type == "concatenated_string" else [node]
        if any(c.type == "interpolation" for p in pieces for c in p.named_children):
            return message(node), "f-string"
        if more_args:
            return message(node), "percent" if logged else "unfilled"
        return message(node), "plain"
    if node.type == "binary_operator" and text(node.child_by_field_name("operator") or node) == "%":
        left = node.child_by_field_name("left")
        if left is not None and left.type in {"string", "concatenated_string"}:
            return message(left), "percent"
    if node.type == "call":
        function = node.child_by_field_name("function")
        if function is not None and function.type == "attribute":
            owner, attribute = function.child_by_field_name("object"), function.child_by_field_name("attribute")
            if attribute is not None and text(attribute) == "format" and owner is not None:
                if owner.type in {"string", "concatenated_string"}:
                    return message(owner), "format"
                if owner.type == "parenthesized_expression" and owner.named_children:
                    inner = owner.named_children[0]
                    if inner.type in {"string", "concatenated_string"}:
                        return message(inner), "format"
    return None


def _assigned(name: tree_sitter.Node) -> tree_sitter.Node | None:
    """`msg = "..."` (or an f-string, `%`, `.format`) before `raise ValueError(msg)` in the same function."""
    function = name.parent
    while function is not None and function.type not in {"function_definition", "module"}:
        function = function.parent
    if function is None:
        return None
    found: tree_sitter.Node | None = None
    stack = [function]
    while stack:
        node = stack.pop()
        if node.start_byte >= name.start_byte:
            continue
        if node.type == "assignment":
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            same = left is not None and right is not None and text(left) == text(name)
            if same and (found is None or node.start_byte > found.start_byte):
                found = right
            continue
        stack.extend(node.named_children)
    if found is not None and found.type == "parenthesized_expression" and found.named_children:
        found = found.named_children[0]
    return found


def _guards(node: tree_sitter.Node) -> list[tuple[tree_sitter.Node, bool]]:
    """The conditions that must hold for control to reach `node`, innermost first: (condition, negated)."""
    found: list[tuple[tree_sitter.Node, bool]] = []
    child, parent = node, node.parent
    while parent is not None and parent.type not in {"function_definition", "class_definition", "module"}:
        if parent.type in {"if_statement", "elif_clause"}:
            condition = parent.child_by_field_name("condition")
            consequence = parent.child_by_field_name("consequence")
            if condition is not None and consequence is not None and child.id == consequence.id:
                found.append((condition, False))
            elif parent.type == "if_statement" and condition is not None:
                found.append((condition, True))
                for clause in parent.children_by_field_name("alternative"):
                    if clause.id == child.id:
                        break
                    earlier = clause.child_by_field_name("condition")
                    if earlier is not None:
                        found.append((earlier, True))
        elif parent.type == "except_clause" and parent.named_children:
            caught = parent.named_children[0]
            if caught.type != "block":
                found.append((caught, False))
        child, parent = parent, parent.parent
    return found


def _shown(condition: tree_sitter.Node, negated: bool) -> str:
    said = " ".join(text(condition).split())
    if condition.parent is not None and condition.parent.type == "except_clause":
        said = f"except {said}"
    elif negated:
        said = f"not ({said})"
    return said if len(said) <= MAX_GUARD_CHARS else said[: MAX_GUARD_CHARS - 1] + "…"


def _function(node: tree_sitter.Node) -> str | None:
    names: list[str] = []
    parent = node.parent
    while parent is not None:
        if parent.type in {"function_definition", "class_definition"}:
            name = parent.child_by_field_name("name")
            if name is not None:
                names.append(text(name))
        parent = parent.parent
    return ".".join(reversed(names)) or None


class _GpuGuards:
    """Where a site's GPU conditions hold: each condition that asks for the capability, per GPU of the grid."""

    def __init__(self, tree: SourceTree) -> None:
        self.tree = tree
        self._interpreters: dict[Cap, Interpreter] | None = None

    def interpreters(self) -> dict[Cap, Interpreter]:
        if self._interpreters is None:
            modules, shared = Modules(self.tree), Shared()
            self._interpreters = {cap: Interpreter(modules, "cuda", cap, shared=shared) for cap in CUDA_GRID}
        return self._interpreters

    def of(self, path: str, guards: list[tuple[tree_sitter.Node, bool]]) -> tuple[list[str] | None, list[str]]:
        """(GPUs on which every GPU condition holds, GPUs on which one fails); (None, []) when none reduces."""
        asking = [(c, n) for c, n in guards if c.parent is None or c.parent.type != "except_clause"]
        asking = [(c, n) for c, n in asking if _GPU_WORDS.search(text(c).lower())]
        if not asking:
            return None, []
        interpreters = self.interpreters()
        verdicts: dict[Cap, list[bool]] = {cap: [] for cap in interpreters}
        for condition, negated in asking:
            for i, (cap, interpreter) in enumerate(interpreters.items()):
                value, marks = interpreter.evaluate(condition, Scope(path=path))
                if CAPABILITY not in marks:
                    if i == 0:  # it never read the GPU, so it reads none: the other GPUs would answer alike
                        break
                    continue
                truth = interpreter.truth(value)
                if isinstance(truth, bool):
                    verdicts[cap].append(truth != negated)
        raised_on = [str(cap) for cap, held in verdicts.items() if False not in held and len(held) == len(asking)]
        spared_on = [str(cap) for cap, held in verdicts.items() if False in held]
        if not raised_on and not spared_on:
            return None, []
        return raised_on, spared_on
