"""Our error tree translated once for each edge: what an MCP client reads, and what the CLI prints and exits with.

    InvalidInputError, NotFoundError  the caller can fix it          MCP: tool error     CLI: exit 2
    UnavailableError                  a service or the cache failed  MCP: tool error     CLI: exit 3
    InternalError                     our data or code is wrong      MCP: crash (logged) CLI: exit 70
    pydantic ValidationError          arguments out of bounds        MCP: tool error     CLI: exit 2
    anything else                     a bug                          re-raised with its traceback

Unavailable is a tool error on MCP too, against the SDK's rule of thumb for server state:
its text says what is cached and what to retry or set, which the model can act on. The
MCP side of the table, with texts written for a model, is server/mcp/errors.py.
"""

from __future__ import annotations

from pydantic import ValidationError

from vllm_quant_mcp.knowledge.echo import clip, redact
from vllm_quant_mcp.knowledge.errors import (
    InternalError,
    InvalidInputError,
    NotFoundError,
    UnavailableError,
)

__all__ = ["EXIT_INTERNAL", "EXIT_UNAVAILABLE", "EXIT_USAGE", "cli_text", "exit_code", "validation_text"]

EXIT_USAGE = 2
EXIT_UNAVAILABLE = 3
EXIT_INTERNAL = 70  # EX_SOFTWARE


def validation_text(exc: ValidationError, spell: dict[str, str] | None = None) -> str:
    """One line per bad argument, named as the caller spelled it (`spell` maps field names to CLI flags)."""
    parts = []
    for error in exc.errors(include_url=False):
        field = clip(".".join(str(p) for p in error["loc"]), quote=False)
        where = (spell or {}).get(field, field) if field else "arguments"
        message = str(error["msg"]).removeprefix("Value error, ")
        parts.append(f"{where}: {message}")
    return redact("; ".join(parts))


def cli_text(message: str) -> str:
    """An error as the CLI prints it: no URL credentials, whatever layer wrote the message."""
    return redact(message)


def exit_code(exc: BaseException) -> int | None:
    """The CLI's exit code for an anticipated error, or None for a bug (which keeps its traceback)."""
    if isinstance(exc, InvalidInputError | NotFoundError | ValidationError):
        return EXIT_USAGE
    if isinstance(exc, UnavailableError):
        return EXIT_UNAVAILABLE
    if isinstance(exc, InternalError):
        return EXIT_INTERNAL
    return None
