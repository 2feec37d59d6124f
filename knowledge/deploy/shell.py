"""The `vllm serve` invocations of a shell script, with the variables it sets expanded as the shell would.

Lines are read in order: `X=...` and `export X=...` set variables (exported ones reach
the server's environment), backslash continuations are joined, `$X`/`${X:-default}` are
expanded (knowledge/deploy/expand.py), and each simple command (split at `;`, `&&`, `|`)
that runs `vllm serve`, the API server module or `docker run vllm/vllm-openai` is one
invocation. A `pip install vllm==X` anywhere pins the release.
"""

from __future__ import annotations

import re
import shlex

from .expand import Budget, Expanded, expand_line, place_standalone
from .invocation import (
    IMAGE,
    MAX_LINE_CHARS,
    DeployFileError,
    Invocation,
    image_invocation,
    program_index,
    record_expansion,
)

__all__ = ["shell_invocations"]

_PIP_PIN = re.compile(r"\bvllm==(?P<version>\d+\.\d+\.\d+(?:\.post\d+|rc\d+)?)")
_ASSIGNMENT = re.compile(r"^(?P<name>[A-Za-z_][A-Za-z0-9_]*)=(?P<value>.*)$", re.DOTALL)
_OPERATORS = frozenset({"|", "||", "&", "&&", ";", ";;", ">", ">>", "<", ">&", "<&", "&>", "(", ")"})
_WRAPPERS = frozenset({"exec", "nohup", "time", "env", "command"})
_HEREDOC = re.compile(r"(?<!<)<<(?P<dash>-?)[ \t]*(?P<q>['\"]?)(?P<word>[A-Za-z_][A-Za-z0-9_]*)(?P=q)")
# References a line may use, its variables' own included; each is matched against the line's values.
MAX_REFERENCES = 1_000


def _logical_lines(text: str) -> list[tuple[int, str]]:
    """Lines with backslash continuations joined, each with the number of its first physical line; the bodies
    of here-documents (`cat <<EOF ... EOF`) are data, not commands, and are left out."""
    out: list[tuple[int, str]] = []
    pending: list[str] = []
    bodies: list[tuple[str, bool]] = []  # (delimiter, tabs stripped) of the here-documents still open
    start = 0
    for number, line in enumerate(text.splitlines(), 1):
        if bodies:
            delimiter, strip_tabs = bodies[0]
            if (line.lstrip("\t") if strip_tabs else line) == delimiter:
                bodies.pop(0)
            continue
        if not pending:
            start = number
        if line.endswith("\\") and not line.endswith("\\\\"):
            pending.append(line[:-1])
            continue
        pending.append(line)
        joined = " ".join(pending)
        out.append((start, joined))
        if not joined.lstrip().startswith("#"):
            bodies = [(m["word"], bool(m["dash"])) for m in _HEREDOC.finditer(joined)]
        pending = []
    if pending:
        out.append((start, " ".join(pending)))
    return out


def _words(line: str) -> list[str] | None:
    lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    lexer.commenters = "#"
    try:
        return list(lexer)
    except ValueError:
        return None


class _ShellState:
    """What the script has set so far: every variable the shell can expand, and the exported ones."""

    def __init__(self, inherited: dict[str, str]) -> None:
        self.variables = dict(inherited)
        self.env = dict(inherited)
        self.unexported: set[str] = set()
        self.unresolved: dict[str, list[str]] = {}  # a variable whose value holds references the file never set
        self.defaults: dict[str, list[tuple[str, str]]] = {}  # a variable whose value came from a default

    def remember(self, words: list[str], expanded: Expanded) -> None:
        """Which assigned values carry unresolved references (`MODEL=$BASE/llama`) or defaults (`TP=${TP:-2}`),
        so the lines that use them say so."""
        self.carry(expanded)
        for word in words:
            name, _, value = word.partition("=")
            self.unresolved[name] = [u for u in expanded.unresolved if u in value]
            self.defaults[name] = [d for d in expanded.defaults if d[1] in value]

    def carry(self, expanded: Expanded) -> None:
        """Add to a line's expansion what the variables it used carried from the lines that set them."""
        unresolved, defaults = dict.fromkeys(expanded.unresolved), dict.fromkeys(expanded.defaults)
        for name in dict.fromkeys(expanded.used):
            unresolved.update(dict.fromkeys(self.unresolved.get(name, [])))
            defaults.update(dict.fromkeys(self.defaults.get(name, [])))
        if len(unresolved) + len(defaults) > MAX_REFERENCES:
            raise DeployFileError(
                f"A line uses {len(unresolved) + len(defaults):,} variable references (its variables' own "
                f"included); the audit reads up to {MAX_REFERENCES:,} per line. Write the values out."
            )
        expanded.unresolved[:], expanded.defaults[:] = list(unresolved), list(defaults)

    def export(self, words: list[str]) -> None:
        for word in words:
            if (m := _ASSIGNMENT.match(word)) is not None:
                self.variables[m["name"]] = self.env[m["name"]] = m["value"]
                self.unexported.discard(m["name"])
            elif word in self.variables:
                self.env[word] = self.variables[word]
                self.unexported.discard(word)

    def assign(self, words: list[str]) -> None:
        for word in words:
            name, _, value = word.partition("=")
            self.variables[name] = value
            if name in self.env:  # assigning an exported variable changes what the process sees
                self.env[name] = value
            elif name.startswith("VLLM_"):
                self.unexported.add(name)


