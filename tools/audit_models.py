"""What audit answers: kept free of heavy imports so the server registers it at start-up."""

from __future__ import annotations

from pydantic import BaseModel, Field

from vllm_quant_mcp.knowledge.deploy_files import FileKind

from .gates_models import Finding, GateMatch

__all__ = ["AuditReport", "FileKind", "InvocationAudit"]


class InvocationAudit(BaseModel):
    where: str = Field(description="Where in the file, e.g. 'line 12' or 'Deployment/llama container vllm'.")
    line: int
    command: str = Field(description="The invocation as a `vllm serve` line.")
    env: list[str] = Field(description="Names of the variables the process sees from the file.")
    from_tag: str | None = Field(description="The release the file pins, when the store knows it.")
    pinned_by: str | None = None
    invalid: bool = Field(description="True when vLLM at the tag would reject something here.")
    error: str | None = Field(default=None, description="Why the invocation could not be read (not counted invalid).")
    findings: list[Finding] = []
    gates: list[GateMatch] = Field(default=[], description="Curated gates crossed from from_tag that concern it.")
    notes: list[str] = []


class AuditReport(BaseModel):
    tag: str
    filename: str
    file_kind: FileKind
    ok: bool = Field(description="False when any invocation holds something the tag rejects; exit non-zero then.")
    invalid_count: int = Field(description="Findings of severity 'breaks' across the file.")
    risky_count: int = Field(description="Findings of severity 'changes' or 'deprecated'.")
    unreadable_count: int
    summary: str
    invocations: list[InvocationAudit]
