"""`vllm-quant-mcp`: the CLI. Each subcommand calls the same tool function the MCP server exposes.

Imports happen inside the handlers so `--help` and `serve` start fast.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from . import cli_commands

__all__ = ["build_parser", "main"]

EPILOG = """\
examples:
  vllm-quant-mcp registry --tag v0.32.0 --kind kv_cache_dtypes
  vllm-quant-mcp diff v0.27.1 v0.32.0 --kind quantization_methods
  vllm-quant-mcp grep 'def get_min_capability' --tag v0.32.0 --path-glob 'vllm/model_executor/**'
  vllm-quant-mcp gates v0.27.1 v0.32.0 --command 'vllm serve m --quantization bitsandbytes'
  vllm-quant-mcp pick --gpu h200 --model meta-llama/Llama-3.1-70B-Instruct --num-gpus 2
  vllm-quant-mcp render --model m --tag v0.32.0 -q fp8 --kv-cache-dtype fp8 -tp 2 --format docker
  vllm-quant-mcp audit deploy.yaml --tag v0.32.0 --json     # exit 1 when something is invalid
  vllm-quant-mcp issue 38652 --tag v0.18.0
  vllm-quant-mcp refresh --tag v0.33.0 --source pypi
  vllm-quant-mcp serve                       # MCP over stdio, for Claude Code / IDE agents

environment:
  VLLM_QUANT_MCP_TAG        default tag (else the installed vLLM, else the newest bundled)
  VLLM_QUANT_MCP_CACHE_DIR  where refreshed trees and registries go
  VLLM_QUANT_MCP_REMOTE     git remote for refresh (default the public vLLM repository)
  VLLM_QUANT_MCP_INDEX_URL  package index (PEP 691 simple API) for refresh --source pypi
