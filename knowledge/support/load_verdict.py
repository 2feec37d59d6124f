"""The verdict of a load question and the checkpoint it is asked about: the models loading.py answers with."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from vllm_quant_mcp.knowledge.registry.loading import LoadOutcome, Raise
from vllm_quant_mcp.knowledge.support.judgement import Evidence

__all__ = ["Checkpoint", "LoadVerdict", "cite", "raised_verdict"]


class Checkpoint(BaseModel):
    """What vLLM reads of a checkpoint's quantization: the method its config names, or none."""

    quant_method: str | None = Field(description="quantization_config.quant_method; None: not quantized.")
    source: str = Field(description="Where that was read, e.g. '--checkpoint-dtype bf16' or a config.json path.")
    quantization_config: dict[str, Any] | None = Field(
        default=None, exclude=True, description="The dict from_config is given; None where only the name is known."
    )
    model_type: str | None = Field(default=None, exclude=True, description="config.json's model_type.")


class LoadVerdict(BaseModel):
    subject: str = Field(description="e.g. '--quantization awq_marlin on a checkpoint without a quantization config'.")
    tag: str
    outcome: LoadOutcome
    loads_as: str | None = None
    basis: Literal["source"] = "source"
    why: str
    raised: Raise | None = Field(default=None, description="vLLM's own exception and message, where it refuses.")
    scheme: dict[str, Any] = Field(
        default={}, description="What the config's constructor was given from the checkpoint (bits, group size...)."
    )
    evidence: list[Evidence] = []
    assumptions: list[str] = []


def raised_verdict(
    tag: str, subject: str, outcome: LoadOutcome, loads_as: str | None, why: str, raised: Raise
) -> LoadVerdict:
    return LoadVerdict(
        subject=subject,
        tag=tag,
        outcome=outcome,
        loads_as=loads_as,
        why=why,
        raised=raised,
        evidence=[cite(why, raised.provenance.path, raised.provenance)],
    )


def cite(why: str, path: str, provenance: Any) -> Evidence:
    return Evidence(why=why, path=path, line=provenance.line, permalink=provenance.permalink)
