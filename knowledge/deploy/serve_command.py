"""A `vllm serve ...` line as data: which program, which model, which flags in which form.

Operators paste what they run: env assignments in front, backslash-continued lines,
JSON in single quotes, `--flag=value` next to `--flag value`, dotted sub-keys
(`--quantization-config.linear mxfp8`). This module reads all of that the way bash
and vLLM's FlexibleArgumentParser would, without knowing any flag of any release:
checking names against a registry is the caller's job. The one thing syntax cannot
settle is whether `--flag word` is a boolean followed by a positional, so callers
that know the boolean flags of a tag pass them as `bare_flags`.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Collection
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from vllm_quant_mcp.knowledge.echo import clip
from vllm_quant_mcp.knowledge.errors import InvalidInputError

__all__ = [
    "API_SERVER_MODULE",
    "MAX_FLAGS",
    "MAX_JSON_DEPTH",
    "FlagForm",
    "Program",
    "ServeCommand",
    "ServeCommandError",
    "ServeFlag",
    "canonical_flag_name",
    "parse_serve_command",
]

API_SERVER_MODULE = "vllm.entrypoints.openai.api_server"
Program = Literal["vllm serve", "python -m vllm.entrypoints.openai.api_server"]
FlagForm = Literal["equals", "separate", "bare", "negated", "attached"]

_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_NUMBER = re.compile(r"^-\.?\d")
_PYTHON = re.compile(r"^python(\d+(\.\d+)?)?$")
_OPERATOR_CHARS = frozenset(";&|<>")
_OPTIMIZATION_LEVEL = "--optimization-level"
# vLLM defines about 320 serve flags; a command past this many is generated, and each flag costs a check per release.
MAX_FLAGS = 1_000
# vLLM's JSON-valued flags nest a few levels; past this a value is hostile (it would exhaust the parser's stack).
MAX_JSON_DEPTH = 32


class ServeCommandError(InvalidInputError):
    """The text is not one `vllm serve` command a shell could run; the message says what is wrong."""


class ServeFlag(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str = Field(
        description="Canonical option as vLLM sees it: underscores before the first '.' become dashes "
        "(--max_model_len -> --max-model-len), -O3 becomes --optimization-level; dotted sub-keys kept."
    )
    written: str = Field(description="The option exactly as typed, e.g. -q or --quantization_config.linear.")
    value: str | None = Field(description="The value after shell unquoting; None for a bare boolean or --no- form.")
    json_value: Any = Field(default=None, description="The value decoded as JSON, where it is JSON.")
    json_error: str | None = Field(default=None, description="Why a value that opens like JSON does not decode.")
    tokens: list[str] = Field(description="The shell words this flag took, after unquoting.")
    form: FlagForm

    @property
    def option(self) -> str:
        """The flag without dotted sub-keys: --quantization-config for --quantization-config.linear."""
        return self.name.split(".", 1)[0]

    @property
    def path(self) -> tuple[str, ...]:
        """The dotted sub-keys: ("linear",) for --quantization-config.linear."""
        return tuple(self.name.split(".")[1:])


class ServeCommand(BaseModel):
    model_config = ConfigDict(frozen=True)

    program: Program
    program_tokens: list[str] = Field(description="The words that named the program, e.g. ['/opt/bin/vllm', 'serve'].")
    env: dict[str, str] = Field(description="VAR=value assignments written before the program.")
    model: str | None = Field(description="The positional model or the --model value; None when neither is given.")
    model_source: Literal["positional", "flag"] | None
    flags: list[ServeFlag] = Field(description="Every flag in command-line order, --model included.")
    argv: list[str] = Field(description="All shell words after the program, in order.")

    def find(self, option: str) -> list[ServeFlag]:
        """The flags whose canonical option (dotted sub-keys dropped) is `option`."""
        return [f for f in self.flags if f.option == option]


def canonical_flag_name(written: str) -> str:
    """vLLM's spelling of an option: between '--' and the first '.', underscores become dashes."""
    if not written.startswith("--"):
        return written
    head, dot, rest = written[2:].partition(".")
    return f"--{head.replace('_', '-')}{dot}{rest}"


def parse_serve_command(text: str, bare_flags: Collection[str] = ()) -> ServeCommand:
    """Parse one `vllm serve` command line; raise ServeCommandError naming what cannot be read."""
    words = _shell_words(text)
    env, program, program_tokens, rest = _split_program(words, text)
    flags, positionals = _read_arguments(rest, frozenset(bare_flags))
    model, source = _model(program, flags, positionals)
    return ServeCommand(
        program=program,
        program_tokens=program_tokens,
        env=env,
        model=model,
        model_source=source,
        flags=flags,
        argv=rest,
    )


