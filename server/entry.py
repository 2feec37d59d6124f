"""The `vllm-quant-mcp` command: `--version` and a common `grep` answered before anything heavy is imported, else
the full CLI.

Importing the generated CLI (cli.py) loads pydantic, the MCP SDK and every tool's spec, about
half a second; a grep of a refreshed tag needs none of it (cli/grep.py), so this module,
which the console script points at, imports nothing until it knows which it is.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    arguments = sys.argv[1:] if argv is None else list(argv)
    if arguments in (["--version"], ["-V"]):  # answered as fast as `uv --version`; the full parser says the same
        from importlib.metadata import version

        print(f"vllm-quant-mcp {version('vllm-quant-mcp')}")
        return 0
    if arguments[:1] == ["grep"]:
        from vllm_quant_mcp.server.cli.grep import grep

        fast = grep(arguments[1:])
        if fast is not None:
            return fast
    from vllm_quant_mcp.server.cli.main import main as full

    return full(arguments)


if __name__ == "__main__":
    raise SystemExit(main())