"""


def _tag_arg(parser: argparse.ArgumentParser, help_text: str = "vLLM release tag, e.g. v0.32.0") -> None:
    parser.add_argument("--tag", help=f"{help_text} (default: pinned or newest bundled)")


def _json_arg(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print the tool's output model as JSON")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="vllm-quant-mcp",
        description="Answer vLLM quantization questions from the vLLM source at a pinned release tag.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("serve", help="run the MCP server (stdio by default)")
    _tag_arg(p, "default tag for tools called without one")
    p.add_argument("--transport", choices=["stdio", "http"], default="stdio")
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
    p.set_defaults(handler=cli_commands.serve)

    p = sub.add_parser("tags", help="list bundled and refreshed tags")
    _json_arg(p)
    p.set_defaults(handler=cli_commands.tags)

    p = sub.add_parser("registry", help="print the registry of a tag (all kinds, or one)")
    _tag_arg(p)
    p.add_argument("--kind", help="one kind, e.g. quantization_methods, kv_cache_dtypes, cli_flags, backends.moe")
    p.add_argument("--contains", help="with --kind: keep names containing this text")
    _json_arg(p)
    p.set_defaults(handler=cli_commands.registry)

    p = sub.add_parser("diff", help="what changed between two tags, kind by kind")
    p.add_argument("from_tag")
    p.add_argument("to_tag")
    p.add_argument("--kind", help="limit to one kind")
    _json_arg(p)
    p.set_defaults(handler=cli_commands.diff)

    p = sub.add_parser("refresh", help="fetch the source at a tag and derive its registry into the cache")
    p.add_argument("--tag", required=True, help="vLLM release tag, e.g. v0.33.0")
    p.add_argument(
        "--source",
        default="auto",
        help="auto (git, then pypi), git, pypi, wheel, installed (the vLLM in this environment), or a directory",
    )
    p.add_argument("--remote", help="git remote URL or path (default $VLLM_QUANT_MCP_REMOTE or GitHub)")
    p.add_argument("--index-url", help="simple index base URL (default $VLLM_QUANT_MCP_INDEX_URL or PyPI)")
    _json_arg(p)
    p.set_defaults(handler=cli_commands.refresh)

    p = sub.add_parser("grep", help="regex search over the vLLM tree at a tag")
    p.add_argument("pattern")
    _tag_arg(p)
    p.add_argument("--path-glob", help="only files matching this glob, e.g. 'vllm/config/**'")
    p.add_argument("-F", "--fixed-string", action="store_true", help="treat the pattern as a literal")
    p.add_argument("-i", "--ignore-case", action="store_true")
    p.add_argument("-C", "--context", type=int, default=0, help="lines of context (0-10)")
    p.add_argument("--max-results", type=int, default=100, help="1-500 (default 100)")
    _json_arg(p)
    p.set_defaults(handler=cli_commands.grep)

    p = sub.add_parser("read", help="print a file or a line range of the vLLM tree at a tag")
    p.add_argument("path", help="repository-relative path, e.g. vllm/config/cache.py")
    _tag_arg(p)
    p.add_argument("--start-line", type=int, default=1)
    p.add_argument("--end-line", type=int)
    _json_arg(p)
    p.set_defaults(handler=cli_commands.read)

    p = sub.add_parser("symbol", help="where a class, function or module-level name is defined at a tag")
    p.add_argument("name", help="e.g. CacheDType or Fp8Config.get_min_capability")
    _tag_arg(p)
    p.add_argument("--kind", choices=["class", "function", "variable"])
    p.add_argument("--max-results", type=int, default=50, help="1-500 (default 50)")
    _json_arg(p)
    p.set_defaults(handler=cli_commands.symbol)

    p = sub.add_parser("verify", help="check the knowledge base's claims against the registries")
    p.add_argument("--tags", nargs="+", metavar="TAG", help="only these tags (default: every known tag)")
    _json_arg(p)
    p.set_defaults(handler=cli_commands.verify)

    p = sub.add_parser("gates", help="what upgrading (or downgrading) between two tags does to a deployment")
    p.add_argument("from_tag")
    p.add_argument("to_tag")
    p.add_argument("--command", dest="serve_command", help="the current `vllm serve ...` line, quoted")
    p.add_argument("--env", action="append", default=[], metavar="NAME=VALUE", help="a deployment env var")
    p.add_argument("--gpu", help="e.g. h200, b200, mi300x")
    p.add_argument("--model-family", help="e.g. deepseek, qwen3, gemma")
    p.add_argument("--changes", choices=["breaking", "all", "none"], default="breaking", help="registry changes")
    _json_arg(p)
    p.set_defaults(handler=cli_commands.gates)

    p = sub.add_parser("issue", help="a vLLM issue or PR: state, closing PRs, first release with the fix")
    p.add_argument("number", help="e.g. 38652 or '#38652'")
    _tag_arg(p, "your release: is the fix in it?")
    p.add_argument("--repo", help="default vllm-project/vllm")
    _json_arg(p)
    p.set_defaults(handler=cli_commands.issue)

    p = sub.add_parser("search-issues", help="search vLLM issues and PRs")
    p.add_argument("query")
    p.add_argument("--state", choices=["open", "closed"])
    p.add_argument("--label")
    p.add_argument("--since", help="created on or after YYYY-MM-DD")
    _json_arg(p)
    p.set_defaults(handler=cli_commands.search_issues)

    p = sub.add_parser("pick", help="ranked quantization options for a model on a GPU")
    p.add_argument("--gpu", required=True, help="e.g. h200, 'H200 SXM', sm90")
    model = p.add_mutually_exclusive_group(required=True)
    model.add_argument("--model", help="Hugging Face repo id or local model directory")
    model.add_argument(
        "--model-figures",
        metavar="JSON",
        help='size and shape instead, e.g. \'{"params_b": 70.6, "layers": 80, "kv_heads": 8, "head_dim": 128}\'',
    )
    p.add_argument("--num-gpus", type=int, default=1)
    _tag_arg(p)
    p.add_argument("--priority", choices=["throughput", "latency", "accuracy", "memory"], default="throughput")
    p.add_argument("--context-len", type=int)
    p.add_argument("--concurrency", type=int)
    p.add_argument("--checkpoint", choices=["any", "as_is", "online", "offline"])
    _json_arg(p)
    p.set_defaults(handler=cli_commands.pick)

    p = sub.add_parser("render", help="the exact vllm serve command, checked against the tag's registry")
    p.add_argument("--model", required=True)
    _tag_arg(p)
    p.add_argument("--quantization", "-q")
    p.add_argument("--kv-cache-dtype")
    p.add_argument("--tensor-parallel-size", "-tp", type=int)
    p.add_argument("--pipeline-parallel-size", "-pp", type=int)
    p.add_argument("--expert-parallel", action="store_true")
    p.add_argument("--max-model-len", type=int)
    p.add_argument("--speculative", help="speculative config as JSON")
    p.add_argument("--quantization-config", help="online quantization config as JSON")
    p.add_argument("--linear-backend")
    p.add_argument("--moe-backend")
    p.add_argument("--env", action="append", default=[], metavar="NAME=VALUE")
    p.add_argument("--gpu", help="check capability against this GPU")
    p.add_argument("--checkpoint-dtype", help="e.g. bf16: applies the gates for unquantized checkpoints")
    p.add_argument("--format", choices=["shell", "argv", "docker", "k8s", "python"], default="shell")
    p.add_argument("extra_args", nargs=argparse.REMAINDER, help="after --: more vllm serve flags, validated too")
    _json_arg(p)
    p.set_defaults(handler=cli_commands.render)

    p = sub.add_parser(
        "audit", help="check a deploy script, Kubernetes manifest or compose file at a tag (exit 1 if invalid)"
    )
    p.add_argument("file", type=Path, help="the file to read")
    _tag_arg(p, "the release to audit against")
    _json_arg(p)
    p.set_defaults(handler=cli_commands.audit)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        code: int = args.handler(args)
    except KeyboardInterrupt:
        print("interrupted; nothing half-written was kept", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `... | head`: the reader left; exit quietly as other Unix tools do
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    return code


if __name__ == "__main__":
    raise SystemExit(main())
