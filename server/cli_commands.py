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
    try:
        result = call()
    except (ValueError, LookupError, OSError) as exc:
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
    from vllm_quant_mcp.tools.grep_source import grep_vllm_source

    ctx = make_context(args.tag)
    return _run(
        args,
        lambda: grep_vllm_source(
            ctx,
            pattern=args.pattern,
            tag=args.tag,
            path_glob=args.path_glob,
            fixed_string=args.fixed_string,
            ignore_case=args.ignore_case,
            context=args.context,
            max_results=args.max_results,
        ),
        text_output.grep_result,
    )


def read(args: argparse.Namespace) -> int:
    from vllm_quant_mcp.tools.read_source import read_vllm_source

    ctx = make_context(args.tag)
    return _run(
        args,
        lambda: read_vllm_source(ctx, path=args.path, tag=args.tag, start_line=args.start_line, end_line=args.end_line),
        text_output.read_result,
    )


def symbol(args: argparse.Namespace) -> int:
    from vllm_quant_mcp.tools.find_symbol import find_symbol

    ctx = make_context(args.tag)
    return _run(args, lambda: find_symbol(ctx, name=args.name, tag=args.tag, kind=args.kind), text_output.symbols)


def serve(args: argparse.Namespace) -> int:
    from .serve import run

    return run(args)
