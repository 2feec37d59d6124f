"""`vllm-quant-mcp matrix [OLD] TAG`: the support matrix as a self-contained HTML page or as Markdown."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

__all__ = ["add_matrix"]


def add_matrix(sub: argparse._SubParsersAction[Any]) -> None:
    p = sub.add_parser(
        "matrix",
        help="the support matrix of a tag (or what changed between two) as HTML or Markdown",
        description="KV-cache dtype x GPU for dense and MLA models: the attention backend vLLM picks or why none, "
        "with the deciding lines. One tag: its matrix; two tags (old new): the new one's, changes marked.",
    )
    p.add_argument("tags", nargs="*", metavar="TAG", help="a tag, or OLD NEW for a diff; default: the pinned tag")
    p.add_argument(
        "--format",
        choices=["html", "markdown"],
        default="markdown",
        help="markdown (default) or a self-contained html page",
    )
    p.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout")
    p.add_argument("--quiet", action="store_true", help="say nothing on stderr but errors")
    p.set_defaults(run=_matrix, parser=p)


def _matrix(args: argparse.Namespace) -> int:
    from vllm_quant_mcp.server.matrix import matrix_document
    from vllm_quant_mcp.server.runtime import make_context

    if len(args.tags) > 2:
        args.parser.error(f"give one tag, or two (old new) for a diff; got {len(args.tags)}")
    tags = list(args.tags) or [None]
    ctx = make_context(tags[-1] if len(tags) == 1 else None)
    text = matrix_document(ctx, tags, args.format)
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
        if not args.quiet:
            print(f"wrote {args.output}", file=sys.stderr)
    else:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return 0
