"""What vLLM does with a `--linear-backend` value that names no kernel of a layer's list, read from the tag's own lines.

The kernel walk is made for every value whose kernels meet the list; a value that meets none is
handled by the chooser, and releases differ: up to v0.27.x each chooser raises ValueError ("...
was requested but no 'X' kernel exists for mixed-precision layers"), from v0.28.0 a shared helper
logs a warning and selects from the whole list, as with auto (MXFP6 still raises). The message-sites
kind holds those lines with their function and guards (`not filtered`), so the answer is the tag's:
a raise applies to a list when it sits in the chooser named after the scheme (`init_nvfp4_linear_kernel`
for nvfp4) or, where the scheme has none, in a generic chooser (`choose_*`: the scaled-mm and
mixed-precision lists); otherwise a fallback warning of the list's file applies.
"""

from __future__ import annotations

from dataclasses import dataclass

from vllm_quant_mcp.knowledge.registry.kernels import KernelSelection
from vllm_quant_mcp.knowledge.registry.model import MessageSite, Registry

__all__ = ["BackendMiss", "backend_miss"]

_FLAG = "--linear-backend"


@dataclass(frozen=True)
class BackendMiss:
    """The lines that decide: the chooser's raise (`raises`), else the fallback warning; none where the tag has
    neither in the list's file (then the walk's own assumption, auto, stands)."""

    raises: bool
    sites: list[MessageSite]

    def message(self, asked: str) -> str:
        """The sites' message with `asked` filled in; where several say it per layer type, up to where they part."""
        first, last = min(s.name for s in self.sites), max(s.name for s in self.sites)
        if first == last:
            return first.replace("{linear_backend}", asked)
        parted = next((i for i, (a, b) in enumerate(zip(first, last, strict=False)) if a != b), len(first))
        return first[:parted].rsplit(" ", 1)[0].replace("{linear_backend}", asked) + " ..."


def backend_miss(registry: Registry, selection: KernelSelection) -> BackendMiss:
    """How the tag's chooser for `selection`'s list treats a --linear-backend value covering none of its kernels."""
    sites = [
        s
        for s in registry.message_sites
        if s.provenance.path == selection.provenance.path and _FLAG in s.name and "not filtered" in s.guards
    ]
    word = f"_{selection.name.split('-')[0]}_"
    raised = [s for s in sites if s.kind == "raise"]
    named = [s for s in raised if word in f"_{s.function}_"]  # the scheme's own chooser, where it has one
    generic = [s for s in raised if (s.function or "").startswith("choose_")]
    if named or generic:
        return BackendMiss(raises=True, sites=named or generic)
    return BackendMiss(raises=False, sites=[s for s in sites if s.kind == "log"])
