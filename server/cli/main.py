"""`vllm-quant-mcp`: the CLI. Every tool subcommand is generated from the tool's spec, as its MCP signature is.

A query model field becomes `--field-name` (or what its `Cli` marker says), its type picks
the argparse shape (flag, choices, `NAME=VALUE` list, JSON object), and its description is
the help. Bounds are not repeated here: the query model validates the values, and a
violation is reported with the flag's spelling. The commands that are not tools: `serve`
(the server itself), `refresh` (the one that fills the cache), `cache` (see and free it)
and `completion` (shell scripts).

Output: results on stdout (`--json`: the tool's output model plus `schema_version`),
progress and errors on stderr. Exit codes: 0 done, 1 `audit` found something the tag
rejects, 2 bad input (usage, unknown name), 3 a service or the cache could not answer,
70 an internal error, 130 interrupted.
"""

from __future__ import annotations

import argparse
import os
import sys
import types
from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError, version
from typing import Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError
from pydantic.fields import FieldInfo

from vllm_quant_mcp.knowledge.redacted_logs import redact_logging
from vllm_quant_mcp.server.cli.cache import add_cache
from vllm_quant_mcp.server.cli.inputs import INPUTS, Input, is_string_map, value_parser
from vllm_quant_mcp.server.cli.matrix import add_matrix
from vllm_quant_mcp.server.cli.output import TABLE_TOOLS, print_result, spelling, terminal_safe
from vllm_quant_mcp.server.cli.parser import Parser, reject_unknown, spelled
from vllm_quant_mcp.server.errors import cli_text, exit_code, validation_text
from vllm_quant_mcp.server.toolsets import all_specs
from vllm_quant_mcp.tools.spec import Cli, ToolSpec

__all__ = ["EXIT_CODES", "build_parser", "main"]

EXIT_CODES = {
    0: "done (`audit`: nothing the tag rejects)",
    1: "`audit` found something the tag rejects",
    2: "bad input: a usage error, or a name (tag, flag, GPU, model) that nothing here knows; the message names the fix",
    3: "a service or the cache could not answer (network, GitHub, the package index, a lock held too long)",
    70: "an internal error: please report it",
    130: "interrupted",
}

EPILOG = """\
examples:
  vllm-quant-mcp registry --tag v0.32.0 --kind kv_cache_dtypes
  vllm-quant-mcp diff v0.27.1 v0.32.0 --kind quantization_methods
  vllm-quant-mcp grep 'def get_min_capability' --tag v0.32.0 --path-glob 'vllm/model_executor/**'
  vllm-quant-mcp gates v0.27.1 v0.32.0 --command 'vllm serve m --quantization bitsandbytes'
  vllm-quant-mcp pick --gpu h200 --model meta-llama/Llama-3.1-70B-Instruct --num-gpus 2
  vllm-quant-mcp render --model m --tag v0.32.0 -q fp8 --kv-cache-dtype fp8 -tp 2 --format docker
  vllm-quant-mcp audit deploy.sh --tag v0.32.0 --format github   # exit 1 when something is invalid
  vllm-quant-mcp issue 38652 --tag v0.18.0
  vllm-quant-mcp refresh --tag v0.33.0 --source pypi
  vllm-quant-mcp matrix v0.31.0 v0.32.0 --format html -o matrix.html
  vllm-quant-mcp cache list
  vllm-quant-mcp serve                       # MCP over stdio, for Claude Code / IDE agents

exit codes:
  0 done, 1 audit found something the tag rejects, 2 bad input, 3 a service could not be reached, 70 internal

environment:
  VLLM_QUANT_MCP_TAG        default tag (else the installed vLLM, else the newest bundled)
  VLLM_QUANT_MCP_CACHE_DIR  where refreshed trees and registries go
  VLLM_QUANT_MCP_STATE_DIR  where GitHub and hub answers are kept (default the cache dir; for a read-only cache)
  VLLM_QUANT_MCP_REMOTE     git remote for refresh (default the public vLLM repository)
  VLLM_QUANT_MCP_INDEX_URL  package index (PEP 691 simple API) for refresh --source pypi
  VLLM_QUANT_MCP_KEEP_SDISTS=1  keep the downloaded sdist in the cache (default: dropped after reading)
  HF_HOME, HF_TOKEN         Hugging Face cache and token for pick (a token saved by `hf auth login` works too)
"""


