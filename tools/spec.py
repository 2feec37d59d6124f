"""What a tool is, declared once: its query model is the one parameter spec, from which the edges build the rest.

The MCP signature (and so the input schema) and the CLI subcommand are both generated
from `ToolSpec.query`: each field's type, bounds, default and description are written
once, in the query model. `Cli` markers in a field's `Annotated` metadata only say how a
shell spells the parameter when `--field-name` is not the right spelling; they carry no
bound or help text of their own.

A tool package `tools/<name>/` holds `models.py` (query and result, cheap to import),
`tool.py` with `def <name>(ctx, query) -> result` (the pure function; heavy imports
allowed), `text.py` with `def render(result) -> str` (the human rendering) and, in its
`__init__`, `SPEC`. The server finds everything else by that convention.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, Generic, Literal, TypeVar

from pydantic import BaseModel, Field

from vllm_quant_mcp.knowledge.tags import MAX_TAG_CHARS

from .context import ToolContext

__all__ = ["Cli", "Cost", "EnvVars", "Tag", "TagName", "ToolSpec"]

Q = TypeVar("Q", bound=BaseModel)
R = TypeVar("R", bound=BaseModel)


# Every tag a caller names, bounded once: the schema refuses a long one before normalize_tag reads its shape.
TagName = Annotated[str, Field(max_length=MAX_TAG_CHARS)]
# No description: the server's instructions say once that an omitted tag is the pinned one (the listing's budget).
Tag = Annotated[TagName | None, Field()]
# A deployment's environment: names and values as long as a shell would plausibly hold, no payloads.
EnvVars = dict[Annotated[str, Field(max_length=128)], Annotated[str, Field(max_length=4096)]]

# What a call spends, so a server can keep kinds apart (server/mcp/lanes.py): reads of registries and the
# knowledge base (milliseconds), work over many registries or the knowledge base (audits, gates, diffs, rankings:
# tenths of a second to seconds of CPU, measured in benchmarks/bench_load.py), scans of a source tree (seconds of
# CPU, a fetch on first use), waits on a remote service (GitHub, the Hugging Face hub).
Cost = Literal["registry", "compute", "source", "network"]


@dataclass(frozen=True)
class Cli:
    """How the CLI spells one query field, where `--field-name` is not it."""

    flags: tuple[str, ...] = ()
    positional: bool = False
    metavar: str | None = None
    rest: bool = False  # a list that takes every word after `--`


@dataclass(frozen=True)
class ToolSpec(Generic[Q, R]):
    """One tool, as both edges present it."""

    name: str
    title: str
    description: str
    query: type[Q]
    result: type[R]
    cli: str
    cli_help: str
    mcp: bool = True
    # It can reach the network: GitHub, the Hugging Face hub, or a fetch of a tag's tree the cache lacks.
    # MCP reads a missing openWorldHint as true, so the local tools say false.
    open_world: bool = False
    cost: Cost = "registry"
    schema_version: int = 1  # of the result as `--json` prints it: bump when a field is renamed or removed

    def function(self) -> Callable[[ToolContext, Q], R]:
        """The tool's pure function, imported on first use: it may load tree-sitter, httpx or the knowledge base."""
        module = importlib.import_module(f"vllm_quant_mcp.tools.{self.name}.tool")
        fn: Callable[[ToolContext, Q], R] = getattr(module, self.name)
        return fn

    def renderer(self) -> Callable[[R], str]:
        module = importlib.import_module(f"vllm_quant_mcp.tools.{self.name}.text")
        fn: Callable[[R], str] = module.render
        return fn

    def run(self, ctx: ToolContext, arguments: dict[str, Any]) -> R:
        """Validate the arguments against the query model, then call the tool."""
        return self.function()(ctx, self.query.model_validate(arguments))
