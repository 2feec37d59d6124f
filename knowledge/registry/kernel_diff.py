"""Which kernel a scheme gets on a GPU, compared between two tags: the picks that changed, each side with its lines.

The `kernels` kind's diff shows a priority list reordered; what an operator upgrading asks is what
that does on their GPU. Per layer (linear or MoE), scheme, backend value (`--linear-backend` /
`--moe-backend`, auto included), parallel layout (MoE) and capability, the walk at each tag is reduced
to what it does: the verdict, the kernel (MoE: the backend and its expert class), the runner-up (where
the walk goes when the pick is disabled or fails on the machine) and the kernels ahead of the pick left
to run time. A change is a difference in those; the lines that decide are cited on each side but not
compared, since lines move every release. GPUs walked at one tag only are a change of our grid, not of
vLLM, and are left out; a scheme or backend value walked at one tag only has no `before` (or `after`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Literal

from pydantic import Field

from .entry import Frozen
from .kernels import KernelOutcome, KernelSelection, KernelSupport, KernelVerdict, MoeOutcome, MoeSelection, Platform
from .matrix import Check, Verdict

__all__ = ["KernelChange", "KernelPick", "diff_kernel_support"]

Layer = Literal["linear", "moe"]
_Key = tuple[Layer, str, str, str | None, Platform]  # layer, scheme, backend value, parallel layout (MoE), platform
_DECIDING = 3  # lines of the walk cited per side, besides the list walked


class KernelPick(Frozen):
    """What the walk does at one tag, and the lines that decide it."""

    verdict: Verdict
    kernel: str | None = Field(description="The linear kernel or MoE backend picked (MoE, no: the one that refused).")
    experts: str | None = Field(default=None, description="MoE: the expert class that accepted the config.")
    runner_up: str | None = Field(default=None, description="Linear: the kernel the walk goes on to past the pick.")
    pending: list[str] = Field(default=[], description="Kernels ahead of the pick that the machine decides.")
    decided_by: list[Check] = Field(description="The reorder rule, the checks that decide, then the list walked.")

    def meaning(self) -> KernelPick:
        """The pick without its lines: what two tags are compared by."""
        return self.model_copy(update={"decided_by": []})


class KernelChange(Frozen):
    """One walk whose pick changed between the tags, on the capabilities that share the change."""

    layer: Layer
    scheme: str
    backend: str = Field(description="The --linear-backend or --moe-backend value walked (auto: the priority list).")
    parallel: str | None = Field(default=None, description="MoE: tp, or ep<N> with --enable-expert-parallel.")
    platform: Platform = Field(
        default="cuda", description="cuda, or rocm (AMD Instinct by the capability torch reports)."
    )
    capabilities: list[str]
    before: KernelPick | None = Field(description="At the from tag; null where it walked no such scheme or value.")
    after: KernelPick | None = Field(description="At the to tag; null where it walks no such scheme or value.")


def diff_kernel_support(old: KernelSupport, new: KernelSupport) -> list[KernelChange]:
    """Every (layer, scheme, backend, parallel, capability) whose pick differs from `old` to `new`, capabilities
    with the same change on both sides grouped, in the order the newer tag lists its selections."""
    before, after = _picks(old), _picks(new)
    shared = _grid(before) & _grid(after)
    grouped: dict[str, tuple[KernelChange, list[str]]] = {}  # by the change without its capabilities
    for key in [*after, *(k for k in before if k not in after)]:
        was, now = before.get(key, {}), after.get(key, {})
        for cap in sorted(shared & (was.keys() | now.keys()), key=_order):
            a, b = was.get(cap), now.get(cap)
            if (a and a.meaning()) == (b and b.meaning()):
                continue
            change = KernelChange(
                layer=key[0],
                scheme=key[1],
                backend=key[2],
                parallel=key[3],
                platform=key[4],
                capabilities=[],
                before=a,
                after=b,
            )
            grouped.setdefault(change.model_dump_json(), (change, []))[1].append(cap)
    return [change.model_copy(update={"capabilities": caps}) for change, caps in grouped.values()]


def _picks(support: KernelSupport) -> dict[_Key, dict[str, KernelPick]]:
    """Each walk's pick per capability, keyed as the diff compares them."""
    found: dict[_Key, dict[str, KernelPick]] = {}
    for key, caps, pick in [*_linear(support.selections), *_moe(support.moe)]:
        for cap in caps:
            found.setdefault(key, {})[cap] = pick
    return found


def _linear(selections: list[KernelSelection]) -> Iterator[tuple[_Key, list[str], KernelPick]]:
    for s in selections:
        walked = Check(why=f"the {s.name} priority list", path=s.provenance.path, line=s.provenance.line)
        for o in s.outcomes:
            yield ("linear", s.name, o.linear_backend, None, o.platform), o.capabilities, _linear_pick(o, walked)


def _linear_pick(outcome: KernelOutcome, walked: Check) -> KernelPick:
    return KernelPick(
        verdict=outcome.verdict,
        kernel=outcome.kernel,
        runner_up=outcome.runner_up.kernel if outcome.runner_up else None,
        pending=[v.kernel for v in outcome.considered if v.verdict == "conditional"],
        decided_by=_deciding(outcome.considered, [_reorder(outcome.reordered, outcome.linear_backend)], walked),
    )


def _moe(selections: list[MoeSelection]) -> Iterator[tuple[_Key, list[str], KernelPick]]:
    for s in selections:
        walked = Check(why=f"the {s.name} oracle", path=s.provenance.path, line=s.provenance.line)
        for o in s.outcomes:
            yield ("moe", s.name, o.moe_backend, o.parallel, o.platform), o.capabilities, _moe_pick(o, walked)


def _moe_pick(outcome: MoeOutcome, walked: Check) -> KernelPick:
    return KernelPick(
        verdict=outcome.verdict,
        kernel=outcome.backend,
        experts=outcome.experts,
        pending=[v.kernel for v in outcome.considered if v.verdict == "conditional"],
        decided_by=_deciding(
            outcome.considered, [_reorder(outcome.reordered, outcome.moe_backend), outcome.raises], walked
        ),
    )


def _reorder(rule: Check | None, backend: str) -> Check | None:
    """The reorder rule where it can decide: a backend value narrows the list to one family's kernels, and
    prioritize_humming only moves a Humming kernel ahead of a Marlin one, so under a value the order it makes
    decides nothing."""
    return rule if backend == "auto" else None


def _deciding(considered: list[KernelVerdict], rules: list[Check | None], walked: Check) -> list[Check]:
    """The lines that decide a walk: the rules that reordered or raised, the picked and open candidates' checks
    (the last refusal where nothing was picked), then the list walked."""
    taken = [v for v in considered if v.verdict != "no"] or considered[-1:]
    checks = [c for c in rules if c is not None] + [c for v in taken for c in v.checks]
    return [*list(dict.fromkeys(checks))[:_DECIDING], walked]


def _grid(picks: dict[_Key, dict[str, KernelPick]]) -> set[str]:
    return {cap for caps in picks.values() for cap in caps}


def _order(cap: str) -> tuple[int, ...]:
    return tuple(int(part) for part in cap.split(".") if part.isdigit())
