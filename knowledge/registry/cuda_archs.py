"""Which GPU architectures a release compiles each CUDA kernel family for, as its root CMakeLists.txt decides.

A kernel whose Python side vLLM selects still needs its compiled op: the `.cu` files of each family
(`SCALED_MM_ARCHS`, `FP4_SM100_ARCHS`, `MARLIN_ARCHS`...) are built only for the architectures
`cuda_archs_loose_intersection(<VAR> "<archs>" "${CUDA_ARCHS}")` leaves, often chosen by the CUDA
compiler's version (`if(${CMAKE_CUDA_COMPILER_VERSION} VERSION_GREATER_EQUAL 13.0)`), and only where the
block's own `if(... AND <VAR>)` holds. One entry per family block, its branches in source order.
"""

from __future__ import annotations

from pydantic import Field

from vllm_quant_mcp.knowledge.sources.tree import Provenance

from .entry import Entry, Frozen

__all__ = ["ArchBranch", "CudaArchs", "CudaBound"]


class CudaBound(Frozen):
    """One comparison with the CUDA compiler's version, e.g. `>=` 12.8; `negated` for NOT or an else branch."""

    op: str = Field(description="One of >=, >, <=, <, ==.")
    version: str


class ArchBranch(Frozen):
    """One `cuda_archs_loose_intersection` (or `set`) of a family: its arch list and the CUDA versions it holds for."""

    archs: list[str] = Field(description='The architectures as written, e.g. ["10.0f", "11.0f"].')
    cuda: list[CudaBound] = Field(default=[], description="Every bound must hold; [] holds for any CUDA version.")
    guards: list[str] = Field(
        default=[], description="Enclosing conditions that are not a CUDA version, as written (e.g. VLLM_GPU_LANG)."
    )
    line: int


class CudaArchs(Entry):
    """A kernel family's arch variable (`name`, `#2` on its second block) and the sources compiled for it."""

    branches: list[ArchBranch]
    sources: list[str] = Field(default=[], description="The .cu files set_gencode_flags_for_srcs compiles for it.")
    built_if: list[CudaBound] = Field(
        default=[], description="CUDA bounds of the if() around the sources' compilation (none: always built)."
    )
    compiled_at: Provenance | None = Field(default=None, description="The set_gencode_flags_for_srcs call.")
