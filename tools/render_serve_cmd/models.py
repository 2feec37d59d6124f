"""What render_serve_cmd answers: kept free of heavy imports so the server registers it at start-up."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from vllm_quant_mcp.knowledge.facts.fact import CitationRef
from vllm_quant_mcp.knowledge.registry.model import Provenance
from vllm_quant_mcp.knowledge.support.judgement import Judgement
from vllm_quant_mcp.tools.spec import Cli, EnvVars, Tag

__all__ = ["EnvUse", "FlagUse", "OutputFormat", "RenderQuery", "RenderResult"]

OutputFormat = Literal["shell", "argv", "docker", "k8s", "python"]


class RenderQuery(BaseModel):
    model_config = ConfigDict(extra="forbid")

    model: Annotated[str, Field(min_length=1, max_length=300, description="Repo id or path of the checkpoint.")]
    tag: Tag = None
    quantization: Annotated[str | None, Cli(flags=("--quantization", "-q")), Field(max_length=64)] = None
    kv_cache_dtype: Annotated[str | None, Field(max_length=64)] = None
    tensor_parallel_size: Annotated[int | None, Cli(flags=("--tensor-parallel-size", "-tp")), Field(ge=1)] = None
    pipeline_parallel_size: Annotated[int | None, Cli(flags=("--pipeline-parallel-size", "-pp")), Field(ge=1)] = None
    expert_parallel: bool = False
    max_model_len: Annotated[int | None, Field(ge=1)] = None
    speculative: Annotated[dict[str, Any] | None, Field(description="--speculative-config as an object.")] = None
    quantization_config: Annotated[dict[str, Any] | None, Field(description="Online quantization config.")] = None
    linear_backend: Annotated[str | None, Field(max_length=64)] = None
    moe_backend: Annotated[str | None, Field(max_length=64)] = None
    extra_args: Annotated[
        list[Annotated[str, Field(max_length=4096)]] | None,
        Cli(rest=True),
        Field(max_length=200, description="More flags, e.g. ['--max-num-seqs', '64']."),
    ] = None
    env: EnvVars | None = None
    gpu: Annotated[str | None, Field(max_length=100, description="e.g. h100.")] = None
    checkpoint_dtype: Annotated[
        str | None, Field(max_length=32, description="e.g. bf16: applies unquantized-checkpoint gates.")
    ] = None
    format: OutputFormat = "shell"


class FlagUse(BaseModel):
    """One flag of the rendered command and where the tag defines it (and its value, when that is an entry)."""

    flag: str
    value: str | None = Field(description="As rendered; None for a boolean flag.")
    field: str | None = Field(description="The EngineArgs field it sets (the LLM() keyword).")
    provenance: Provenance
    value_provenance: Provenance | None = Field(
        default=None, description="Where the value is defined: its method, KV dtype, backend or config-key entry."
    )
    default: str | None = Field(
        default=None,
        description="The tag's default for the flag and the line that states it, e.g. '0.92 (vllm/config/cache.py:215)'"
        "; None when the source states none.",
    )


class EnvUse(BaseModel):
    name: str
    value: str
    provenance: Provenance | None = Field(description="Where vllm/envs.py defines it; None for non-VLLM_ variables.")


class RenderResult(BaseModel):
    tag: str
    format: OutputFormat
    output: str | list[str] = Field(description="The command in the requested format (a list for argv).")
    argv: list[str] = Field(description="The full argv, starting with 'vllm', 'serve', <model>.")
    env: list[EnvUse]
    flags: list[FlagUse] = Field(description="Every flag rendered, in order, with where the tag defines it.")
    gpu: str | None = Field(description="Knowledge-base GPU id capability was checked against.")
    warnings: list[str] = Field(description="Each opens with its basis: [source] (the tag's code) or [curated].")
    judgements: list[Judgement] = Field(
        default=[], description="With gpu: whether the method loads and which backend takes the KV dtype, and why."
    )
    citations: list[CitationRef]
