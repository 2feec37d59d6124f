"""Which linear kernel vLLM picks, per tag, scheme and GPU, as derived from its source, and why, line by line.

vLLM keeps, per kind of quantized linear layer, a list of kernel classes in priority order for each
platform (`_POSSIBLE_KERNELS`, `_POSSIBLE_FP8_KERNELS`...), reorders it (Humming ahead of Marlin on the
GPUs Humming is preferred on), narrows it to `--linear-backend`, then takes the first class whose
`is_supported(capability)` (or `get_min_capability()`) and `can_implement(config)` hold. Every verdict
here is `yes`, `no` (the failing check's line) or `conditional` (the run-time check that decides:
an optional package, a compiled op, the layer's shape), never a guess.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from vllm_quant_mcp.knowledge.sources.tree import Provenance

from .entry import Entry, Frozen
from .matrix import Check, Verdict

__all__ = [
    "KernelList",
    "KernelOutcome",
    "KernelSelection",
    "KernelSupport",
    "KernelVerdict",
    "LinearBackend",
    "MoeOutcome",
    "MoeSelection",
    "Platform",
]


Platform = Literal["cuda", "rocm"]
_PLATFORM = "The platform walked: cuda (NVIDIA, by SM) or rocm (AMD Instinct, by the capability torch reports)."


class KernelVerdict(Frozen):
    kernel: str
    verdict: Verdict
    checks: list[Check] = Field(
        default=[],
        description="no: the failing check; conditional: the run-time checks; yes: the return a check chain reached "
        "(an oracle before v0.17).",
    )
    conditions: list[str] = Field(
        default=[], description="What the verdict assumed of the install (an optional package present), if anything."
    )
    accepted: Check | None = Field(
        default=None, description="yes: the return of the class's own check (can_implement, is_supported_config)."
    )


class KernelOutcome(Frozen):
    """What the selection does on these capabilities: the kernel it picks, or why none."""

    capabilities: list[str] = Field(description="Compute capabilities, e.g. ['9.0'], sharing this outcome.")
    platform: Platform = Field(default="cuda", description=_PLATFORM)
    linear_backend: str = Field(default="auto", description="The --linear-backend value the walk was made with.")
    verdict: Verdict
    kernel: str | None = Field(
        default=None,
        description="The kernel picked (conditional: the one that runs if the open checks ahead of it fail).",
    )
    considered: list[KernelVerdict] = Field(description="Candidates in the order walked, up to the one picked.")
    runner_up: KernelVerdict | None = Field(
        default=None, description="Where the walk goes if the kernel picked is disabled (VLLM_DISABLED_KERNELS)."
    )
    reordered: Check | None = Field(default=None, description="The rule that reordered the list on this GPU.")


class KernelList(Entry):
    """One `_POSSIBLE_*` list: `name` is the list (its CUDA member; `name[ROCM]` the ROCm one), provenance its
    assignment, `kernels` in priority order."""

    kernels: list[str]


class _Located(Frozen):
    """Named and located like an Entry, but not a registry kind: the tool listing names every kind, and its budget
    leaves room for one more; these are reached through the kernel judgements instead (knowledge/support/kernels.py).
    """

    name: str
    provenance: Provenance


class LinearBackend(_Located):
    """A `--linear-backend` value: `name` is the value, `kernels` the classes it narrows a list to."""

    kernels: list[str]


class KernelSelection(_Located):
    """`name` is a scheme (e.g. `fp8-w8a8-tensor`, `gptq-w4a16`); provenance is the list the walk reads."""

    scheme: str = Field(description="The scheme in words: weight and activation dtypes, group size, symmetry.")
    weight_only: bool = Field(description="Activations stay in the model dtype (BF16): weight-only quantization.")
    outcomes: list[KernelOutcome]


class MoeOutcome(Frozen):
    """What an oracle does on these capabilities and parallel layout: the backend and expert class, or why none."""

    capabilities: list[str]
    platform: Platform = Field(default="cuda", description=_PLATFORM)
    parallel: str = Field(description="tp (no expert parallelism) or ep<N> (--enable-expert-parallel over N GPUs).")
    verdict: Verdict
    backend: str | None = Field(default=None, description="The MoE backend enum member picked.")
    experts: str | None = Field(default=None, description="The expert class that accepted the config.")
    considered: list[KernelVerdict] = Field(description="`BACKEND: ExpertClass` in the order walked, up to the pick.")
    order: list[str] = Field(default=[], description="The priority list as walked on this GPU.")
    reordered: Check | None = None
    moe_backend: str = Field(
        default="auto", description="The --moe-backend value: auto walks the list; another asks for one backend."
    )
    raises: Check | None = Field(default=None, description="Forced: the raise vLLM meets when that backend refuses.")


class MoeSelection(_Located):
    """`name` is a MoE scheme (`fp8-tensor`, `nvfp4`); provenance is the oracle's select function."""

    scheme: str
    outcomes: list[MoeOutcome]
    forced: list[str] = Field(default=[], description="The --moe-backend values the oracle maps to a backend.")
    unmapped: Check | None = Field(
        default=None, description="The raise any other --moe-backend value meets (the oracle's map_*_backend)."
    )


class KernelSupport(Frozen):
    """The selections walked over the `kernels` kind's lists, per scheme and GPU (linear) and parallel layout (MoE)."""

    assumptions: list[str] = Field(default=[], description="What every answer here assumes of the run.")
    backends: list[LinearBackend] = Field(
        default=[], description="--linear-backend values (_LINEAR_BACKEND_KERNEL_MAP)."
    )
    selections: list[KernelSelection] = []
    moe_assumptions: list[str] = []
    moe: list[MoeSelection] = []
