"""The shapes `diff_tags` takes; it answers in knowledge.registry.diff's RegistryDiff."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from vllm_quant_mcp.knowledge.registry.diff import RegistryDiff
from vllm_quant_mcp.knowledge.registry.kinds import RegistryKind
from vllm_quant_mcp.tools.spec import Cli

__all__ = ["DiffTagsQuery", "RegistryDiff"]


class DiffTagsQuery(BaseModel):
    model_config = ConfigDict(extra="forbid")

    from_tag: Annotated[str, Cli(positional=True), Field(description="Older (or current) tag, e.g. v0.28.0.")]
    to_tag: Annotated[
        str,
        Cli(positional=True),
        Field(description="Target tag, e.g. v0.32.0; older than from_tag is a downgrade."),
    ]
    kind: Annotated[RegistryKind | None, Field(description="Limit to one kind; default all.")] = None