def _shell_words(text: str) -> list[str]:
    """Shell words of one command: continuations joined, comments dropped, quotes removed as bash does."""
    commands = [c for c in _join_lines(text) if c.strip()]
    if not commands:
        raise ServeCommandError("The command line is empty; expected `vllm serve <model> [--flag value ...]`.")
    if len(commands) > 1:
        raise ServeCommandError(
            f"The text holds {len(commands)} commands (the second starts {clip(commands[1].strip(), 40)}); pass one "
            "`vllm serve` command, ending each continued line with a backslash."
        )
    operator = _unquoted_operator(commands[0])
    if operator is not None:
        raise ServeCommandError(
            f"The line uses the shell operator {clip(operator)}; pass the `vllm serve ...` command alone, "
            "without pipes, redirections or `&&`."
        )
    return shlex.split(commands[0], comments=False, posix=True)


def _unquoted_operator(command: str) -> str | None:
    """The first run of shell operator characters outside quotes and escapes, as bash would act on it.

    It must look before shlex.split: that drops the quoting, and a quoted ';' or '&&' inside a
    value (`--x ';'`) is data, not an operator.
    """
    quote: str | None = None
    i = 0
    while i < len(command):
        char = command[i]
        if quote is not None:
            if char == "\\" and quote == '"':
                i += 2
                continue
            quote = None if char == quote else quote
        elif char == "\\":
            i += 2
            continue
        elif char in "'\"":
            quote = char
        elif char in _OPERATOR_CHARS:
            end = i
            while end < len(command) and command[end] in _OPERATOR_CHARS:
                end += 1
            return command[i:end]
        i += 1
    return None


def _join_lines(text: str) -> list[str]:
    """Split into commands at unquoted newlines, after removing backslash-newline and # comments.

    shlex alone cannot do this: it keeps an escaped newline as a character and treats
    '#' inside a word as a comment, where bash drops the first and keeps the second.
    """
    commands: list[str] = []
    out: list[str] = []
    quote: str | None = None
    opened = 0
    word_start = True
    i = 0
    while i < len(text):
        char = text[i]
        if quote == "'":
            out.append(char)
            quote = None if char == "'" else quote
            i += 1
            continue
        if char == "\\":
            following = text[i + 1 : i + 2]
            if following == "\n" or text[i + 1 : i + 3] == "\r\n":
                i += 2 if following == "\n" else 3
                continue
            if not following:
                raise ServeCommandError("The line ends with a lone backslash; remove it or continue the line after it.")
            out.append(text[i : i + 2])
            word_start = False
            i += 2
            continue
        if quote == '"':
            out.append(char)
            quote = None if char == '"' else quote
        elif char in "'\"":
            quote, opened, word_start = char, i, False
            out.append(char)
        elif char == "#" and word_start:
            while i + 1 < len(text) and text[i + 1] != "\n":
                i += 1
        elif char == "\n":
            commands.append("".join(out))
            out, word_start = [], True
        else:
            out.append(char)
            word_start = char.isspace()
        i += 1
    if quote is not None:
        line = text.count("\n", 0, opened) + 1
        column = opened - (text.rfind("\n", 0, opened) + 1) + 1
        raise ServeCommandError(
            f"Unbalanced {quote} quote: the one at line {line}, column {column} ({text[opened : opened + 30]!r}...) "
            f"is never closed; add the closing {quote} or escape it."
        )
    commands.append("".join(out))
    return commands


def _split_program(words: list[str], text: str) -> tuple[dict[str, str], Program, list[str], list[str]]:
    """Env assignments, the program and the words after it."""
    start = 1 if words[0] == "env" else 0
    env: dict[str, str] = {}
    while start < len(words) and _ASSIGNMENT.match(words[start]):
        key, _, value = words[start].partition("=")
        env[key] = value
        start += 1
    for at in range(start, len(words)):
        found = _program_at(words, at)
        if found is None:
            continue
        program, length = found
        if at != start:
            raise ServeCommandError(
                f"{clip(words[start])} comes before `{program}`; only VAR=value assignments may precede it. "
                "Pass the command without wrappers such as nohup, sudo or docker."
            )
        return env, program, words[at : at + length], words[at + length :]
    raise ServeCommandError(
        f"No `vllm serve` command in {clip(text.strip(), 80)}; expected `vllm serve <model> [--flag value ...]` or "
        f"`python -m {API_SERVER_MODULE} --model <model> ...`, optionally after VAR=value assignments."
    )


