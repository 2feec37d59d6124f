"""Load-time refusals: where `vllm serve` stops on a checkpoint property that earlier releases accepted.

vLLM marks these itself: a `raise` in the quantization layer whose message says the thing
is "no longer supported" or "has been removed" (GPTQ desc_act=True, compressed-tensors
group actorder, Sparse24, sparsity configs, online `fp8`). Each is recorded with the
methods whose config reaches it (the class that raises, or that calls the helper that
does) and the condition that guards it.

A raise counts only if the load path for that input reaches it. The path has one
branch before any config is built that can bypass such a raise: `get_quant_config`
(model_loader/weight_utils.py) sends a method with no checkpoint config straight to an
online shorthand (`--quantization fp8` on a BF16 checkpoint becomes fp8_per_tensor).
That redirect is recorded too, and a refusal of online use by a method it redirects is
marked not reached, citing the redirect.
"""

from __future__ import annotations

import re

import tree_sitter

from vllm_quant_mcp.knowledge.extract.engine.syntax import line, matches, maybe_literal_str, message, span_of, text
from vllm_quant_mcp.knowledge.extract.quantization import extract_quantization_methods
from vllm_quant_mcp.knowledge.extract.result import Extracted
from vllm_quant_mcp.knowledge.registry.matrix import Check, LoadRefusal
from vllm_quant_mcp.knowledge.sources.tree import SourceTree

__all__ = ["LOADER", "QUANT_DIR", "extract_load_refusals"]

QUANT_DIR = "vllm/model_executor/layers/quantization"
LOADER = "vllm/model_executor/model_loader/weight_utils.py"
_REMOVED = re.compile(r"no longer support|has been removed|is no longer|are no longer", re.IGNORECASE)
# Words a removal message holds: a file without either has none. Plain substring tests, which skip ahead by
# memchr; a regex alternation reads every byte of the 400-odd quantization files.
_PREFILTER = (b"no longer", b"been removed")


def extract_load_refusals(tree: SourceTree) -> Extracted[list[LoadRefusal]]:
    by_class: dict[str, list[str]] = {}
    by_folder: dict[str, list[str]] = {}
    for method in extract_quantization_methods(tree).entries:
        if method.config_class is not None:
            by_class.setdefault(method.config_class, []).append(method.name)
        if method.config_path is not None and method.config_path.count("/") > QUANT_DIR.count("/") + 1:
            by_folder.setdefault(method.config_path.rsplit("/", 1)[0], []).append(method.name)
    redirects = _redirects(tree)
    found: dict[str, LoadRefusal] = {}
    seen: set[tuple[tuple[str, ...], str]] = set()
    files = {path: tree.read_bytes(path) for path in tree.glob(f"{QUANT_DIR}/**/*.py")}
    for path, data in files.items():
        if not any(word in data for word in _PREFILTER):
            continue
        for captures in matches("refusals", tree.parse(path).root_node):
            if "raise" not in captures:
                continue
            node = captures["raise"][0]
            said = message(captures["raise.message"][0])
            if not _REMOVED.search(said):
                continue
            refusal = _refusal(tree, path, node, said, by_class, by_folder, redirects, files)
            key = (tuple(refusal.methods), refusal.message)
            if key not in seen:
                seen.add(key)
                name = refusal.name
                n = 2
                while name in found:
                    name, n = f"{refusal.name}#{n}", n + 1
                found[name] = refusal.model_copy(update={"name": name})
    entries = sorted([*found.values(), *redirects.values()], key=lambda r: r.name)
    return Extracted(entries, note=None if entries else "no load-time refusals marked in this release's source")


