"""A tool's result on stdout: JSON with `schema_version` for scripts, tables or text for people.

`--json` prints the tool's output model (the same shape the MCP tool returns as
structured content) with `schema_version` first; it changes when a field is renamed
or removed (tools/spec.py). People get rich tables where rows are compared (pick, diff,
gates: server/cli/tables.py) and the tool's own text rendering otherwise, in both cases
with the MCP parameter names in its notes rewritten to the flags typed here.
"""

from __future__ import annotations

import argparse
import json
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


def print_result(spec: ToolSpec[Any, Any], result: BaseModel, args: argparse.Namespace, stream: TextIO) -> None:
    custom = INPUTS.get(spec.name)
    if custom is not None and custom.show is not None and custom.show(result, args, stream):
        return
    if args.json:
        stream.write(json_text(spec, result) + "\n")
        return
    from vllm_quant_mcp.server.cli.tables import TABLES, show

    if spec.name in TABLES:
        show(spec.name, result, stream, lambda text: spelled(text, *spelling(spec, args.spell)), wide=args.wide)
        return
    stream.write(human_text(spec, result, args.spell) + "\n")
