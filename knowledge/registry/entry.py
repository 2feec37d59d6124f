"""What every registry entry is: a name at a tag, and where in the source it was read."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from vllm_quant_mcp.knowledge.sources.tree import Provenance

__all__ = ["Entry", "Frozen"]


class Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Entry(Frozen):
    name: str
    provenance: Provenance
