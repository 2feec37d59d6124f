"""The `cuda_archs` kind: per kernel family, the architectures CMakeLists.txt compiles it for, per CUDA version.

No tree-sitter grammar for CMake is installed, and the few commands read here are regular: a command is
`name(arguments)` (quoted strings, `${VAR}` references, nested parentheses in conditions), a comment runs
from `#` outside a string to the end of the line. Read are `if / elseif / else / endif` (a stack of
conditions; the CUDA compiler's version comparisons become bounds, an else branch the negation of a
single bound before it), `cuda_archs_loose_intersection(<VAR> "<archs>" ...)` and
`set(CUDA_SUPPORTED_ARCHS "...")` (a family's branches), `set(<X> "a.cu" ...)` (source lists) and
`set_gencode_flags_for_srcs(SRCS "${X}" CUDA_ARCHS "${VAR}")`, which closes the family's block with its
sources and the CUDA bounds its compilation sits under. The tree of an installed vllm/ has no
CMakeLists.txt, and says so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from vllm_quant_mcp.knowledge.extract.result import Extracted
from vllm_quant_mcp.knowledge.registry.cuda_archs import ArchBranch, CudaArchs, CudaBound
from vllm_quant_mcp.knowledge.sources.tree import SourceTree

# a string (escapes kept, to its end if unterminated) or a comment (to the end of its line)
_STRING_OR_COMMENT = re.compile(r'"(?:\\[\s\S]|[^"\\])*(?:"|\Z)|#[^\n]*')

__all__ = ["CMAKE", "commands", "extract_cuda_archs", "negate"]

CMAKE = "CMakeLists.txt"
SUPPORTED = "CUDA_SUPPORTED_ARCHS"
_VERSION = re.compile(
    r"(NOT\s+)?\$?\{?CMAKE_CUDA_COMPILER_VERSION\}?\s+"
    r"(VERSION_GREATER_EQUAL|VERSION_GREATER|VERSION_LESS_EQUAL|VERSION_LESS|VERSION_EQUAL)\s+([\d.]+)"
)
_OPS = {"VERSION_GREATER_EQUAL": ">=", "VERSION_GREATER": ">", "VERSION_LESS_EQUAL": "<=", "VERSION_LESS": "<",
        "VERSION_EQUAL": "=="}  # fmt: skip
_NEGATED = {">=": "<", ">": "<=", "<=": ">", "<": ">=", "==": "!="}
_TRIVIAL = re.compile(r"^\(*\s*DEFINED\s+CMAKE_CUDA_COMPILER_VERSION\s*\)*$")
_REF = re.compile(r"^\$\{(\w+)\}$")
MAX_COMMANDS = 20_000  # CMakeLists.txt of v0.33.0 has ~1,700 lines; a file 10x larger is not vLLM's


@dataclass(frozen=True)
class Command:
    name: str
    args: list[str]
    raw: str  # the argument text as written (conditions are read from it)
    line: int


def commands(source: str) -> list[Command]:
    """The file's commands in order, arguments unquoted; a malformed tail (an unclosed call) is dropped."""
    source = _uncommented(source)
    found: list[Command] = []
    row, counted = 1, 0  # lines counted from where the last command stood, not from the top each time
    for named in re.finditer(r"(?m)^[ \t]*([A-Za-z_][A-Za-z0-9_]*)[ \t]*\(", source):
        if len(found) >= MAX_COMMANDS:
            break
        start = named.end() - 1
        close = _closing(source, start)
        if close < 0:
            break
        raw = source[start + 1 : close]
        row, counted = row + source.count("\n", counted, named.start(1)), named.start(1)
        found.append(Command(named[1].lower(), _arguments(raw), raw, row))
    return found


def _uncommented(source: str) -> str:
    """The source with each `#` comment cut (newlines kept, so lines still count), strings untouched; one regex
    pass (a loop over the characters of CMakeLists.txt took 8 ms a derive)."""
    return _STRING_OR_COMMENT.sub(lambda m: m[0] if m[0][0] == '"' else "", source)


def _closing(source: str, start: int) -> int:
    """The index of the `)` matching the `(` at `start`, past strings; -1 if none. Only quotes and brackets are
    looked at (a loop over every character cost 0.5 ms of a small release's derive)."""
    depth, quoted = 0, False
    for found in _QUOTE_OR_BRACKET.finditer(source, start):
        i = found.start()
        ch = source[i]
        if ch == '"':
            quoted = quoted if source[i - 1] == "\\" else not quoted
        elif quoted:
            continue
        elif ch == "(":
            depth += 1
        else:
            depth -= 1
            if depth == 0:
                return i
    return -1


_QUOTE_OR_BRACKET = re.compile(r'["()]')


def _arguments(raw: str) -> list[str]:
    """Whitespace-separated arguments, a quoted one as one argument without its quotes."""
    return [q if q else b for q, b in re.findall(r'"((?:[^"\\]|\\.)*)"|([^\s"()]+)', raw)]


@dataclass
class _Branch:
    bounds: list[CudaBound]
    guards: list[str]
    opaque: bool  # an else of a condition whose negation is not a bound list


@dataclass
class _Frame:
    """One if() block: the branches seen so far; the current one is the last."""

    previous: list[_Branch] = field(default_factory=list)
    current: _Branch = field(default_factory=lambda: _Branch([], [], False))