# Help for fields whose description is left out of the MCP listing (its budget), where a shell user still needs it.
# Keyed by field name, or by (command, field name) where one name means different things in two commands.
_UNDESCRIBED: dict[str | tuple[str, str], str] = {
    "tag": "vLLM release tag, e.g. v0.32.0; default: the pinned one",
    "env": "an environment variable of the deployment; repeat for each",
    "contains": "only entries whose name contains this text (any case); with --kind",
    "limit": "at most N items per page; with --json, given, prints that one page (default: the whole result)",
    "cursor": "the `next` of the previous page, to print the page after it",
    "max_results": "at most N matches per page (default in the usage line); --cursor for more",
    "from_tag": "the tag to compare from, e.g. v0.27.1",
    "fixed_string": "the pattern is plain text, not a regular expression",
    "ignore_case": "match in any case",
    "start_line": "first line to print (default 1)",
    "end_line": "last line to print (default: a page from --start-line)",
    ("symbol", "kind"): "only symbols of this kind",
    "registry_changes": "which registry changes to list: the breaking ones (default), all, or none",
    "state": "only open or only closed issues",
    "label": "only issues with this GitHub label",
    "priority": "what to rank formats by (default throughput)",
    "context_len": "tokens of context per request, for the KV-cache estimate",
    "concurrency": "requests served at once, for the KV-cache estimate",
    "quantization": "the --quantization value, checked against the tag",
    "kv_cache_dtype": "the --kv-cache-dtype value, checked against the tag",
    "tensor_parallel_size": "GPUs per model replica (tensor parallel)",
    "pipeline_parallel_size": "pipeline stages",
    "expert_parallel": "shard MoE experts across the GPUs (--enable-expert-parallel)",
    "max_model_len": "the longest context the server accepts",
    "linear_backend": "the linear-kernel backend to pin, checked against the tag",
    "moe_backend": "the MoE backend to pin, checked against the tag",
    (
        "render",
        "format",
    ): "how to print the command: a shell line, an argv list, docker, a Kubernetes container or Python",
}


def package_version() -> str:
    try:
        return version("vllm-quant-mcp")
    except PackageNotFoundError:
        return "0+unknown"


def _unwrap_optional(annotation: Any) -> Any:
    """`T | None` -> T; anything else unchanged."""
    if get_origin(annotation) in (Union, types.UnionType):
        members = [a for a in get_args(annotation) if a is not type(None)]
        if len(members) == 1:
            return members[0]
    return annotation


def _flags(name: str, cli: Cli) -> list[str]:
    return list(cli.flags) or [f"--{name.replace('_', '-')}"]


def _add_field(parser: argparse.ArgumentParser, name: str, field: FieldInfo, command: str) -> str:
    """Add one query field to the subcommand; returns how errors should spell it."""
    cli = next((m for m in field.metadata if isinstance(m, Cli)), Cli())
    kind = _unwrap_optional(field.annotation)
    described = field.description or _UNDESCRIBED.get((command, name)) or _UNDESCRIBED.get(name, "")
    help_text = described.replace("%", "%%")
    options: dict[str, Any] = {"help": help_text, "default": None}
    if kind is bool:
        options.update(action="store_true", default=None)
    elif get_origin(kind) is Literal:
        options["choices"] = [str(c) for c in get_args(kind)]
    elif kind is int:
        options["type"] = int
    elif get_origin(kind) is list:
        options["nargs"] = argparse.REMAINDER if cli.rest else "+"
    elif is_string_map(kind):
        options.update(action="append", metavar="NAME=VALUE")
    elif (get_origin(kind) is dict) or (isinstance(kind, type) and issubclass(kind, BaseModel)):
        options["metavar"] = "JSON"
    if cli.metavar:
        options["metavar"] = cli.metavar
    if cli.positional or cli.rest:
        if not field.is_required():
            options["nargs"] = options.get("nargs", "?")
        parser.add_argument(name, **options)
        return name.replace("_", "-").upper() if not cli.rest else "arguments after --"
    flags = _flags(name, cli)
    if field.is_required():
        options["required"] = True
    parser.add_argument(*flags, dest=name, **options)
    return flags[-1] if flags[-1].startswith("--") else flags[0]


def _add_tool(sub: argparse._SubParsersAction[Any], spec: ToolSpec[Any, Any]) -> None:
    parser = sub.add_parser(spec.cli, help=spec.cli_help, description=spec.description)
    custom: Input | None = INPUTS.get(spec.name)
    skipped = custom.replaces if custom else ()
    spell = {}
    for name, field in spec.query.model_fields.items():
        if name not in skipped:
            spell[name] = _add_field(parser, name, field, spec.cli)
    if custom is not None:
        custom.add_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print the tool's output model as JSON")
    _add_quiet_offline(parser)
    if spec.name in TABLE_TOOLS:
        parser.add_argument("--wide", action="store_true", help="print every table cell whole, however wide")
    parser.set_defaults(spec=spec, spell=spell, parser=parser, wide=False)


