"""The shapes `check_gates` answers in, shared by its helpers.

Every name a result presents as existing at a tag sits in an Evidence row with that
tag and the registry entry's path, line and permalink, so a reader (or a test) can
hold each claim against the registry it came from.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from vllm_quant_mcp.knowledge.deploy.serve_command import ServeCommand
from vllm_quant_mcp.knowledge.facts.fact import CitationRef, cite
from vllm_quant_mcp.knowledge.registry.matrix import Verdict
from vllm_quant_mcp.knowledge.registry.model import Provenance
from vllm_quant_mcp.knowledge.support.judgement import Basis
from vllm_quant_mcp.tools.paging import Cursor, Limit, Page
from vllm_quant_mcp.tools.spec import Cli, EnvVars, TagName

if TYPE_CHECKING:  # the knowledge base's models: the server builds these shapes at start-up without loading it
    from vllm_quant_mcp.knowledge.facts.kinds import VersionGate

__all__ = [
    "ChangeFilter",
    "CheckGatesQuery",
    "CheckGatesResult",
    "Evidence",
    "EvidenceKind",
    "Finding",
    "GateMatch",
    "GateRef",
    "Hop",
    "RegistryChange",
    "Severity",
    "SupportEvidence",
    "evidence",
    "gate_ref",
]

ChangeFilter = Literal["breaking", "all", "none"]
Severity = Literal["breaks", "changes", "deprecated", "info"]
EvidenceKind = Literal["quantization_methods", "kv_cache_dtypes", "online_quantization", "cli_flags", "env_vars"]


class CheckGatesQuery(BaseModel):
    model_config = ConfigDict(extra="forbid")

    from_tag: Annotated[TagName, Cli(positional=True), Field(description="The release running now.")]
    to_tag: Annotated[TagName, Cli(positional=True), Field(description="The target release; older: a downgrade.")]
    serve_command: Annotated[
        str | None,
        Cli(flags=("--command",)),
        Field(max_length=20000, description="The `vllm serve ...` line, as written."),
    ] = None
    env: EnvVars | None = None  # the deployment's; the description says "(and env)"
    gpu: Annotated[str | None, Field(max_length=100, description="e.g. h200, sm90, mi300x.")] = None
    model_family: Annotated[str | None, Field(max_length=50, description="e.g. deepseek, qwen3, gemma, gpt-oss.")] = (
        None
    )
    registry_changes: Annotated[ChangeFilter, Cli(flags=("--changes",))] = "breaking"  # the choices say it
    limit: Limit = 100
    cursor: Cursor = None


class Evidence(BaseModel):
    """A registry entry as it stands at one tag: `name` (and `choice`, if set) exist in that tag's registry."""

    tag: str
    kind: EvidenceKind
    name: str
    choice: str | None = Field(default=None, description="A value among the flag's literal choices at this tag.")
    path: str
    line: int
    permalink: str


class GateRef(BaseModel):
    """A curated version gate from the knowledge base."""

    id: str
    basis: Literal["curated"] = "curated"
    version: str = Field(description="The release the change landed in.")
    change: str
    action: str
    breaking: bool
    reversed: bool = Field(default=False, description="True when a downgrade crosses the gate backwards (undoes it).")
    citations: list[CitationRef]


class GateMatch(GateRef):
    why: list[str] = Field(description="Which of the gate's affected items match the inputs, or why it is kept.")


class SupportEvidence(BaseModel):
    """How the one evaluator judged a value on the GPU at one end of the walk (source)."""

    tag: str
    verdict: Verdict
    basis: Basis = "source"
    via: str | None = Field(default=None, description="The attention backend that takes a KV dtype.")
    lines: list[str] = Field(default=[], description="Permalinks of the lines that decide.")
    assumptions: list[str] = []
    model: str | None = Field(default=None, description="The model shape judged, or 'assumed: ...' and why.")


class Finding(BaseModel):
    """What happens to one flag, flag value or env var of the given command at to_tag."""

    subject: str = Field(description="The flag (canonical name), flag value or env var concerned.")
    written: str = Field(description="How the command wrote it.")
    severity: Severity
    basis: Basis = Field(description="curated: from a knowledge-base gate.")
    problem: str
    action: str
    changed_at: str | None = Field(description="The release where the change happened, walking from from_tag.")
    gates: list[GateRef] = Field(default=[], description="Curated gates behind this finding.")
    citations: list[CitationRef] = Field(default=[], description="Of the gates and curated facts used.")
    evidence: list[Evidence] = []
    support: list[SupportEvidence] = Field(default=[], description="With a GPU: the verdict at from_tag and to_tag.")
    suggestions: list[str] = Field(default=[], description="Names that exist in to_tag's registry, closest first.")


class RegistryChange(BaseModel):
    """One entry added, removed, (un)deprecated or changed between the two tags of a hop."""

    kind: EvidenceKind
    name: str
    change: Literal[
        "added", "removed", "deprecated", "no_longer_deprecated", "choices_added", "choices_removed", "changed"
    ]
    values: list[str] = Field(default=[], description="Choices added or removed: they exist at evidence.tag.")
    detail: str | None = None
    evidence: Evidence = Field(description="The entry at the hop's tag that has it (the older one for removals).")


class Hop(BaseModel):
    from_tag: str
    to_tag: str
    gates: list[GateMatch]
    changes: list[RegistryChange]


class CheckGatesResult(Page):
    """A page of the answer: its items are the findings, then each hop's gates and registry changes in walk order.

    Every page walks every hop, each with this page's gates and changes (often none), and `command`
    is on the first page only; joined in order, the pages give the whole answer.
    """

    from_tag: str
    to_tag: str
    direction: Literal["upgrade", "downgrade", "same"]
    summary: str
    gpus: list[str] = Field(description="Knowledge-base GPU ids the gpu argument resolved to.")
    model_shape: str | None = Field(
        default=None, description="With gpu: the command's model as judged (read from its config, or assumed: why)."
    )
    model_family: str | None
    command: ServeCommand | None = Field(description="The parsed serve command, when one was given (first page).")
    findings: list[Finding] = Field(description="Flag by flag (then env var by env var) what breaks or changes.")
    hops: list[Hop] = Field(
        description="Every release crossed, in walk order, with the gates and changes of this page."
    )
    total: int = Field(description="Findings, gates and registry changes in the whole answer.")


def gate_ref(gate: VersionGate, reversed_: bool) -> GateRef:
    return GateRef(
        id=gate.id,
        version=gate.version,
        change=gate.change,
        action=gate.action,
        breaking=gate.breaking,
        reversed=reversed_,
        citations=[cite(c) for c in gate.citations],
    )


def evidence(tag: str, kind: EvidenceKind, name: str, where: Provenance, choice: str | None = None) -> Evidence:
    return Evidence(
        tag=tag, kind=kind, name=name, choice=choice, path=where.path, line=where.line, permalink=where.permalink
    )
