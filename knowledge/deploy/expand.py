"""Parameter expansion the way a shell (or Kubernetes, or compose) does it, as far as the file itself can tell.

A deployment script says `QUANT=fp8` and then `vllm serve m --quantization "$QUANT"`; an
audit that reads `$QUANT` literally reports a valid script as broken. This module replaces
each reference whose value the file gives, and leaves the rest as written, recorded as
unresolved so the audit can say "only known at run time" instead of "vLLM rejects it".

    $X  ${X}                  the value; unresolved when the file never sets X
    ${X:-word}  ${X-word}     the value, else `word` (itself expanded), recorded as a default taken
    ${X:=word}  ${X=word}     the same, and X keeps `word` from then on
    ${X:+word}  ${X+word}     `word` when X is set; unresolved when X is unknown
    $(cmd)  `cmd`  $((...))   unresolved: the file cannot say what a command prints
    $1 $@ $* $# $? $$ $!      unresolved: the script's arguments and the shell's state

Quoting is honoured: nothing expands inside single quotes; a value expanded outside
double quotes is split into words, as the shell splits it. An unresolved reference that
stands alone, unquoted, may become any number of words: `place_standalone` keeps it
where one word is expected (a flag's value, the model after `serve`) and drops it
elsewhere, reported, since the words it adds cannot be checked; `"$@"` and `$*` are
always dropped. The output is text for `shlex` in POSIX mode, every inserted value
quoted for it.

Expansion is where a few bytes become many: `B=$A$A` doubles a value per line (thirty
lines make a gigabyte), a Kubernetes env value can repeat `$(A)` a hundred thousand times,
and a YAML alias can hand one script to a thousand containers. So every character scanned
or inserted is charged to one Budget per file, and defaults nest at most MAX_NESTING deep;
past either the file is refused, never half-read. What the file produces is counted against the
same Budget: containers found (an anchored list of 1,000 containers under 7,000 pods is seven
million of them from 248 KB) and invocations, each charged as it is found, so the cost stops at
the bound instead of after the whole expansion.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import MutableMapping
from dataclasses import dataclass, field

from vllm_quant_mcp.knowledge.errors import InvalidInputError

__all__ = [
    "EXPANSION_BUDGET",
    "MAX_CONTAINERS",
    "MAX_INVOCATIONS",
    "MAX_NESTING",
    "Budget",
    "Expanded",
    "ExpansionLimitError",
    "expand_kubernetes",
    "expand_line",
    "expand_template",
    "place_standalone",
]

EXPANSION_BUDGET = 2_000_000  # characters scanned and inserted per file: twice the largest file read
# A deployment starts vLLM a few times; each invocation is checked against the tag (and every release it crosses).
MAX_INVOCATIONS = 100
MAX_CONTAINERS = 1_000  # containers per file, counted each time an alias repeats them
MAX_NESTING = 8  # ${A:-${B:-...}} levels; each level rescans the one inside it

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SPECIAL = frozenset("0123456789@*#?$!-")
_WORD_END = frozenset(" \t\n;&|<>)")
_OPERATOR = re.compile(r"^(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?:(?P<op>:?[-=+?])(?P<word>.*))?$", re.DOTALL)
_MARKER = re.compile("\x00([0-9]+)\x00")
_KUBERNETES_REF = re.compile(r"\$\$|\$\((?P<name>[A-Za-z_][A-Za-z0-9_]*)\)")


class ExpansionLimitError(InvalidInputError):
    """Expanding the file's variables would cost more than any deployment file needs; the message says where."""


class Budget:
    """What expanding one file may cost in all, shared by every line, container and script read from it."""

    def __init__(self, chars: int = EXPANSION_BUDGET) -> None:
        self.chars = chars
        self.left = chars
        self.containers = 0
        self.invocations = 0

    def found_containers(self, count: int) -> None:
        self.containers += count
        if self.containers > MAX_CONTAINERS:
            raise ExpansionLimitError(
                f"The file holds more than {MAX_CONTAINERS:,} containers once its YAML aliases are followed (a list "
                "of containers referenced under many workloads repeats it for each); the audit reads up to "
                f"{MAX_CONTAINERS:,}. Audit the manifest of one deployment."
            )

    def found_invocation(self) -> None:
        self.invocations += 1
        if self.invocations > MAX_INVOCATIONS:
            raise ExpansionLimitError(
                f"The file starts vLLM more than {MAX_INVOCATIONS} times; the audit checks up to {MAX_INVOCATIONS} "
                "invocations per file. Audit the file in parts, or pass the script or manifest of one deployment."
            )

    def spend(self, chars: int) -> None:
        self.left -= chars
        if self.left < 0:
            raise ExpansionLimitError(
                f"Expanding the file's variables passes {self.chars:,} characters: a variable built from copies "
                "of another (`B=$A$A`, doubling per line) or a script repeated through YAML aliases. No deployment "
                "file needs that; write the values out, or audit the file without the generated part."
            )


