"""The kinds of curated fact, one model each, as the data files under knowledge/facts/data/ spell them."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator, model_validator

from vllm_quant_mcp.knowledge.tags import normalize_tag

from .fact import Fact, Strict
from .native_formats import NativeFormats

__all__ = [
    "Affected",
    "BackendRun",
    "DrafterPick",
    "FormatRule",
    "Gpu",
    "KvCacheDtypeFact",
    "Method",
    "MethodStatus",
    "NativeFormats",
    "Observation",
    "PainPoint",
    "PullRequest",
    "Recipe",
    "Regime",
    "RunSetting",
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


class RunSetting(Strict):
    """Where an observation was made: the hardware and software stack, as recorded at the run."""

    gpu_name: str = Field(description="As the driver names it, e.g. NVIDIA H200.")
    sm: int = Field(ge=10, le=200, description="The compute capability, major*10+minor.")
    driver: str
    cuda: str
    torch: str
    vllm: str = Field(description="The vLLM wheel run, e.g. '0.26.0 wheel'.")
    model: str = Field(description="The checkpoint's shape, e.g. tiny random-weight BF16 Llama, head 128, GQA 8/2.")
    settings: str = Field(default="", description="LLM(...) arguments beyond the model, e.g. enforce_eager=True.")
    date: str = Field(pattern=r"^\d{4}-\d{2}-\d{2}$")


class BackendRun(Strict):
    """What one attention backend did with the observed input: ran, failed (where, with what), or was refused."""

    backend: str
    outcome: Literal["runs", "fails", "rejected_at_selection"]
    stage: str | None = Field(default=None, description="Where it failed: first forward, plan, an assertion's line.")
    error: str | None = Field(default=None, description="The exception as vLLM printed it.")


class Observation(Fact):
    """The real vLLM wheel run on real hardware with one KV dtype and model shape: what each backend did.

    It decides the verdict at `tag` on GPUs of capability `run.sm`, above the source; elsewhere it
    is carried only where the source selects the same backend through the same lines.
    """

    tag: str
    kv_cache_dtype: str
    mode: Literal["dense", "mla", "sparse_mla"] = Field(description="The model shape run, as the matrix names them.")
    model_dtype: Literal["bfloat16", "float16"] = "bfloat16"
    gpu: str = Field(description="The GPU table's id for the GPU run on.")
    run: RunSetting
    default_backend: str | None = Field(default=None, description="The backend vLLM selected with no override.")
    backends: list[BackendRun] = Field(min_length=1)
    summary: str

    @field_validator("tag")
    @classmethod
    def _observed_tag(cls, value: str) -> str:
        return normalize_tag(value)

    def provenance(self) -> str:
        r = self.run
        return (
            f"observed on an {r.gpu_name} (SM {r.sm // 10}.{r.sm % 10}; driver {r.driver}, CUDA {r.cuda}, torch "
            f"{r.torch}), vLLM {r.vllm}, {r.model}" + (f", {r.settings}" if r.settings else "") + f", {r.date}"
        )

    def outcome_of(self, backend: str) -> BackendRun | None:
        return next((b for b in self.backends if b.backend == backend), None)
