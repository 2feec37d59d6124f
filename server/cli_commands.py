"""Handlers of the CLI subcommands: parse → call the tool → print JSON or text.

Errors a user can fix print one line to stderr and exit 2; the tool's message
already says what to do next.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any, TypeVar

from pydantic import BaseModel

from . import text_output
from .runtime import make_context

T = TypeVar("T", bound=BaseModel)


def _call(call: Callable[[], T]) -> T | None:
    """The tool's result, or None after printing the error (which already says what to do) to stderr."""
    from pydantic import ValidationError

    from vllm_quant_mcp.knowledge.errors import VllmQuantMcpError

    try:
        return call()
    except ValidationError as exc:
        for error in exc.errors():
            where = ".".join(str(part) for part in error["loc"]) or "input"
            print(f"error: {where.replace('_', '-')}: {error['msg']}", file=sys.stderr)
        return None
    except (VllmQuantMcpError, ValueError, LookupError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return None


def _emit(args: argparse.Namespace, result: T, render: Callable[[T], str]) -> None:
    print(result.model_dump_json(indent=2) if args.json else render(result))


def _run(args: argparse.Namespace, call: Callable[[], T], render: Callable[[T], str]) -> int:
    result = _call(call)
    if result is None:
        return 2
    _emit(args, result, render)
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
        return _run(args, lambda: registry_view.get_registry(make_context(args.tag), args.tag), text_output.registry)
    return _run(
        args,
        lambda: registry_view.get_registry(make_context(args.tag), args.tag, args.kind, args.contains),
        text_output.registry,
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
        query = ReadQuery(path=args.path, start_line=args.start_line, end_line=args.end_line)
        return read_at_tag(make_context(args.tag), query, args.tag)

    return _run(args, call, text_output.read_result)


def symbol(args: argparse.Namespace) -> int:
    from vllm_quant_mcp.tools.find_symbol import SymbolQuery, SymbolResult
    from vllm_quant_mcp.tools.source_at_tag import symbol_at_tag

    def call() -> SymbolResult:
        return symbol_at_tag(
            make_context(args.tag), SymbolQuery(name=args.name, kind=args.kind, max_results=args.max_results), args.tag
        )

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
    from vllm_quant_mcp.knowledge.models.facts import ExplicitModel
    from vllm_quant_mcp.tools.pick_format import PickFormatResult, pick_format

    def call() -> PickFormatResult:
        figures = _json_arg("--model-figures", args.model_figures)
        return pick_format(
            make_context(args.tag),
            args.gpu,
            args.model if figures is None else ExplicitModel.model_validate(figures),
            args.num_gpus,
            args.tag,
            args.priority,
            args.context_len,
            args.concurrency,
            args.checkpoint,
        )

    return _run(args, call, text_output.pick_result)


def _json_arg(name: str, text: str | None) -> dict[str, Any] | None:
    if text is None:
        return None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{name} is not valid JSON ({exc.msg} at column {exc.colno}); quote it for the shell") from exc
    if not isinstance(value, dict):
        raise ValueError(f'{name} must be a JSON object such as \'{{"method": "eagle3"}}\'')
    return value


def render(args: argparse.Namespace) -> int:
    from vllm_quant_mcp.tools.render_serve_cmd import RenderResult, render_serve_cmd

    def call() -> RenderResult:
        extra = args.extra_args[1:] if args.extra_args[:1] == ["--"] else args.extra_args
        return render_serve_cmd(
            make_context(args.tag),
            model=args.model,
            tag=args.tag,
            quantization=args.quantization,
            kv_cache_dtype=args.kv_cache_dtype,
            tensor_parallel_size=args.tensor_parallel_size,
            pipeline_parallel_size=args.pipeline_parallel_size,
            expert_parallel=args.expert_parallel,
            max_model_len=args.max_model_len,
            speculative=_json_arg("--speculative", args.speculative),
            quantization_config=_json_arg("--quantization-config", args.quantization_config),
            linear_backend=args.linear_backend,
            moe_backend=args.moe_backend,
            extra_args=extra or None,
            env=_env_pairs(args.env) or None,
            gpu=args.gpu,
            checkpoint_dtype=args.checkpoint_dtype,
            format=args.format,
        )

    return _run(args, call, text_output.render_result)


def audit(args: argparse.Namespace) -> int:
    from vllm_quant_mcp.tools.audit import AuditReport
    from vllm_quant_mcp.tools.audit import audit as run_audit

    def call() -> AuditReport:
        try:
            text = args.file.read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:
            raise ValueError(f"{args.file} is not UTF-8 text; audit reads scripts and YAML") from exc
        return run_audit(make_context(args.tag), text, args.file.name, args.tag)

    report = _call(call)
    if report is None:
        return 2
    _emit(args, report, text_output.audit_report)
    return 0 if report.ok else 1


def serve(args: argparse.Namespace) -> int:
    from .serve import run

    return run(args)
