"""What the shell hands the CLI, turned into query values: text into JSON objects and `NAME=VALUE` maps, and the
three commands whose shell form differs from their MCP form.

- `audit FILE`: the MCP tool takes the file's text and name; the CLI takes a path and reads it.
- `audit` exits 1 when the file holds something the tag rejects, so a CI job can gate on it, and
  prints its report as text, JSON, GitHub workflow annotations or SARIF (`--format`).
- `registry --json` without `--kind` prints the whole registry: the contract scripts rely on.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import types
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, TextIO, Union, get_args, get_origin

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from vllm_quant_mcp.knowledge.bounded import read_bounded
from vllm_quant_mcp.knowledge.echo import clip
from vllm_quant_mcp.knowledge.errors import InvalidInputError
from vllm_quant_mcp.tools.context import ToolContext

__all__ = ["INPUTS", "MAX_FILE_BYTES", "Input", "is_string_map", "value_parser"]

MAX_FILE_BYTES = 1_000_000


def _kind(annotation: Any) -> Any:
    if get_origin(annotation) in (Union, types.UnionType):
        members = [a for a in get_args(annotation) if a is not type(None)]
        if len(members) == 1:
            return members[0]
    return annotation


def is_string_map(kind: Any) -> bool:
    """`dict[str, str]`, its keys and values bounded or not (`Annotated[str, ...]`): NAME=VALUE pairs on the CLI."""
    bare = [get_args(a)[0] if get_origin(a) is Annotated else a for a in get_args(kind)]
    return get_origin(kind) is dict and bare == [str, str]


def _env_pairs(spelled: str) -> Callable[[list[str]], dict[str, str]]:
    def parse(pairs: list[str]) -> dict[str, str]:
        env: dict[str, str] = {}
        for pair in pairs:
            name, sep, value = pair.partition("=")
            if not sep or not name:
                raise InvalidInputError(
                    f"{spelled} {clip(pair)} is not NAME=VALUE; write e.g. {spelled} VLLM_USE_DEEP_GEMM=1"
                )
            env[name] = value
        return env

    return parse


def _json_object(spelled: str) -> Callable[[str], dict[str, Any]]:
    def parse(text: str) -> dict[str, Any]:
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InvalidInputError(
                f"{spelled} is not valid JSON ({exc.msg} at column {exc.colno}); quote it for the shell"
            ) from exc
        if not isinstance(value, dict):
            raise InvalidInputError(f'{spelled} must be a JSON object such as \'{{"method": "eagle3"}}\'')
        return value

    return parse


def value_parser(field: FieldInfo, spelled: str) -> Callable[[Any], Any]:
    """How the text argparse collected for a field becomes the value its query model takes."""
    kind = _kind(field.annotation)
    if is_string_map(kind):
        return _env_pairs(spelled)
    if get_origin(kind) is dict or (isinstance(kind, type) and issubclass(kind, BaseModel)):
        return _json_object(spelled)
    if get_origin(kind) is list:
        return lambda words: words[1:] if words[:1] == ["--"] else words
    return lambda value: value


def read_text_file(path: Path) -> str:
    """A deployment file, refused when it is not a regular UTF-8 file of at most MAX_FILE_BYTES (bytes read, not
    the size stat reports: /dev/zero reports none)."""
    data = read_bounded(path, MAX_FILE_BYTES, "audit reads the script, Kubernetes manifest or compose file itself")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInputError(f"{path} is not UTF-8 text; audit reads scripts and YAML") from exc


@dataclass(frozen=True)
class Input:
    """A command whose shell form differs from its MCP form."""

    replaces: tuple[str, ...] = ()
    add_arguments: Callable[[argparse.ArgumentParser], None] = lambda parser: None
    arguments: Callable[[argparse.Namespace], dict[str, Any]] = lambda args: {}
    exit_status: Callable[[Any, argparse.Namespace], int] = lambda result, args: 0
    whole: Callable[[Any], bool] | None = None
    whole_json: Callable[[ToolContext, Any], str] = lambda ctx, query: ""
    show: Callable[[Any, argparse.Namespace, TextIO], bool] | None = None  # True when it printed the result


AUDIT_FORMATS = ("text", "json", "github", "sarif")


def _audit_file(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", type=Path, help="the script, Kubernetes manifest or compose file to read; - for stdin")
    parser.add_argument(
        "--exit-zero", action="store_true", help="exit 0 even when the file holds something the tag rejects"
    )
    parser.add_argument(
        "--format",
        choices=AUDIT_FORMATS,
        default="text",
        help="text (default), json (as --json), github (workflow annotations on the file's lines) or sarif "
        "(SARIF 2.1.0 for code scanning); the exit status is the same in every format",
    )


def _audit_show(report: Any, args: argparse.Namespace, stream: TextIO) -> bool:
    if args.format in ("github", "sarif"):
        from vllm_quant_mcp.server.cli.audit import github_annotations, sarif_log

        emit = github_annotations if args.format == "github" else sarif_log
        stream.write(emit(report, str(args.file), args.audit_text) + "\n")
        return True
    args.json = args.json or args.format == "json"
    return False


def _audit_arguments(args: argparse.Namespace) -> dict[str, Any]:
    if str(args.file) == "-":
        args.audit_text = read_stdin()
        # No name to tell the kind by: a manifest or compose file says so in its text (kind:, services:).
        yaml = re.search(r"^(kind|services):", args.audit_text, re.M)
        return {"text": args.audit_text, "filename": "stdin.yaml" if yaml else "stdin.sh"}
    args.audit_text = read_text_file(args.file)
    return {"text": args.audit_text, "filename": args.file.name}


def read_stdin() -> str:
    """What is piped in, at most MAX_FILE_BYTES; the same refusals as a file's."""
    data = sys.stdin.buffer.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise InvalidInputError(f"stdin holds more than {MAX_FILE_BYTES:,} bytes; audit reads one deployment file")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInputError("stdin is not UTF-8 text; audit reads scripts and YAML") from exc


def _whole_registry(ctx: ToolContext, query: Any) -> str:
    return ctx.registry(query.tag).model_dump_json(indent=2)


INPUTS: dict[str, Input] = {
    "audit_deployment": Input(
        replaces=("text", "filename"),
        add_arguments=_audit_file,
        arguments=_audit_arguments,
        exit_status=lambda report, args: 0 if report.ok or args.exit_zero else 1,
        show=_audit_show,
    ),
    "get_registry": Input(whole=lambda query: query.kind is None and not query.contains, whole_json=_whole_registry),
}