def _refusal(
    tree: SourceTree,
    path: str,
    node: tree_sitter.Node,
    said: str,
    by_class: dict[str, list[str]],
    by_folder: dict[str, list[str]],
    redirects: dict[str, LoadRefusal],
    files: dict[str, bytes],
) -> LoadRefusal:
    function, cls = _enclosing(node)
    reached_from = None
    if cls is not None:
        # A config class raises itself; a scheme class belongs to the config of the folder it lives in.
        methods = by_class.get(cls) or by_folder.get(path.rsplit("/", 1)[0].removesuffix("/schemes"), [])
    else:
        methods, reached_from = _callers(tree, function, by_class, files)
    guard = _guard(node)
    redirected = [redirects[m] for m in methods if m in redirects]
    decided_by = None
    if redirected and "online" in said.lower():
        r = redirected[0]
        decided_by = Check(
            why=f"get_quant_config redirects --quantization {r.methods[0]} on a checkpoint without a quantization "
            f"config to {r.redirect_to} before any {cls or function} is built",
            path=r.provenance.path,
            line=r.provenance.line,
        )
    return LoadRefusal(
        name=f"{(methods or [cls or function])[0]}:{function}",
        provenance=tree.provenance(path, line(node)),
        outcome="refused",
        methods=sorted(methods),
        property=guard or f"{cls + '.' if cls else ''}{function} is called",
        message=said,
        reached_from=tree.provenance(*reached_from) if reached_from is not None else None,
        reached=decided_by is None,
        decided_by=decided_by,
    )


def _enclosing(node: tree_sitter.Node) -> tuple[str, str | None]:
    function, cls = "<module>", None
    current = node.parent
    while current is not None:
        if current.type == "function_definition" and function == "<module>":
            function = text(current.child_by_field_name("name") or current)
        elif current.type == "class_definition":
            cls = text(current.child_by_field_name("name") or current)
            break
        current = current.parent
    return function, cls


def _guard(node: tree_sitter.Node) -> str | None:
    current = node.parent
    while current is not None and current.type not in ("function_definition", "class_definition"):
        if current.type in ("if_statement", "elif_clause"):
            condition = current.child_by_field_name("condition")
            if condition is not None:
                return " ".join(text(condition).split())[:160]
        current = current.parent
    return None


def _callers(
    tree: SourceTree, function: str, by_class: dict[str, list[str]], files: dict[str, bytes]
) -> tuple[list[str], tuple[str, int] | None]:
    """Methods whose config class calls the module-level helper `function`, and the first such call."""
    called = function.encode() + b"("
    pattern = re.compile(rb"\b" + re.escape(called))
    methods: list[str] = []
    first: tuple[str, int] | None = None
    for path, data in files.items():
        if called not in data:  # a substring test first: led by \b, the regex has no prefix to skip ahead by
            continue
        for match in pattern.finditer(data):
            call = tree.parse(path).root_node.descendant_for_byte_range(match.start(), match.start() + len(function))
            if call is None or call.parent is None or call.parent.type != "call":
                continue  # the definition itself, or a mention in a comment or string
            _, cls = _enclosing(call)
            if cls is not None and cls in by_class:
                methods += [m for m in by_class[cls] if m not in methods]
                first = first or (path, line(call))
    return methods, first


def _redirects(tree: SourceTree) -> dict[str, LoadRefusal]:
    """`--quantization M` sent to an online shorthand by get_quant_config when the checkpoint has no config."""
    # Each redirect calls resolve_quantization_config: the query visits only the bytes between its first and last
    # call, and a loader that never calls it is not parsed for this.
    span = span_of(tree.source(LOADER), (b"resolve_quantization_config",)) if tree.exists(LOADER) else None
    if span is None:
        return {}
    found: dict[str, LoadRefusal] = {}
    for captures in matches("refusals", tree.parse(LOADER).root_node, span=span):
        if "redirect.method" not in captures:
            continue
        method = maybe_literal_str(captures["redirect.method"][0])
        target = maybe_literal_str(captures["redirect.target"][0])
        if method is None or target is None or method in found:
            continue
        warning = next((message(n) for n in captures.get("redirect.warning", [])), "")
        found[method] = LoadRefusal(
            name=f"{method}:unquantized checkpoint",
            provenance=tree.provenance(LOADER, line(captures["redirect"][0])),
            outcome="redirected",
            methods=[method],
            property="the checkpoint has no quantization config (a BF16/FP16 model)",
            message=warning,
            redirect_to=target,
        )
    return found
