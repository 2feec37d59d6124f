"""The shapes `audit_deployment` takes and answers in; findings are check_gates' (a declared dependency)."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from vllm_quant_mcp.knowledge.deploy.files import FileKind
from vllm_quant_mcp.tools.check_gates.models import Finding, GateMatch
from vllm_quant_mcp.tools.spec import Tag

__all__ = ["AuditQuery", "AuditReport", "FileKind", "InvocationAudit"]


class AuditQuery(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: Annotated[str, Field(min_length=1, max_length=500_000, description="The file's contents.")]
    tag: Tag = None
    filename: Annotated[
        str, Field(max_length=300, description="Its name; picks shell, Kubernetes or compose reading.")
    ] = "deploy.sh"
    gpu: Annotated[str | None, Field(max_length=100, description="Judge methods and KV dtypes on this GPU.")] = None


class InvocationAudit(BaseModel):
    where: str = Field(description="Where in the file, e.g. 'line 12' or 'Deployment/llama container vllm'.")
    line: int
    command: str = Field(description="The invocation as a `vllm serve` line.")
    env: list[str] = Field(description="Names of the variables the process sees from the file.")
    from_tag: str | None = Field(description="The release the file pins, when the store knows it.")
    pinned_by: str | None = None
    invalid: bool = Field(description="True when vLLM at the tag would reject something here.")
    error: str | None = Field(default=None, description="Why the invocation could not be read (not counted invalid).")
    unresolved: list[str] = Field(default=[], description="Variables the file does not set; findings on them are info.")
    findings: list[Finding] = []
    gates: list[GateMatch] = Field(default=[], description="Curated gates crossed from from_tag that concern it.")
    notes: list[str] = []
    model_shape: str | None = Field(default=None, description="With gpu: the model judged, or 'assumed: ...' and why.")


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
