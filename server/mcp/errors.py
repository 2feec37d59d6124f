"""What an MCP client reads when a call fails: one line naming the bad argument, what is allowed, the way on.

The way on is always something the agent can do over MCP (another argument, a nearby
value, a tool): it cannot run our CLI, so a CLI command in a message from the shared
layers is rewritten here, and an unknown tag names the tool that lists the known ones.
Argument errors come from two places and read alike: the SDK's validation of the tool's
signature (server/mcp/app.py hands those here) and the query model's own validators.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from mcp.server.mcpserver.exceptions import ToolError
from pydantic import ValidationError
from pydantic.fields import FieldInfo

from vllm_quant_mcp.knowledge.echo import clip, redact
from vllm_quant_mcp.knowledge.errors import InternalError, InvalidInputError, NotFoundError, UnavailableError
from vllm_quant_mcp.knowledge.names import nearest
from vllm_quant_mcp.knowledge.tags import UnknownTagError

__all__ = ["arguments_text", "as_tool_errors", "mcp_text", "unknown_arguments_text"]

log = logging.getLogger("vllm_quant_mcp")

_CLI = re.compile(r"`vllm-quant-mcp (\w[\w-]*)([^`]*)`")
_CLI_WAYS = {
    "tags": "list_tags",
    "refresh": "a refresh of that release on the server's host (by whoever runs the server)",
}


def _one_line(text: str) -> str:
    """Every message an MCP client reads passes here: one line, and no URL credentials (a mirror's, a remote's)."""
    return redact(" ".join(text.split()))


def mcp_text(exc: BaseException) -> str:
    """The message of one of our errors as an MCP client should read it."""
    if isinstance(exc, UnknownTagError):
        near = f" Nearest known tags: {', '.join(exc.suggestions)}." if exc.suggestions else ""
        return (
            f"tag {exc.tag!r} is not known to this server.{near} list_tags lists every known tag; a newer "
            "release is added on the server's host by whoever runs it, so until then answer for a known tag "
            "and say which."
        )
    return _one_line(_CLI.sub(lambda m: _CLI_WAYS.get(m.group(1), "the server's operator"), str(exc)))


def _allowed(field: FieldInfo | None) -> str:
    return f": {field.description}" if field is not None and field.description else ""


def arguments_text(exc: ValidationError, fields: Mapping[str, FieldInfo]) -> str:
    """One line for every bad argument: its name, what was wrong, and what it takes (or the nearest names)."""
    parts = []
    for error in exc.errors(include_url=False):
        name = clip(".".join(str(p) for p in error["loc"]), quote=False) or "arguments"
        top = str(error["loc"][0]) if error["loc"] else ""
        ctx: dict[str, Any] = error.get("ctx") or {}
        given = error.get("input")
        if error["type"] == "missing":
            parts.append(f"missing required argument {name}{_allowed(fields.get(top))}")
        elif error["type"] in ("extra_forbidden", "unexpected_keyword_argument"):
            parts.append(unknown_arguments_text({top: given}, fields) or name)
        elif "expected" in ctx:
            options = [o.strip(" '") for o in re.split(r",| or ", str(ctx["expected"])) if o.strip(" '")]
            guess = nearest(str(given)[:100], options, cutoff=0.4)
            hint = f" (nearest: {guess[0]})" if guess else ""
            parts.append(f"{name}={clip(given)} is not allowed{hint}; choose one of {ctx['expected']}")
        else:
            message = str(error["msg"]).removeprefix("Value error, ")
            parts.append(f"{name}={clip(given)}: {message}" if top in fields else f"{name}: {message}")
    return _one_line("; ".join(parts))


def unknown_arguments_text(given: Mapping[str, Any], fields: Mapping[str, FieldInfo]) -> str | None:
    """The arguments a tool does not take (the SDK would drop them silently, and `tga` would mean the default tag)."""
    unknown = [name for name in given if name not in fields]
    if not unknown:
        return None
    parts = []
    for name in unknown:
        guess = nearest(name, fields, cutoff=0.5)
        parts.append(f"unknown argument {clip(name, quote=False)}" + (f" (did you mean {guess[0]}?)" if guess else ""))
    return _one_line(f"{'; '.join(parts)}; arguments: {', '.join(fields)}")


@contextmanager
def as_tool_errors(tool: str, fields: Mapping[str, FieldInfo]) -> Iterator[None]:
    """Anticipated failures become tool errors the model can act on; internal ones are logged and re-raised."""
    try:
        yield
    except (InvalidInputError, NotFoundError, UnavailableError) as exc:
        raise ToolError(mcp_text(exc)) from exc
    except ValidationError as exc:
        raise ToolError(arguments_text(exc, fields)) from exc
    except InternalError:
        log.exception("internal error in tool %s", tool)
        raise
