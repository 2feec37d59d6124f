"""The CLI reference in the README, written from the parser so it cannot drift from it.

tests/test_readme.py compares the README's block between the markers with `reference()`;
`UPDATE_SNAPSHOTS=1 pytest tests/test_readme.py` rewrites it after a change to a tool's
spec or to the CLI.
"""

from __future__ import annotations

import argparse

__all__ = ["BEGIN", "END", "reference"]

BEGIN = "<!-- cli-reference: generated from the parser by server/cli/reference.py -->"
END = "<!-- /cli-reference -->"
PROG = "vllm-quant-mcp"


def _metavar(action: argparse.Action) -> str:
    if action.metavar is not None:
        return str(action.metavar) if not isinstance(action.metavar, tuple) else " ".join(action.metavar)
    if action.choices is not None and not isinstance(action, argparse._SubParsersAction):
        return "{" + ",".join(str(c) for c in action.choices) + "}"
    return str(action.dest).upper().replace("_", "-")


def _usage(name: str, parser: argparse.ArgumentParser) -> str:
    words = [f"{PROG} {name}".strip()]
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        if isinstance(action, argparse._SubParsersAction):
            words.append("VERB" if name else "COMMAND")
        elif not action.option_strings:
            shown = _metavar(action) if action.nargs != argparse.REMAINDER else "-- FLAG..."
            words.append(shown if action.nargs not in ("?", argparse.REMAINDER) else f"[{shown}]")
        else:
            flag = action.option_strings[-1] if action.option_strings[-1].startswith("--") else action.option_strings[0]
            shown = flag if action.nargs == 0 else f"{flag} {_metavar(action)}"
            words.append(shown if action.required else f"[{shown}]")
    return " ".join(words)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("%%", "%").replace("\n", " ")


def _section(name: str, help_text: str, parser: argparse.ArgumentParser) -> list[str]:
    lines = [f"#### `{PROG} {name}`".replace("  ", " "), "", _cell(help_text), "", "```", _usage(name, parser), "```"]
    rows = []
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction | argparse._SubParsersAction):
            continue
        spelled = ", ".join(f"`{s}`" for s in action.option_strings) or f"`{_metavar(action)}`"
        meaning = action.help or ""
        if action.choices is not None and (action.metavar is not None or not meaning):
            meaning = f"{meaning} One of: {', '.join(str(c) for c in action.choices)}.".strip()
        rows.append(f"| {spelled} | {_cell(meaning)} |")
    if rows:
        lines += ["", "| argument | meaning |", "|---|---|", *rows]
    return [*lines, ""]


def _commands(parser: argparse.ArgumentParser, prefix: str = "") -> list[tuple[str, str, argparse.ArgumentParser]]:
    found = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help or "" for a in action._choices_actions}
            for name, sub in action.choices.items():
                full = f"{prefix} {name}".strip()
                found.append((full, helps.get(name, ""), sub))
                found += _commands(sub, full)
    return found


def reference(parser: argparse.ArgumentParser) -> str:
    """Every command and verb: its help, its usage and a table of its arguments, in parser order."""
    lines = [BEGIN, ""]
    for name, help_text, sub in _commands(parser):
        lines += _section(name, help_text, sub)
    return "\n".join([*lines, END])