def shell_invocations(text: str, offset: int, inherited: dict[str, str], budget: Budget) -> list[Invocation]:
    """Invocations in a script; `offset` shifts line numbers for scripts embedded in YAML, `inherited` is the env
    the script starts with (a container's); `budget` is the file's, shared with any other script in it."""
    state = _ShellState(inherited)
    pin = _pip_pin(text)
    found: list[Invocation] = []
    for number, line in _logical_lines(text):
        expanded = expand_line(line, state.variables, budget)
        if len(expanded.text) > MAX_LINE_CHARS:
            raise DeployFileError(
                f"Line {number + offset} is {len(expanded.text):,} characters once its variables are expanded; the "
                f"audit reads lines up to {MAX_LINE_CHARS:,}. Write shorter values, or audit the file without it."
            )
        words = _words(expanded.text)
        if not words:
            continue
        words, dropped = place_standalone(words, expanded)
        if words[0] == "export":
            state.remember([w for w in words[1:] if "=" in w], expanded)
            state.export(words[1:])
            continue
        if all(_ASSIGNMENT.match(w) for w in words):
            state.remember(words, expanded)
            state.assign(words)
            continue
        state.carry(expanded)
        for segment in _segments(words):
            inv = _invocation(segment, number + offset, state.env, pin)
            if inv is None:
                continue
            missing = sorted(n for n in state.unexported if n not in inv.env)
            if missing:
                inv.notes.append(
                    f"{', '.join(missing)} assigned without `export`: the vLLM process does not see "
                    f"{'it' if len(missing) == 1 else 'them'}."
                )
            budget.found_invocation()
            found.append(_with_expansion(inv, expanded, dropped))
    return found


def _with_expansion(inv: Invocation, expanded: Expanded, dropped: list[str]) -> Invocation:
    """Only the references that ended up in this invocation's command or env concern it."""
    seen = inv.command + " " + " ".join(inv.env.values())
    mine = Expanded(
        text=expanded.text,
        unresolved=[u for u in expanded.unresolved if u in seen],
        defaults=expanded.defaults,
    )
    return record_expansion(inv, [mine], dropped)


def _segments(words: list[str]) -> list[list[str]]:
    """Simple commands split at shell operators; a redirection drops its target and its fd number (`2>&1`)."""
    out: list[list[str]] = [[]]
    skip = False
    for i, word in enumerate(words):
        following = words[i + 1] if i + 1 < len(words) else ""
        if skip or (word.isdigit() and following[:1] in ("<", ">")):
            skip = False
            continue
        if word in _OPERATORS or word[:1] in ("<", ">"):
            skip = word[:1] in ("<", ">") or word == "&>"
            out.append([])
            continue
        out[-1].append(word)
    return [s for s in out if s]


def _invocation(words: list[str], line: int, env: dict[str, str], pin: tuple[str, str] | None) -> Invocation | None:
    prefix: dict[str, str] = {}
    i = 0
    while i < len(words) and (words[i] in _WRAPPERS or _ASSIGNMENT.match(words[i])):
        if (m := _ASSIGNMENT.match(words[i])) is not None:
            prefix[m["name"]] = m["value"]
        i += 1
    rest = words[i:]
    if not rest:
        return None
    if rest[0] == "docker" and "run" in rest[:3]:
        return _docker_run(rest, line, env)
    if program_index(rest) != 0:
        return None
    return Invocation(
        where=f"line {line}",
        line=line,
        command=shlex.join(rest),
        env={**env, **prefix},
        pinned_tag=pin[0] if pin else None,
        pinned_by=pin[1] if pin else None,
    )


def _docker_run(words: list[str], line: int, env: dict[str, str]) -> Invocation | None:
    """`docker run [options] vllm/vllm-openai:TAG [args]`: the image's entrypoint is `vllm serve`."""
    container_env: dict[str, str] = {}
    for i, word in enumerate(words):
        value = None
        if word in ("-e", "--env") and i + 1 < len(words):
            value = words[i + 1]
        elif word.startswith("--env="):
            value = word[len("--env=") :]
        if value is not None:
            name, eq, given = value.partition("=")
            container_env[name] = given if eq else env.get(name, "")
        if IMAGE.match(word):
            return image_invocation(f"line {line}", line, word, words[i + 1 :], container_env)
    return None


def _pip_pin(text: str) -> tuple[str, str] | None:
    m = _PIP_PIN.search(text)
    return (f"v{m['version']}", f"pip pin vllm=={m['version']}") if m else None
