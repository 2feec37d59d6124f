"""Handlers of the CLI subcommands: parse → call the tool → print JSON or text.

Errors a user can fix print one line to stderr and exit 2; the tool's message
already says what to do next.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import TypeVar

from pydantic import BaseModel

from . import text_output
from .runtime import make_context

T = TypeVar("T", bound=BaseModel)


def _run(args: argparse.Namespace, call: Callable[[], T], render: Callable[[T], str]) -> int:
    from vllm_quant_mcp.knowledge.errors import VllmQuantMcpError

    try:
        result = call()
    except (VllmQuantMcpError, ValueError, LookupError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(result.model_dump_json(indent=2) if args.json else render(result))
    return 0


def tags(args: argparse.Namespace) -> int:
    from vllm_quant_mcp.tools import registry_view

    return _run(args, lambda: registry_view.list_tags(make_context(None)), text_output.tag_list)


def registry(args: argparse.Namespace) -> int:
    from vllm_quant_mcp.tools import registry_view

    if args.kind is None:
        if args.contains:
            print("error: --contains goes with --kind", file=sys.stderr)
            return 2
        if args.json:  # the script contract: the whole registry, every kind
            return _run(args, lambda: make_context(args.tag).registry(args.tag), str)
        return _run(args, lambda: registry_view.get_registry(make_context(args.tag), args.tag), text_output.summary)
    return _run(
        args,
        lambda: registry_view.get_registry_kind(make_context(args.tag), args.kind, args.tag, args.contains),
        text_output.kind_view,
    )


def diff(args: argparse.Namespace) -> int:
    from vllm_quant_mcp.tools import registry_view

    return _run(
        args,
        lambda: registry_view.diff_tags(make_context(None), args.from_tag, args.to_tag, args.kind),
        text_output.registry_diff,
    )


def refresh(args: argparse.Namespace) -> int:
    from vllm_quant_mcp.knowledge.refresh import refresh as do_refresh

    return _run(
        args,
        lambda: do_refresh(args.tag, source=args.source, remote=args.remote, index_url=args.index_url),
        text_output.refresh_result,
    )


def grep(args: argparse.Namespace) -> int:
    from vllm_quant_mcp.tools.grep_source import GrepQuery, GrepResult
    from vllm_quant_mcp.tools.source_at_tag import grep_at_tag

    def call() -> GrepResult:
        query = GrepQuery(
            pattern=args.pattern,
            path_glob=args.path_glob,
            fixed_string=args.fixed_string,
            ignore_case=args.ignore_case,
            context=args.context,
            max_results=args.max_results,
        )
        return grep_at_tag(make_context(args.tag), query, args.tag)

    return _run(args, call, text_output.grep_result)


def read(args: argparse.Namespace) -> int:
    from vllm_quant_mcp.tools.read_source import ReadQuery, ReadResult
    from vllm_quant_mcp.tools.source_at_tag import read_at_tag

    def call() -> ReadResult:
        query = ReadQuery(path=args.path, start_line=args.start_line or 1, end_line=args.end_line)
        return read_at_tag(make_context(args.tag), query, args.tag)

    return _run(args, call, text_output.read_result)


def symbol(args: argparse.Namespace) -> int:
    from vllm_quant_mcp.tools.find_symbol import SymbolQuery, SymbolResult
    from vllm_quant_mcp.tools.source_at_tag import symbol_at_tag

    def call() -> SymbolResult:
        return symbol_at_tag(make_context(args.tag), SymbolQuery(name=args.name, kind=args.kind), args.tag)

    return _run(args, call, text_output.symbols)


def verify(args: argparse.Namespace) -> int:
    from vllm_quant_mcp.tools.verify_knowledge import verify_knowledge

    return _run(args, lambda: verify_knowledge(make_context(None), args.tags), text_output.verify_report)


def _env_pairs(pairs: list[str]) -> dict[str, str]:
    env: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise ValueError(f"--env {pair!r} is not NAME=VALUE; write e.g. --env VLLM_USE_DEEP_GEMM=1")
        env[name] = value
    return env


def gates(args: argparse.Namespace) -> int:
    from vllm_quant_mcp.tools.check_gates import CheckGatesResult, check_gates

    def call() -> CheckGatesResult:
        return check_gates(
            make_context(None),
            args.from_tag,
            args.to_tag,
            args.serve_command,
            _env_pairs(args.env) or None,
            args.gpu,
            args.model_family,
            args.changes,
        )

    return _run(args, call, text_output.gates_result)


def issue(args: argparse.Namespace) -> int:
    from vllm_quant_mcp.tools.lookup_issue import lookup_issue

    return _run(args, lambda: lookup_issue(make_context(None), args.number, args.repo, args.tag), text_output.issue)


def search_issues(args: argparse.Namespace) -> int:
    from vllm_quant_mcp.tools.lookup_issue import search_issues as search

    return _run(
        args,
        lambda: search(make_context(None), args.query, args.state, args.label, args.since),
        text_output.issue_search,
    )


def pick(args: argparse.Namespace) -> int:
    from vllm_quant_mcp.tools.pick_format import PickFormatResult, pick_format

    def call() -> PickFormatResult:
        return pick_format(
            make_context(args.tag),
            args.gpu,
            args.model,
            args.num_gpus,
            args.tag,
            args.priority,
            args.context_len,
            args.concurrency,
            args.checkpoint,
        )

    return _run(args, call, text_output.pick_result)


def serve(args: argparse.Namespace) -> int:
    from .serve import run

    return run(args)