def _add_quiet_offline(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--quiet", action="store_true", help="no progress or notes on stderr; errors still")
    parser.add_argument(
        "--offline",
        action="store_true",
        help="never touch the network: answer from the bundled registries and the cache, or say what is missing",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="vllm-quant-mcp",
        description="Answer vLLM quantization questions from the vLLM source at a pinned release tag.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("-V", "--version", action="version", version=f"vllm-quant-mcp {package_version()}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _add_serve(sub)
    _add_refresh(sub)
    for spec in all_specs():
        _add_tool(sub, spec)
    add_matrix(sub)
    add_cache(sub)
    _add_completion(sub)
    parser.set_defaults(parser=parser)
    return parser


def _add_serve(sub: argparse._SubParsersAction[Any]) -> None:
    p = sub.add_parser("serve", help="run the MCP server (stdio by default)")
    p.add_argument("--tag", help="default tag for tools called without one (default: pinned or newest bundled)")
    p.add_argument(
        "--transport",
        choices=["stdio", "http"],
        default="stdio",
        help="stdio (default) for an agent that starts the server, http (streamable) for a team-shared one",
    )
    p.add_argument(
        "--toolsets",
        metavar="SET,SET",
        help="offer only these toolsets (registry, source, upgrade, deploy, knowledge); default: all",
    )
    p.add_argument("--host", default="127.0.0.1", help="HTTP bind address (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8765, help="HTTP port (default 8765)")
    p.add_argument("--token", help="require this bearer token on HTTP (or VLLM_QUANT_MCP_TOKEN)")
    p.add_argument(
        "--allow-origin", action="append", default=[], metavar="ORIGIN", help="extra allowed Origin for HTTP"
    )
    p.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="HOST[:PORT]",
        help="extra allowed Host header, e.g. the name clients use for a team-shared server",
    )
    p.add_argument(
        "--stateless",
        action="store_true",
        help="HTTP: keep no session state, so replicas behind a load balancer share the sessions",
    )
    p.add_argument(
        "--allow-local-models",
        action="store_true",
        help="HTTP: let clients name model directories on this host (pick); stdio always may",
    )
    p.add_argument(
        "--no-fetch",
        action="store_true",
        help="answer only from trees on disk; never download a tag's source (a read-only cache implies it)",
    )
    p.add_argument(
        "--worker-pool",
        action=argparse.BooleanOptionalAction,
        help="run audits, gate checks, diffs, serve commands and rankings in worker processes (one per slot of "
        "their lane), so they never slow cheap calls (default: on for HTTP, off for stdio); --no-worker-pool runs "
        "them in threads",
    )
    p.set_defaults(run=_serve, parser=p)


def _add_refresh(sub: argparse._SubParsersAction[Any]) -> None:
    p = sub.add_parser("refresh", help="fetch the source at a tag and derive its registry into the cache")
    p.add_argument("--tag", required=True, help="vLLM release tag, e.g. v0.33.0")
    p.add_argument(
        "--source",
        default="auto",
        help="auto (git, then pypi), git, pypi, wheel, installed (the vLLM in this environment), or a directory",
    )
    p.add_argument("--remote", help="git remote URL or path (default $VLLM_QUANT_MCP_REMOTE or GitHub)")
    p.add_argument("--index-url", help="simple index base URL (default $VLLM_QUANT_MCP_INDEX_URL or PyPI)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    _add_quiet_offline(p)
    p.set_defaults(run=_refresh, parser=p, progress=True)


def _add_completion(sub: argparse._SubParsersAction[Any]) -> None:
    p = sub.add_parser(
        "completion",
        help="print a shell completion script (bash, zsh or fish)",
        description='Load it from your shell\'s start-up file, e.g. eval "$(vllm-quant-mcp completion bash)".',
    )
    p.add_argument("shell", choices=["bash", "zsh", "fish"], help="the shell to print the script for")
    p.set_defaults(run=_completion, parser=p)


def _serve(args: argparse.Namespace) -> int:
    from vllm_quant_mcp.server.cli.serve import run

    return run(args)


def _refresh(args: argparse.Namespace) -> int:
    import json

    from vllm_quant_mcp.knowledge.registry.refresh import refresh

    result = refresh(args.tag, source=args.source, remote=args.remote, index_url=args.index_url)
    if args.json:
        print(json.dumps({"schema_version": 1, **result.model_dump(mode="json")}, indent=2, ensure_ascii=False))
        return 0
    lines = [f"{result.tag}: tree {result.tree} from {result.source.kind} ({result.source.origin})"]
    lines.append(f"registry: {result.registry_path}")
    lines += [f"note: {n}" for n in result.notes]
    print("\n".join(lines))
    return 0


def _completion(args: argparse.Namespace) -> int:
    from vllm_quant_mcp.knowledge.facts.knowledge_base import load_knowledge
    from vllm_quant_mcp.knowledge.registry.bundle import bundled_tags
    from vllm_quant_mcp.server.cli.complete import script

    gpus = tuple(g.id for g in load_knowledge().gpus)
    sys.stdout.write(script(args.shell, build_parser(), bundled_tags(), gpus))
    return 0


def _arguments(args: argparse.Namespace, spec: ToolSpec[Any, Any]) -> dict[str, Any]:
    """The values given on the command line, as the query model takes them; defaults are the model's."""
    given: dict[str, Any] = {}
    for name, field in spec.query.model_fields.items():
        value = getattr(args, name, None)
        if value is None or value == []:
            continue
        given[name] = value_parser(field, args.spell.get(name, name))(value)
    custom = INPUTS.get(spec.name)
    if custom is not None:
        given.update(custom.arguments(args))
    return given


def _run_tool(args: argparse.Namespace) -> int:
    from vllm_quant_mcp.server.runtime import make_context

    spec: ToolSpec[Any, Any] = args.spec
    parser: argparse.ArgumentParser = args.parser
    try:
        query = spec.query.model_validate(_arguments(args, spec))
    except ValidationError as exc:
        parser.error(spelled(validation_text(exc, args.spell), *spelling(spec, args.spell)))
    custom = INPUTS.get(spec.name)
    ctx = make_context(getattr(query, "tag", None))
    if custom is not None and custom.whole is not None and args.json and custom.whole(query):
        print(custom.whole_json(ctx, query))
        return 0
    from vllm_quant_mcp.server.cli.whole import WHOLE, cut_note, wants_whole

    result = WHOLE[spec.name](ctx, query) if wants_whole(spec.name, args) else spec.function()(ctx, query)
    print_result(spec, result, args, sys.stdout)
    if args.json and not args.quiet:
        cut_note(result, parser.prog)
    return custom.exit_status(result, args) if custom is not None else 0


def _report(args: argparse.Namespace, exc: Exception, code: int) -> int:
    """An anticipated error on stderr, prefixed with the (sub)command, in the flags' spelling."""
    parser: argparse.ArgumentParser = args.parser
    spec: ToolSpec[Any, Any] | None = getattr(args, "spec", None)
    message = spelled(str(exc), *spelling(spec, args.spell)) if spec is not None else str(exc)
    print(f"{parser.prog}: error: {terminal_safe(cli_text(message))}", file=sys.stderr)
    return code


def _dispatch(args: argparse.Namespace) -> int:
    if getattr(args, "offline", False):  # read by knowledge.settings and by the hub client (huggingface_hub's own)
        os.environ["VLLM_QUANT_MCP_OFFLINE"] = "1"
        os.environ["HF_HUB_OFFLINE"] = "1"
        from vllm_quant_mcp.knowledge.settings import settings

        settings.cache_clear()
    if not (hasattr(args, "spec") or getattr(args, "progress", False)):
        return int(args.run(args))
    if getattr(args, "quiet", False):
        return int(args.run(args)) if hasattr(args, "run") else _run_tool(args)
    from vllm_quant_mcp.server.cli.progress import progress_on_stderr

    with progress_on_stderr():
        return int(args.run(args)) if hasattr(args, "run") else _run_tool(args)


def _after_interrupt() -> str:
    """What an interrupted command left in the cache, said only once it is checked: a fetch's staging folder is
    removed on the way out, unless another process's fetch is using it."""
    from vllm_quant_mcp.knowledge.registry.store import default_store

    try:
        left = default_store().sweep_interrupted()
    except OSError as exc:
        return f"the cache could not be checked for half-written files ({exc})"
    if not left:
        return "nothing half-written was kept"
    return f"{len(left)} fetch folder(s) in use by another process were left: {', '.join(map(str, left))}"


def main(argv: Sequence[str] | None = None) -> int:
    redact_logging()
    parser = build_parser()
    given = list(sys.argv[1:] if argv is None else argv)
    if not given:  # a bare command is a question about the tool: the help, not a usage error
        parser.print_help()
        return 0
    args, extras = parser.parse_known_args(given)
    if extras:
        reject_unknown(args.parser, extras)
    try:
        code = _dispatch(args)
    except KeyboardInterrupt:
        print(f"interrupted; {_after_interrupt()}", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `... | head`: the reader left; exit quietly as other Unix tools do
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except Exception as exc:
        code_for = exit_code(exc)
        if code_for is None:
            raise
        return _report(args, exc, code_for)
    return code


if __name__ == "__main__":
    raise SystemExit(main())
