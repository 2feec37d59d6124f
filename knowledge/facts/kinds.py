"""The kinds of curated fact, one model each, as the data files under knowledge/facts/data/ spell them."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator, model_validator

from vllm_quant_mcp.knowledge.tags import normalize_tag

from .fact import Fact, Strict
from .native_formats import NativeFormats

__all__ = [
    "Affected",
    "DrafterPick",
    "FormatRule",
    "Gpu",
    "KvCacheDtypeFact",
    "Method",
    "MethodStatus",
    "NativeFormats",
    "PainPoint",
    "PullRequest",
    "Recipe",
    "Regime",
    "VersionGate",
]


class Gpu(Fact):
    name: str
    vendor: Literal["nvidia", "amd", "cpu"]
    architecture: str
    sm: int | None = Field(default=None, ge=10, le=200, description="CUDA compute capability as major*10+minor.")
    gfx: str | None = Field(default=None, pattern=r"^gfx\d+[a-z]?$")
    memory_gb: float | None = Field(default=None, gt=0, description="Memory per device as sold; None for CPUs.")
    memory_kind: Literal["HBM3", "HBM3e", "HBM2e", "GDDR6", "GDDR7", "LPDDR5X", "system"]
    native: NativeFormats
    aliases: list[str] = Field(min_length=1, description="Lower-case spellings resolved to this GPU.")

    @field_validator("aliases")
    @classmethod
    def _lower(cls, value: list[str]) -> list[str]:
        if any(a != a.lower().strip() for a in value):
            raise ValueError(f"aliases are matched lower-case; write them that way: {value}")
        return value

    @model_validator(mode="after")
    def _arch_id(self) -> Gpu:
        if self.vendor == "nvidia" and self.sm is None:
            raise ValueError(f"GPU {self.id}: an NVIDIA part needs its sm (e.g. 90)")
        if self.vendor == "amd" and self.gfx is None:
            raise ValueError(f"GPU {self.id}: an AMD part needs its gfx arch (e.g. gfx942)")
        return self


Regime = Literal["kv_capacity", "bandwidth", "compute", "multi_node_ep", "general"]


class FormatRule(Fact):
    """A weight + KV format pick for some hardware under a workload regime, with the why."""

    hardware: list[str] = Field(description="GPU ids this rule is for; empty = any hardware.")
    regime: Regime
    workload: str | None = Field(default=None, description="The narrower situation, e.g. accuracy-critical.")
    weight_formats: list[str] = Field(description="--quantization values (or online shorthands) to use.")
    kv_cache_dtypes: list[str] = Field(default_factory=list)
    serve_flags: dict[str, str] = Field(default={}, description="Extra `vllm serve` flags the pick needs.")
    env: dict[str, str] = Field(default_factory=dict)
    avoid: list[str] = Field(default=[], description="Formats this rule steers away from on that hardware.")
    reason: str
    table_row: int | None = Field(default=None, ge=1, description="Row in the hardware selection table.")
    hardware_label: str | None = Field(default=None, description="How the table names the hardware column.")

    @model_validator(mode="after")
    def _table(self) -> FormatRule:
        if (self.table_row is None) != (self.hardware_label is None):
            raise ValueError(f"rule {self.id}: a table row needs both table_row and hardware_label")
        return self


MethodStatus = Literal["production", "online", "legacy", "deprecated", "removed", "plugin"]


class Method(Fact):
    """One `--quantization` value."""

    name: str
    use: str
    status: MethodStatus
    status_since: str | None = Field(default=None, description="Tag the current status began.")
    min_capability: int | None = Field(default=None, description="As get_min_capability() returns it, at `checked_at`.")
    checked_at: str | None = Field(default=None, description="Tag min_capability was read at.")
    config_class: str | None = None
    plugin: str | None = Field(default=None, description="Out-of-tree package that now provides it.")
    replaced_by: list[str] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)

    @field_validator("status_since", "checked_at")
    @classmethod
    def _status_tags(cls, value: str | None) -> str | None:
        return None if value is None else normalize_tag(value)

    @model_validator(mode="after")
    def _status(self) -> Method:
        if self.status in ("removed", "plugin") and self.until is None:
            raise ValueError(f"method {self.name}: status {self.status} needs `until` (the first tag without it)")
        if self.status == "plugin" and not self.plugin:
            raise ValueError(f"method {self.name}: status plugin needs the plugin package name")
        return self


Platform = Literal["cuda", "rocm", "xpu", "cpu", "any"]


def _any_platform() -> list[Platform]:
    return ["any"]


class KvCacheDtypeFact(Fact):
    name: str
    use: str
    platforms: list[Platform] = Field(default_factory=_any_platform)
    min_sm: int | None = None
    only_sm: list[int] = Field(default=[], description="Compute capabilities it is limited to, if narrower.")
    backends: list[str] = Field(default=[], description="Attention backends that serve it; empty = not restricted.")
    excluded_head_sizes: list[int] = Field(default_factory=list)
    needs_scales: bool | None = Field(default=None, description="Whether checkpoint (or calibrated) scales are needed.")
    notes: list[str] = Field(default_factory=list)


class Affected(Strict):
    """Who a change reaches: the flag, value, env var, GPU or model family to look for."""

    kind: Literal[
        "flag", "flag_value", "method", "kv_dtype", "env_var", "config_key", "gpu", "model_family", "dependency"
    ]
    name: str
    flag: str | None = Field(default=None, description="For flag_value: the flag the value is given to.")


class VersionGate(Fact):
    version: str
    change: str
    affects: list[Affected] = Field(min_length=1)
    action: str
    breaking: bool

    @field_validator("version")
    @classmethod
    def _version_tag(cls, value: str) -> str:
        return normalize_tag(value)


class PainPoint(Fact):
    symptom: str
    cause: str
    status: Literal["fixed", "open", "wont_fix", "closed_unfixed", "rfc"]
    fixed_in: str | None = Field(default=None, description="First release with the fix; None when unknown or unfixed.")
    workaround: str
    affects: list[Affected] = Field(default_factory=list)

    @field_validator("fixed_in")
    @classmethod
    def _fixed_tag(cls, value: str | None) -> str | None:
        return None if value is None else normalize_tag(value)

    @model_validator(mode="after")
    def _fixed(self) -> PainPoint:
        if self.fixed_in is not None and self.status != "fixed":
            raise ValueError(f"pain point {self.id}: fixed_in {self.fixed_in} given but status is {self.status!r}")
        return self


class Recipe(Fact):
    """How to produce a checkpoint vLLM loads."""

    tool: Literal["llm-compressor", "modelopt", "vendor", "quark"]
    scheme: str = Field(description="Scheme, modifier or config name in that tool.")
    produces: str = Field(description="The checkpoint format.")
    serve_quantization: str | None = Field(description="--quantization value that serves it (None = auto-detected).")
    hardware: list[str] = Field(default_factory=list)
    calibration: str | None = None
    notes: list[str] = Field(default_factory=list)


class DrafterPick(Fact):
    target: str = Field(description="Target model families this pick is for.")
    pick: Literal["dflash", "eagle3", "mtp"]
    reason: str
    training: str | None = None


class PullRequest(Fact):
    """A PR's state as its thread showed it: claims may cite a PR only once it is recorded merged here.

    An open PR describes a change the release may not have; a claim built on one reads as fact
    (the fp8 gate once cited an open PR for a refusal no release performs). Its own citation is
    the thread; `seen` says where and when the state was read.
    """

    number: int = Field(ge=1)
    state: Literal["merged", "open", "unknown"] = Field(description="unknown: no stored thread showed the state.")
    seen: str = Field(description="Where the state was read, e.g. the stored thread of the issues corpus.")