@dataclass
class Expanded:
    """A line after expansion, with what could not be resolved and what took a default."""

    text: str
    unresolved: list[str] = field(default_factory=list)  # references left as written, e.g. "$QUANT", "$(nproc)"
    standalone: list[tuple[str, bool]] = field(default_factory=list)  # (reference, always a list) marked in text
    defaults: list[tuple[str, str]] = field(default_factory=list)  # (reference, the default value it took)
    used: list[str] = field(default_factory=list)  # names whose known value was inserted


class _Scanner:
    """One pass over a line, tracking quotes; `known` holds the variables set so far (and gets `:=` assignments)."""

    def __init__(self, line: str, known: MutableMapping[str, str], budget: Budget, depth: int = 0) -> None:
        budget.spend(len(line))
        self.line = line
        self.known = known
        self.budget = budget
        self.depth = depth
        self.out: list[str] = []
        self.result = Expanded(text="")
        self.quote: str | None = None

    def run(self) -> Expanded:
        line, i = self.line, 0
        while i < len(line):
            char = line[i]
            if self.quote == "'":
                self.quote = None if char == "'" else self.quote
                self.out.append(char)
                i += 1
            elif char == "\\":
                self.out.append(line[i : i + 2])
                i += 2
            elif char == "#" and self.quote is None and self._word_start(i):
                self.out.append(line[i:])  # a comment: shlex drops it, nothing in it expands
                break
            elif char == '"' and self.quote is None and self._spread_quoted(i):
                end = line.index('"', i + 1) + 1
                i = self._mark(line[i + 1 : end - 1], end, always_list=True)
            elif char in "'\"" and self.quote is None:
                self.quote = char
                self.out.append(char)
                i += 1
            elif char == '"':
                self.quote = None
                self.out.append(char)
                i += 1
            elif char == "$" or char == "`":
                i = self._reference(i)
            else:
                self.out.append(char)
                i += 1
        self.result.text = "".join(self.out)
        return self.result

    def _word_start(self, i: int) -> bool:
        return i == 0 or self.line[i - 1] in " \t"

    def _word_end(self, end: int) -> bool:
        return end >= len(self.line) or self.line[end] in _WORD_END

    def _spread_quoted(self, i: int) -> bool:
        """`"$@"` (or `"${@}"`, `"$*"`) standing alone: the script's arguments, any number of words."""
        for form in ('"$@"', '"${@}"', '"$*"', '"${*}"'):
            if self.line.startswith(form, i) and self._word_start(i) and self._word_end(i + len(form)):
                return True
        return False

    def _mark(self, text: str, end: int, always_list: bool) -> int:
        """A standalone unresolved reference: a marker word that `place_standalone` keeps or drops."""
        self.result.unresolved.append(text)
        self.out.append(f"\x00{len(self.result.standalone)}\x00")
        self.result.standalone.append((text, always_list))
        return end

    def _reference(self, i: int) -> int:
        """Expand the reference at line[i] ($ or a backtick); returns where scanning resumes."""
        line = self.line
        if line[i] == "`":
            end = line.find("`", i + 1)
            end = len(line) if end < 0 else end + 1
            return self._unresolved(i, end)
        following = line[i + 1 : i + 2]
        if following == "(":
            return self._unresolved(i, _closing(line, i + 1, "(", ")"))
        if following == "{":
            end = _closing(line, i + 1, "{", "}")
            return self._braced(i, end)
        if following in _SPECIAL and following:
            return self._unresolved(i, i + 2)
        match = _NAME.match(line, i + 1)
        if match is None:
            self.out.append("$")
            return i + 1
        name = match.group()
        if name in self.known:
            self.result.used.append(name)
            self._insert(self.known[name])
            return match.end()
        return self._unresolved(i, match.end())

    def _braced(self, i: int, end: int) -> int:
        text = self.line[i:end]
        parsed = _OPERATOR.match(text[2:-1]) if text.endswith("}") else None
        if parsed is None:
            return self._unresolved(i, end)
        name, op, word = parsed["name"], parsed["op"], parsed["word"] or ""
        value = self.known.get(name)
        empty_counts = bool(op) and op.startswith(":")
        is_set = value is not None and not (empty_counts and value == "")
        if not op:
            if value is None:
                return self._unresolved(i, end)
            self.result.used.append(name)
            return self._value(value, end)
        kind = op[-1]
        if kind == "+":
            if value is None:
                return self._unresolved(i, end)
            return self._value(self._nested(word) if is_set else "", end)
        if is_set:
            assert value is not None
            self.result.used.append(name)
            return self._value(value, end)
        if kind == "?":
            return self._unresolved(i, end)
        default = self._nested(word)
        if kind == "=":
            self.known[name] = default
        self.result.defaults.append((text, default))
        return self._value(default, end)

    def _nested(self, word: str) -> str:
        """A default or alternate word, itself expanded (`${A:-$B}`), as the value it stands for."""
        inner = _one_word(word, self.known, self.budget, self.depth + 1)
        self.result.unresolved += inner.unresolved
        self.result.defaults += inner.defaults
        self.result.used += inner.used
        return inner.text

    def _value(self, value: str, end: int) -> int:
        self._insert(value)
        return end

    def _insert(self, value: str) -> None:
        self.budget.spend(len(value))
        if self.quote == '"':
            self.out.append(value.replace("\\", "\\\\").replace('"', '\\"'))
        else:  # unquoted: the shell splits the value into words and does not read quotes inside it
            self.out.append(" ".join(shlex.quote(w) for w in value.split()))

    def _unresolved(self, start: int, end: int) -> int:
        text = self.line[start:end]
        if self.quote is None and self._word_start(start) and self._word_end(end):
            return self._mark(text, end, always_list=text in ("$@", "$*", "${@}", "${*}"))
        self.result.unresolved.append(text)
        self._insert_literal(text)
        return end

    def _insert_literal(self, text: str) -> None:
        if self.quote == '"':
            self.out.append(text.replace("\\", "\\\\").replace('"', '\\"'))
        else:
            self.out.append(shlex.quote(text))


