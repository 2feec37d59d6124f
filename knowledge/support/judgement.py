"""A support judgement and its basis: what every tool that says "runs" or "does not run" hands back.

`source`: derived from the vLLM tree at the tag, with the deciding lines as evidence.
`curated`: from the knowledge base, with its id in `why` and its citations; advisory, and
overruled wherever the source of the tag decides.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from vllm_quant_mcp.knowledge.registry.matrix import Verdict

__all__ = ["Basis", "Evidence", "Judgement"]

Basis = Literal["source", "curated"]


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
    citations: list[str] = Field(default=[], description="For a curated judgement: the sources it rests on.")
