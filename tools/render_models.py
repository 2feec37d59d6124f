"""What render_serve_cmd answers: kept free of heavy imports so the server registers it at start-up."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from vllm_quant_mcp.knowledge.registry import Provenance

from .gates_models import CitationRef

__all__ = ["EnvUse", "FlagUse", "OutputFormat", "RenderResult"]

OutputFormat = Literal["shell", "argv", "docker", "k8s", "python"]


class FlagUse(BaseModel):
    """One flag of the rendered command and where the tag defines it (and its value, when that is an entry)."""

    flag: str
    value: str | None = Field(description="As rendered; None for a boolean flag.")
    field: str | None = Field(description="The EngineArgs field it sets (the LLM() keyword).")
    provenance: Provenance
    value_provenance: Provenance | None = Field(
        default=None, description="Where the value is defined: its method, KV dtype, backend or config-key entry."
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
    warnings: list[str]
    citations: list[CitationRef]
