"""The CLI's argument parser, with the habits people know from gh and uv.

- A mistyped command or option names the nearest ones ("did you mean 'registry'?").
- An error about a subcommand's arguments prints that subcommand's usage, not the top level's.
- Messages written for the MCP side name parameters as the model sees them (`fixed_string=true`,
  `path_glob`); `spelled` rewrites them to the flags the shell user types (`--fixed-string`).
"""

from __future__ import annotations

import argparse
import difflib
import re
import sys
from collections.abc import Iterable, Sequence
from typing import Any, NoReturn

from vllm_quant_mcp.knowledge.echo import clip

__all__ = ["Parser", "nearest", "reject_unknown", "spelled"]


def nearest(word: str, choices: Iterable[str], cutoff: float = 0.6) -> list[str]:
    """The closest choices to a mistyped word, best first."""
    return difflib.get_close_matches(word, list(choices), n=3, cutoff=cutoff)


def _did_you_mean(found: list[str]) -> str:
    return f"; did you mean {' or '.join(repr(f) for f in found)}?" if found else ""


class Parser(argparse.ArgumentParser):
    """argparse with suggestions for invalid choices (commands included) and one error line per problem."""

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        choices = action.choices
        if choices is None or value in choices:
            return
        names = [str(c) for c in choices]
        if isinstance(action, argparse._SubParsersAction):
            message = f"unknown command {clip(value)}{_did_you_mean(nearest(str(value), names))}"
            raise argparse.ArgumentError(action, f"{message} (commands: {', '.join(names)})")
        message = f"invalid choice {clip(value)}{_did_you_mean(nearest(str(value), names))}"
        raise argparse.ArgumentError(action, f"{message} (choose from {', '.join(names)})")

    def error(self, message: str) -> NoReturn:
        """Usage of this (sub)command, then `prog: error: message`, exit 2 (argparse's convention)."""
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {message}\n")


def reject_unknown(parser: argparse.ArgumentParser, extras: Sequence[str]) -> NoReturn:
    """Refuse words no option took, in the usage of the subcommand they were given to, with the nearest options."""
    options = [s for action in parser._actions for s in action.option_strings]
    hints = []
    for word in extras:
        if word.startswith("-"):
            found = nearest(word.split("=", 1)[0], options)
            if found:
                hints.append(f"{word.split('=', 1)[0]}: did you mean {' or '.join(found)}?")
    parser.error(f"unrecognized arguments: {' '.join(extras)}" + (f" ({'; '.join(hints)})" if hints else ""))


_QUOTED = r"""(?:'[^']*'|"[^"]*"|[^\s,;.)]+)"""


def spelled(text: str, flags: dict[str, str], booleans: set[str]) -> str:
    """`text` with the query field names it mentions written as CLI flags.

    `name=true` becomes the flag alone (for a boolean), `name='value'` becomes `--flag value`,
    and a bare snake_case name becomes its flag. Plain words that happen to be field names
    (`tag`, `model`) are left alone: only the `name=` form or a name with an underscore is
    unmistakably a parameter.
    """
    for name, flag in sorted(flags.items(), key=lambda item: -len(item[0])):
        if not flag.startswith("-"):
            continue

        def assignment(match: re.Match[str], flag: str = flag, name: str = name) -> str:
            value = match["value"].strip("'\"")
            if name in booleans:
                return flag if value.lower() == "true" else f"no {flag}"
            return f"{flag} {value}"

        text = re.sub(rf"(?<![\w-]){re.escape(name)}=(?P<value>{_QUOTED})", assignment, text)
        if "_" in name:
            text = re.sub(rf"(?<![\w-]){re.escape(name)}(?![\w=-])", flag, text)
    return text
