"""A support judgement and its basis: what every tool that says "runs" or "does not run" hands back.

`source`: derived from the vLLM tree at the tag, with the deciding lines as evidence.
`curated`: from the knowledge base, with its id in `why` and its citations; advisory, and
overruled wherever the source of the tag decides.
`observed`: the real vLLM wheel run on real hardware (its provenance in `citations`); it decides for
the tag and GPU it was made on, above the source, and is carried to other tags only where the source
shows the same path.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from vllm_quant_mcp.knowledge.registry.matrix import Verdict

__all__ = ["Basis", "Evidence", "Judgement"]

Basis = Literal["source", "observed", "curated"]


class Evidence(BaseModel):
    """One line that decides, with its permalink at the tag."""

    why: str
    path: str
    line: int
    permalink: str


class Judgement(BaseModel):
    """Whether `subject` runs on `gpu` at `tag`, and on what basis."""

    subject: str = Field(description="What was asked, e.g. '--kv-cache-dtype fp8_e5m2'.")
    gpu: str
    tag: str
    verdict: Verdict
    basis: Basis
    via: str | None = Field(default=None, description="The backend or kernel path that runs it, when yes.")
    why: str
    evidence: list[Evidence] = []
    assumptions: list[str] = []
    citations: list[str] = Field(default=[], description="For a curated or observed judgement: what it rests on.")
    model: str | None = Field(
        default=None,
        description="The model shape judged, as read from its config, or 'assumed: ...' with why none was read.",
    )
