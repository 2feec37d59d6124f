"""A tool's result on stdout: JSON with `schema_version` for scripts, tables or text for people.

`--json` prints the tool's output model (the same shape the MCP tool returns as
structured content) with `schema_version` first; it changes when a field is renamed
or removed (tools/spec.py). People get rich tables where rows are compared (pick, diff,
gates: server/cli/tables.py) and the tool's own text rendering otherwise, in both cases
with the MCP parameter names in its notes rewritten to the flags typed here.
"""

from __future__ import annotations

import argparse
import io
import json
import re
from typing import Any, TextIO

from pydantic import BaseModel

from vllm_quant_mcp.server.cli.inputs import INPUTS
from vllm_quant_mcp.server.cli.parser import spelled
from vllm_quant_mcp.tools.spec import ToolSpec

__all__ = ["TABLE_TOOLS", "human_text", "json_text", "print_result", "spelling"]

# The tools `show` draws as tables (server/cli/tables.py TABLES), named here so the parser adds --wide to them
# without importing the table code.
TABLE_TOOLS = ("pick_format", "diff_tags", "check_gates")


def spelling(spec: ToolSpec[Any, Any] | None, spell: dict[str, str]) -> tuple[dict[str, str], set[str]]:
    """Field name -> CLI flag, and which fields are booleans (`name=true` becomes the bare flag)."""
    if spec is None:
        return {}, set()
    booleans = {name for name, field in spec.query.model_fields.items() if field.annotation is bool}
    return spell, booleans


def json_text(spec: ToolSpec[Any, Any], result: BaseModel) -> str:
    return json.dumps(
        {"schema_version": spec.schema_version, **result.model_dump(mode="json")}, indent=2, ensure_ascii=False
    )


def human_text(spec: ToolSpec[Any, Any], result: BaseModel, spell: dict[str, str]) -> str:
    """The tool's own text rendering, with the parameter names it mentions spelled as CLI flags."""
    return spelled(spec.renderer()(result), *spelling(spec, spell))


_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def terminal_safe(text: str) -> str:
    """Text as the CLI may print it: control characters other than newline and tab shown as \\xNN, so an escape
    code in an audited file (ESC[2J, a title change, a hyperlink) is never run by the reader's terminal."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def print_result(spec: ToolSpec[Any, Any], result: BaseModel, args: argparse.Namespace, stream: TextIO) -> None:
    custom = INPUTS.get(spec.name)
    if custom is not None and custom.show is not None:
        shown = io.StringIO()
        if custom.show(result, args, shown):
            stream.write(terminal_safe(shown.getvalue()))
            return
    if args.json:
        stream.write(json_text(spec, result) + "\n")
        return
    from vllm_quant_mcp.server.cli.tables import TABLES, show

    if spec.name in TABLES:
        show(
            spec.name,
            result,
            stream,
            lambda text: terminal_safe(spelled(text, *spelling(spec, args.spell))),
            wide=args.wide,
        )
        return
    stream.write(terminal_safe(human_text(spec, result, args.spell)) + "\n")