def _condition(raw: str) -> _Branch:
    """An if()'s condition: its CUDA bounds when it is a conjunction, the rest as guards."""
    text = " ".join(raw.split())
    terms = [t.strip() for t in re.split(r"\bAND\b", text)] if not re.search(r"\bOR\b", text) else [text]
    bounds: list[CudaBound] = []
    guards: list[str] = []
    for term in terms:
        found = _VERSION.fullmatch(term.strip("() "))
        if found is not None:
            op = _OPS[found[2]]
            bounds.append(CudaBound(op=_NEGATED[op] if found[1] else op, version=found[3]))
        elif not _TRIVIAL.match(term) and "VLLM_GPU_LANG" not in term:  # the CUDA build: GPU_LANG is CUDA
            guards.append(term)
    return _Branch(bounds, guards, False)


def negate(branch: _Branch) -> _Branch:
    """An else of one branch: a single bound negates to a bound; anything else is kept as written, negated."""
    if len(branch.bounds) == 1 and not branch.guards and not branch.opaque:
        bound = branch.bounds[0]
        return _Branch([CudaBound(op=_NEGATED[bound.op], version=bound.version)], [], False)
    if not branch.bounds:
        return _Branch([], [f"NOT ({g})" for g in branch.guards], branch.opaque)
    return _Branch([], ["NOT (" + " AND ".join([*_written(branch.bounds), *branch.guards]) + ")"], True)


def _written(bounds: list[CudaBound]) -> list[str]:
    return [f"CUDA {b.op} {b.version}" for b in bounds]


def _in_force(stack: list[_Frame]) -> _Branch:
    bounds: list[CudaBound] = []
    guards: list[str] = []
    for frame in stack:
        for earlier in frame.previous:
            negated = negate(earlier)
            bounds += negated.bounds
            guards += negated.guards
        bounds += frame.current.bounds
        guards += frame.current.guards
    return _Branch(bounds, guards, False)


def extract_cuda_archs(tree: SourceTree) -> Extracted[list[CudaArchs]]:
    if not tree.exists(CMAKE):
        return Extracted([], note=f"No {CMAKE} in this tree (an installed vllm/ has none): no CUDA arch lists.")
    stack: list[_Frame] = []
    open_: dict[str, list[ArchBranch]] = {}  # family -> branches since its last compilation
    lists: dict[str, list[str]] = {}
    found: list[CudaArchs] = []
    seen: dict[str, int] = {}

    def close(name: str, sources: list[str], built_if: list[CudaBound], at: int | None) -> None:
        branches = open_.pop(name, [])
        if not branches:
            return
        seen[name] = seen.get(name, 0) + 1
        entry_name = name if seen[name] == 1 else f"{name}#{seen[name]}"
        found.append(
            CudaArchs(
                name=entry_name, provenance=tree.provenance(CMAKE, branches[0].line), branches=branches,
                sources=sources, built_if=built_if, compiled_at=tree.provenance(CMAKE, at) if at else None,
            )
        )  # fmt: skip

    for command in commands(tree.read_text(CMAKE)):
        if command.name == "if":
            stack.append(_Frame(current=_condition(command.raw)))
        elif command.name == "elseif" and stack:
            stack[-1].previous.append(stack[-1].current)
            stack[-1].current = _condition(command.raw)
        elif command.name == "else" and stack:
            stack[-1].previous.append(stack[-1].current)
            stack[-1].current = _Branch([], [], False)
        elif command.name == "endif" and stack:
            stack.pop()
        elif command.name == "cuda_archs_loose_intersection" and len(command.args) >= 2:
            name = command.args[0]
            if name != "CUDA_ARCHS":
                _open(open_, close, name, command.args[1], command.line, _in_force(stack))
        elif command.name == "set" and command.args:
            name, values = command.args[0], command.args[1:]
            if name == SUPPORTED and values:
                _open(open_, close, name, values[0], command.line, _in_force(stack))
            elif values and all(v.endswith((".cu", ".cpp")) or _REF.match(v) for v in values):
                lists[name] = [s for v in values for s in _expanded(v, lists)]
        elif command.name == "set_gencode_flags_for_srcs":
            srcs, archs = _keyword(command.args, "SRCS"), _keyword(command.args, "CUDA_ARCHS")
            family = _REF.match(archs or "")
            if family is not None and family[1] in open_:
                ref = _REF.match(srcs or "")
                sources = lists.get(ref[1], [srcs or ""]) if ref is not None else [srcs or ""]
                close(family[1], sources, _in_force(stack).bounds, command.line)
    for name in list(open_):
        close(name, [], [], None)
    return Extracted(sorted(found, key=lambda e: e.provenance.line))


def _open(open_: dict[str, list[ArchBranch]], close: object, name: str, archs: str, at: int, where: _Branch) -> None:
    """One more branch of a family; a family assigned again after an unconditional branch starts a new block."""
    branches = open_.setdefault(name, [])
    if branches and not branches[-1].cuda and not branches[-1].guards and callable(close):
        close(name, [], [], None)
        branches = open_.setdefault(name, [])
    branches.append(
        ArchBranch(archs=[a for a in archs.split(";") if a], cuda=where.bounds, guards=where.guards, line=at)
    )


def _expanded(value: str, lists: dict[str, list[str]]) -> list[str]:
    """`${X}` as the source list X holds (as written when X is no list read here)."""
    ref = _REF.match(value)
    return lists.get(ref[1], [value]) if ref is not None else [value]


def _keyword(args: list[str], key: str) -> str | None:
    return args[args.index(key) + 1] if key in args and args.index(key) + 1 < len(args) else None
