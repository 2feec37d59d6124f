"""The support matrix of one tag, as derived from its source: which attention backend vLLM would pick for a
KV-cache dtype on a GPU, the refusals a method or shorthand meets on the way, and why, line by line.

Every verdict is `yes`, `no` or `conditional`, never a guess: `no` names the first check that
fails, `conditional` names each runtime check the source leaves open (a compiled
extension, an optional package, the model's config), and `assumptions` says which
defaults (VLLM_* variables unset, default attention config) the answer took.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from vllm_quant_mcp.knowledge.sources.tree import REPOSITORY_URL, Provenance

from .entry import Entry, Frozen

__all__ = [
    "PRIORITY_LIST",
    "AttentionBackendInfo",
    "AttentionSupport",
    "BackendVerdict",
    "BuildRaise",
    "CapOutcome",
    "Check",
    "KvSelection",
    "LoadRefusal",
    "Mode",
    "OnlineRefusal",
    "Verdict",
]

Verdict = Literal["yes", "no", "conditional"]
PRIORITY_LIST = "(priority list)"  # the backend named when the platform's order itself is decided at run time
Mode = Literal["dense", "mla", "sparse_mla"]


class Check(Frozen):
    """A line of vLLM that decides a verdict, or leaves it to run time (its permalink: `link(tag)`)."""

    why: str
    path: str
    line: int

    def link(self, tag: str) -> str:
        return f"{REPOSITORY_URL}/blob/{tag}/{self.path}#L{self.line}"


class BuildRaise(Check):
    """A raise in a selected backend's builder or impl constructor: reached (`no`) or decided at run time."""

    verdict: Literal["no", "conditional"]


class BackendVerdict(Frozen):
    backend: str
    verdict: Verdict
    checks: list[Check] = Field(
        default=[],
        description="no: the failing check; conditional: the runtime checks; yes: the line that accepts the KV dtype.",
    )


class CapOutcome(Frozen):
    """What the selector does on these capabilities: the backend it picks, or why none."""

    capabilities: list[str] = Field(description="Compute capabilities, e.g. ['9.0'], sharing this outcome.")
    verdict: Verdict
    backend: str | None = Field(default=None, description="The backend selected when the verdict is yes.")
    considered: list[BackendVerdict] = Field(description="Backends in priority order, up to the one selected.")
    construction: list[BuildRaise] = Field(
        default=[], description="Raises the selected backend's builder or impl constructor meets with this input."
    )
    assumptions: list[str] = Field(default=[], description="VLLM_* defaults the answer took, beyond the usual ones.")


class KvSelection(Entry):
    """`name` is `<mode>:<kv dtype>`, e.g. `dense:fp8_e5m2`; provenance is the platform's priority function."""

    platform: Literal["cuda", "rocm"]
    mode: Mode
    kv_cache_dtype: str
    outcomes: list[CapOutcome]


class AttentionBackendInfo(Entry):
    """One attention backend: `name` is its AttentionBackendEnum member, provenance that member's line."""

    class_name: str | None = None
    class_provenance: Provenance | None = None
    platforms: list[str] = Field(default=[], description="Platforms whose selector names it (cuda, rocm, cpu, xpu).")
    mla: bool | None = None
    sparse: bool | None = None
    kv_cache_dtypes: list[str] | None = Field(default=None, description="Its supported_kv_cache_dtypes list.")
    kv_provenance: Provenance | None = None
    head_sizes: list[int] | None = Field(default=None, description="get_supported_head_sizes(), when a literal list.")
    capabilities: list[str] = Field(
        default=[], description="Capabilities of the platform's grid that supports_compute_capability accepts."
    )
    conditional_capabilities: list[str] = []
    note: str | None = None


class AttentionSupport(Frozen):
    assumptions: list[str] = Field(default=[], description="What every answer here assumes of the run.")
    backends: list[AttentionBackendInfo] = []
    cuda: list[KvSelection] = []
    rocm: list[KvSelection] = []


class OnlineRefusal(Frozen):
    """A raise an online method class meets at layer construction, with the condition that guards it."""

    layer: Literal["linear", "moe"]
    condition: str = Field(description="The guarding condition as written, e.g. not is_device_capability_family(100).")
    family: int | None = Field(default=None, description="The capability family it requires, when that is the rule.")
    message: str
    provenance: Provenance


class LoadRefusal(Entry):
    """What `vllm serve` does at load with a checkpoint property earlier releases accepted.

    `refused`: provenance is the raise, `property` the condition guarding it. `redirected`: the
    method is sent to another (`redirect_to`) before its config is built; provenance is the branch.
    """

    outcome: Literal["refused", "redirected"]
    methods: list[str] = Field(description="--quantization values whose config reaches it.")
    property: str = Field(description="The condition on the checkpoint, as the source writes it.")
    message: str
    reached_from: Provenance | None = Field(default=None, description="The call on the load path that reaches it.")
    reached: bool = Field(default=True, description="False when the load path for that input never gets there.")
    decided_by: Check | None = Field(default=None, description="The line that keeps the path from the raise.")
    redirect_to: str | None = None
