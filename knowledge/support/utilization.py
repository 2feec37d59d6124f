"""The share of GPU memory vLLM takes at a tag: the `--gpu-memory-utilization` default its source states.

Every memory figure (the KV-cache budget, tokens that fit, "does not fit") is memory x this share -
weights, and vLLM changed the default (0.9 through v0.19.1, 0.92 from v0.20.0), so a figure made
with a constant is off by 2% of the card at one tag or the other. The value comes from the tag's
registry with the line that states it; where the registry has no literal default (a registry derived
before defaults were read, or a computed one), 0.9 is used and labelled assumed, never passed off as
the tag's.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from vllm_quant_mcp.knowledge.hub.memory import ASSUMED_GPU_MEMORY_UTILIZATION
from vllm_quant_mcp.knowledge.registry.model import Provenance, Registry

__all__ = ["FLAG", "Utilization", "utilization_at"]

FLAG = "--gpu-memory-utilization"


class Utilization(BaseModel):
    """The share the memory figures use, and whether the tag's source states it or we assumed it."""

    model_config = ConfigDict(frozen=True)

    value: float = Field(gt=0, le=1, description="The share of each GPU's memory vLLM may take.")
    basis: Literal["source", "assumed"] = Field(
        description="source: the default of --gpu-memory-utilization at the tag; assumed: the registry states none."
    )
    tag: str
    provenance: Provenance | None = Field(default=None, description="The line that states the default.")
    why_assumed: str | None = Field(default=None, description="Set when assumed: what the registry holds instead.")

    def phrase(self) -> str:
        """`0.92 (the --gpu-memory-utilization default at v0.33.0, vllm/config/cache.py:215)`, or `0.9 (assumed...)`."""
        if self.provenance is not None:
            where = f"{self.provenance.path}:{self.provenance.line}"
            return f"{self.value:g} (the {FLAG} default at {self.tag}, {where})"
        return f"{self.value:g} (assumed: {self.why_assumed})"


def utilization_at(registry: Registry) -> Utilization:
    """The tag's default for --gpu-memory-utilization, or 0.9 labelled assumed with the reason."""
    flag = next((f for f in registry.cli_flags if f.name == FLAG), None)
    default = flag.default if flag is not None else None
    if flag is not None and isinstance(default, float | int) and not isinstance(default, bool) and 0 < default <= 1:
        return Utilization(value=float(default), basis="source", tag=registry.tag, provenance=flag.default_provenance)
    if flag is None:
        why = f"{registry.tag} has no {FLAG} flag in its registry"
    elif flag.default_expression is not None:
        why = f"the default of {FLAG} at {registry.tag} is not a literal: {flag.default_expression}"
    elif flag.default_provenance is None:
        why = f"the registry of {registry.tag} states no default for {FLAG}"
    else:
        why = f"the default of {FLAG} at {registry.tag} is {default!r}, not a share of memory"
    return Utilization(value=ASSUMED_GPU_MEMORY_UTILIZATION, basis="assumed", tag=registry.tag, why_assumed=why)