def _closing(line: str, start: int, opening: str, closing: str) -> int:
    """The index after the bracket that closes line[start] (nesting counted); the line's end if none does."""
    depth = 0
    for j in range(start, len(line)):
        if line[j] == opening:
            depth += 1
        elif line[j] == closing:
            depth -= 1
            if depth == 0:
                return j + 1
    return len(line)


def _one_word(text: str, known: MutableMapping[str, str], budget: Budget, depth: int = 0) -> Expanded:
    """`text` expanded as if inside double quotes: one word, never split, no marker; `text` of the result is the
    word itself (no shell quoting left)."""
    if depth > MAX_NESTING:
        raise ExpansionLimitError(
            f"A default nests over {MAX_NESTING} levels deep (`${{A:-${{B:-...}}}}`); no deployment file needs "
            "that. Write the value out."
        )
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    scanner = _Scanner(escaped, known, budget, depth)
    scanner.quote = '"'
    inner = scanner.run()
    try:
        words = shlex.split(f'"{inner.text}"')
    except ValueError:
        words = []
    inner.text = words[0] if words else text
    return inner


def expand_line(line: str, known: MutableMapping[str, str], budget: Budget) -> Expanded:
    """Expand one logical shell line with the variables set so far; `${X:=word}` assigns into `known`."""
    return _Scanner(line, known, budget).run()


def place_standalone(words: list[str], expanded: Expanded) -> tuple[list[str], list[str]]:
    """Resolve the markers of standalone references in shell words: kept as written where one word is
    expected (right after an option without `=`, or the model after `serve`), dropped elsewhere.

    Returns the words and the references dropped.
    """
    out: list[str] = []
    dropped: list[str] = []
    for word in words:
        marker = _MARKER.fullmatch(word)
        if marker is None:
            out.append(_MARKER.sub(lambda m: expanded.standalone[int(m[1])][0], word))
            continue
        text, always_list = expanded.standalone[int(marker[1])]
        previous = out[-1] if out else ""
        one_word = previous == "serve" or (previous.startswith("-") and "=" not in previous)
        if one_word and not always_list:
            out.append(text)
        else:
            dropped.append(text)
    return out, dropped


def expand_kubernetes(word: str, env: MutableMapping[str, str], budget: Budget) -> Expanded:
    """A container's command or args word: Kubernetes replaces `$(VAR)` from the container env, `$$` with `$`.

    `${VAR}` and `$VAR` are not Kubernetes syntax (vLLM would receive them as written) but
    templating tools fill them in before the manifest is applied; they are read here like
    the shell reads them inside double quotes (one word, never split), with the container
    env as the known variables.
    """
    result = Expanded(text="")

    def replace(match: re.Match[str]) -> str:
        if match.group() == "$$":
            return "\x00"
        name = match["name"]
        if name in env:
            budget.spend(len(env[name]))
            return env[name].replace("$", "\x00")
        result.unresolved.append(match.group())
        return "\x00" + match.group()[1:]

    replaced = _KUBERNETES_REF.sub(replace, word)
    if "$" in replaced:
        inner = _one_word(replaced, env, budget)
        replaced = inner.text
        result.unresolved += inner.unresolved
        result.defaults += inner.defaults
        result.used += inner.used
    result.text = replaced.replace("\x00", "$")
    return result


def expand_template(text: str, known: MutableMapping[str, str], budget: Budget) -> Expanded:
    """A YAML value as compose (or a template tool) interpolates it: `${VAR:-default}` and `$VAR`, `$$` a literal
    `$`; one string, never split (compose splits a command string afterwards)."""
    inner = _one_word(text.replace("$$", "\x00"), known, budget)
    inner.text = inner.text.replace("\x00", "$")
    return inner
