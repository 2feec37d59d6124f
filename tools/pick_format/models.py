"""The shapes `pick_format` answers in, shared by its helpers.

Apart from the ranking code, which needs the knowledge base and the hub client, so the
MCP server can build the output schema at start-up without loading either.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from vllm_quant_mcp.knowledge.facts.native_formats import NativeFormats
from vllm_quant_mcp.knowledge.hub.memory import MemoryEstimate, WeightFamily
from vllm_quant_mcp.knowledge.hub.model_facts import ExplicitModel, ModelFacts
from vllm_quant_mcp.knowledge.registry.model import Provenance
from vllm_quant_mcp.knowledge.support.formats import Support
from vllm_quant_mcp.knowledge.support.judgement import Basis, Judgement
from vllm_quant_mcp.knowledge.support.utilization import Utilization
from vllm_quant_mcp.tools.spec import Tag

__all__ = [
    "Caveat",
    "CheckpointChoice",
    "CheckpointSource",
    "ExcludedOption",
    "FlagValue",
    "FormatOption",
    "GpuSummary",
    "Named",
    "PickFormatQuery",
    "PickFormatResult",
    "Priority",
    "Support",
]

CheckpointChoice = Literal["any", "as_is", "online", "offline"]
Priority = Literal["throughput", "latency", "accuracy", "memory"]


class PickFormatQuery(BaseModel):
    model_config = ConfigDict(extra="forbid")

    gpu: Annotated[str, Field(max_length=100, description="e.g. h200, sm90, mi300x.")]
    model: Annotated[
        str | None, Field(max_length=300, description="Hugging Face repo id or local model directory.")
    ] = None
    model_figures: Annotated[ExplicitModel | None, Field(description="Instead of model: its figures.")] = None
    num_gpus: Annotated[int, Field(ge=1, le=1024, description="GPUs for tensor parallelism.")] = 1
    tag: Tag = None
    priority: Priority = "throughput"
    context_len: Annotated[int | None, Field(ge=1)] = None
    concurrency: Annotated[int | None, Field(ge=1)] = None
    checkpoint: Annotated[
        CheckpointChoice | None,
        Field(description="as_is: serve the checkpoint's own format; online: quantize at load."),
    ] = None
    quantization: Annotated[str | None, Field(max_length=64)] = None  # the description says: only this one
    kv_cache_dtype: Annotated[str | None, Field(max_length=64)] = None

    @model_validator(mode="after")
    def _one_model(self) -> PickFormatQuery:
        if (self.model is None) == (self.model_figures is None):
            raise ValueError("give exactly one of model (a repo id or directory) and model_figures")
        return self


class FlagValue(BaseModel):
    flag: str
    value: str
    provenance: Provenance


class CheckpointSource(BaseModel):
    kind: Literal["as_is", "vendor", "llm-compressor", "modelopt", "quark", "online"]
    how: str
    citations: list[str] = []


class Named(BaseModel):
    """A value read from the registry of the tag, with where it is defined."""

    name: str
    provenance: Provenance


class Caveat(BaseModel):
    id: str
    text: str
    status: str = Field(
        description="Pain point status, 'gate' (a release change), 'avoid', 'memory', 'conditional', 'kernel' or "
        "'refusal' (a checkpoint property the method refuses at load)."
    )
    basis: Basis | None = Field(description="source or curated; None for memory arithmetic.")
    fixed_in: str | None = None
    fixed_at_tag: bool | None = Field(default=None, description="True when the tag already carries the fix.")
    citations: list[str] = []


class FormatOption(BaseModel):
    rank: int
    weight_format: WeightFamily
    quantization: Named = Field(description="The --quantization value.")
    kv_cache_dtype: Named = Field(description="The --kv-cache-dtype value.")
    serve_flags: list[FlagValue] = []
    support: Support = Field(
        description="native, fallback (weight-only) or emulated: from the linear kernel vLLM picks (source), else the "
        "curated GPU table."
    )
    support_basis: Basis = "curated"
    support_evidence: list[str]
    judgements: list[Judgement] = Field(
        description="Whether vLLM loads the method and which attention backend takes the KV dtype, each with its basis."
    )
    backend_notes: list[str] = []
    checkpoint: list[CheckpointSource] = Field(description="Ways to obtain a checkpoint this option serves.")
    memory: MemoryEstimate
    caveats: list[Caveat] = []
    rule: str = Field(description="Knowledge-base format rule this option comes from, and why.")
    citations: list[str] = []


class ExcludedOption(BaseModel):
    quantization: str
    kv_cache_dtype: str | None = None
    rule: str
    reason: str
    basis: Basis | None = Field(description="source or curated; None when the model's memory rules it out.")
    evidence: list[str] = Field(default=[], description="Permalinks of the source lines that decide.")
    weights_gb_per_gpu: float | None = Field(default=None, description="Set when the weights alone do not fit.")
    weight_bits: float | None = None


class GpuSummary(BaseModel):
    id: str
    name: str
    sm: int | None
    gfx: str | None
    memory_gb: float | None
    native: NativeFormats


class PickFormatResult(BaseModel):
    tag: str
    gpu: GpuSummary
    num_gpus: int
    priority: Priority
    model: ModelFacts
    architecture: Judgement | None = Field(
        default=None,
        description="Whether the tag's model registry builds the config's architectures (--model-impl auto); "
        "None for figures.",
    )
    options: list[FormatOption]
    omitted: int = Field(default=0, description="Viable options ranked below the ones listed.")
    excluded: list[ExcludedOption]
    notes: list[str] = []
    gpu_memory_utilization: Utilization = Field(
        description="The share of GPU memory every memory figure counts: the tag's default, or assumed."
    )