def _program_at(words: list[str], at: int) -> tuple[Program, int] | None:
    base = words[at].rsplit("/", 1)[-1]
    if base == "vllm" and words[at + 1 : at + 2] == ["serve"]:
        return "vllm serve", 2
    if _PYTHON.match(base) and words[at + 1 : at + 3] == ["-m", API_SERVER_MODULE]:
        return "python -m vllm.entrypoints.openai.api_server", 3
    return None


def _is_option(word: str) -> bool:
    return word.startswith("-") and word != "-" and not _NUMBER.match(word)


def _read_arguments(words: list[str], bare: frozenset[str]) -> tuple[list[ServeFlag], list[str]]:
    options = sum(map(_is_option, words))
    if options > MAX_FLAGS:
        raise ServeCommandError(
            f"The command holds {options:,} flags; a `vllm serve` line is read up to {MAX_FLAGS:,} (vLLM defines "
            "about 320). Remove the repeated or generated flags and check it again."
        )
    flags: list[ServeFlag] = []
    positionals: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        if word == "--":
            positionals.extend(words[i + 1 :])
            break
        if _is_option(word):
            flag = _read_flag(words, i, bare)
            flags.append(flag)
            i += len(flag.tokens)
        else:
            positionals.append(word)
            i += 1
    return flags, positionals


def _read_flag(words: list[str], i: int, bare: frozenset[str]) -> ServeFlag:
    """The flag starting at words[i], taking the next word as its value when it must or may."""
    word = words[i]
    following = words[i + 1] if i + 1 < len(words) else None
    if word.startswith("-O") and not word.startswith("--"):
        if word != "-O":
            level = word[3:] if word[2] == "=" else word[2:]
            return _flag(_OPTIMIZATION_LEVEL, "-O", level, [word], "attached")
        if following in {"0", "1", "2", "3"}:
            return _flag(_OPTIMIZATION_LEVEL, "-O", following, [word, following], "separate")
    if "=" in word:
        written, _, value = word.partition("=")
        return _flag(canonical_flag_name(written), written, value, [word], "equals")
    name = canonical_flag_name(word)
    if "." in name:
        if following is None:
            raise ServeCommandError(f"The dotted flag {word} needs a value after it, e.g. `{word} <value>`.")
        return _flag(name, word, following, [word, following], "separate")
    if name.startswith("--no-"):
        return _flag(name, word, None, [word], "negated")
    if name not in bare and following is not None and not _is_option(following):
        return _flag(name, word, following, [word, following], "separate")
    return _flag(name, word, None, [word], "bare")


def _flag(name: str, written: str, value: str | None, tokens: list[str], form: FlagForm) -> ServeFlag:
    decoded, error = _decode(value, dotted="." in name)
    return ServeFlag(
        name=name, written=written, value=value, json_value=decoded, json_error=error, tokens=tokens, form=form
    )


def _decode(value: str | None, dotted: bool) -> tuple[Any, str | None]:
    """JSON objects and arrays are decoded (and a broken one explained); a dotted value is decoded when it can be."""
    if value is None:
        return None, None
    opens_json = value.lstrip()[:1] in ("{", "[")
    if not (opens_json or dotted):
        return None, None
    depth = _bracket_depth(value)
    if depth > MAX_JSON_DEPTH:
        return (
            None,
            f"JSON nested {depth} levels deep; vLLM's config values nest a few levels (at most {MAX_JSON_DEPTH})",
        )
    try:
        return json.loads(value), None
    except json.JSONDecodeError as exc:
        return None, (f"not valid JSON: {exc.msg} at character {exc.pos}" if opens_json else None)


def _bracket_depth(text: str) -> int:
    """The deepest nesting of [ and { outside JSON strings, in one pass: checked before decoding, since json.loads
    and every walk over its result recurse once per level."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def _model(
    program: Program, flags: list[ServeFlag], positionals: list[str]
) -> tuple[str | None, Literal["positional", "flag"] | None]:
    by_flag = [f.value for f in flags if f.name == "--model" and f.value is not None]
    if len(positionals) > 1 or (positionals and program != "vllm serve"):
        extra = positionals[1:] if program == "vllm serve" else positionals
        raise ServeCommandError(
            f"Unexpected positional argument(s) {extra}: `{program}` takes "
            f"{'one positional model' if program == 'vllm serve' else 'the model only as --model'}. "
            "If a flag before it takes a value, join them as --flag=value; if it is a boolean, put it after the model."
        )
    if positionals and by_flag:
        raise ServeCommandError(
            f"The model is given twice: positional {clip(positionals[0])} and --model {clip(by_flag[0])}; "
            "keep the positional one."
        )
    if positionals:
        return positionals[0], "positional"
    if by_flag:
        return by_flag[-1], "flag"
    return None, None
