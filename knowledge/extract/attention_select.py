"""The attention selector of one platform, replayed from source: which backend wins for a KV dtype, mode and GPU.

vLLM walks the platform's `_get_backend_priorities` list and takes the first backend whose
`validate_configuration` finds nothing wrong. Here the same walk asks each backend the
checks that a plain `vllm serve` can fail on (head size, model dtype, KV dtype, MLA and
sparse match, compute capability, and the backend's own `supports_combination`), each
answered by interpreting that backend's classmethod. A backend that might pass (a check
left to run time) before the first one that surely passes makes the outcome conditional.
"""

from __future__ import annotations

from typing import Any

from vllm_quant_mcp.knowledge.registry.matrix import PRIORITY_LIST, BackendVerdict, CapOutcome, Check, Mode, Verdict
from vllm_quant_mcp.knowledge.sources.tree import SourceTree

from .cli_flags_modules import ClassRef, Modules
from .interpret import Cap, Interpreter, Member, Shared, Unknown
from .nodes import line

__all__ = ["ASSUMED", "CUDA_GRID", "REGISTRY", "ROCM_GRID", "Selector"]

# The datacenter and workstation GPUs operators ask about (A100, A10, L40S, H100/H200, B200/GB200,
# B300/GB300, RTX 50 and PRO 6000, GB10); a GPU outside this grid gets no derived answer.
CUDA_GRID = (Cap(8, 0), Cap(8, 6), Cap(8, 9), Cap(9, 0), Cap(10, 0), Cap(10, 3), Cap(12, 0), Cap(12, 1))
ROCM_GRID = (Cap(9, 4), Cap(9, 5))  # gfx942 (MI300X), gfx950 (MI355X) as torch reports them

_SHAPES: dict[Mode, dict[str, Any]] = {
    "dense": {"use_mla": False, "use_sparse": False, "head_size": 128},
    "mla": {"use_mla": True, "use_sparse": False, "head_size": 576},
    "sparse_mla": {"use_mla": True, "use_sparse": True, "head_size": 576},
}
DEFAULTS: dict[str, Any] = {
    "dtype": "bfloat16",
    "block_size": None,
    "has_sink": False,
    "use_mm_prefix": False,
    "use_non_causal": False,
    "num_heads": None,
}
_SHAPE_ONLY = frozenset({"is_mla", "is_sparse", "supports_head_size", "supports_dtype"})
ASSUMED = (
    "a bfloat16 model with head size 128 (576 with MLA), no attention sinks, no multimodal prefix, "
    "the default attention config"
)
REGISTRY = "vllm/v1/attention/backends/registry.py"


class Selector:
    def __init__(
        self,
        tree: SourceTree,
        modules: Modules,
        platform: str,
        classes: dict[str, ClassRef],
        env: dict[str, str | None],
    ) -> None:
        self.tree = tree
        self.modules = modules
        self.platform = platform
        self.classes = classes
        self.env = env
        self._shared = Shared()
        self._interpreters: dict[Cap, Interpreter] = {}
        self._outcomes: dict[tuple[Any, ...], BackendVerdict] = {}

    def interpreter(self, cap: Cap) -> Interpreter:
        if cap not in self._interpreters:
            self._interpreters[cap] = Interpreter(self.modules, self.platform, cap, self.env, self._shared)
        return self._interpreters[cap]

    def outcomes(self, mode: Mode, kv: str, grid: tuple[Cap, ...]) -> list[CapOutcome]:
        """One outcome per group of capabilities that the selector treats alike."""
        grouped: list[CapOutcome] = []
        keys: list[tuple[Any, ...]] = []
        for cap in grid:
            outcome = self.select(mode, kv, cap)
            key = _key(outcome)
            if key not in keys:
                keys.append(key)
                grouped.append(outcome)
            else:
                at = keys.index(key)
                grouped[at] = grouped[at].model_copy(
                    update={"capabilities": [*grouped[at].capabilities, *outcome.capabilities]}
                )
        return grouped

    def select(self, mode: Mode, kv: str, cap: Cap) -> CapOutcome:
        it = self.interpreter(cap)
        shape = {**DEFAULTS, **_SHAPES[mode], "kv_cache_dtype": kv, "device_capability": cap}
        priorities = it.call_function(f"vllm/platforms/{self.platform}.py", "_get_backend_priorities", **shape)
        assumed = set(it.assumed)
        if isinstance(priorities, Unknown):
            return CapOutcome(
                capabilities=[str(cap)],
                verdict="conditional",
                considered=[
                    BackendVerdict(backend=PRIORITY_LIST, verdict="conditional", checks=self._checks(priorities))
                ],
                assumptions=sorted(assumed),
            )
        considered: list[BackendVerdict] = []
        for member in priorities if isinstance(priorities, list) else []:
            name = member.name if isinstance(member, Member) else str(member)
            verdict = self.backend_verdict(name, mode, kv, cap)
            assumed |= it.assumed
            considered.append(verdict)
            if verdict.verdict == "yes":
                break
        chosen = next((v for v in considered if v.verdict == "yes"), None)
        pending = [v for v in considered if v.verdict == "conditional"]
        final: Verdict
        if chosen is not None and not pending:
            final = "yes"
        elif chosen is None and not pending:
            final = "no"
        else:
            final = "conditional"
        return CapOutcome(
            capabilities=[str(cap)],
            verdict=final,
            backend=chosen.backend if chosen is not None else None,
            considered=considered,
            assumptions=sorted(assumed),
        )

    def backend_verdict(self, name: str, mode: Mode, kv: str, cap: Cap) -> BackendVerdict:
        ref = self.classes.get(name)
        if ref is None:
            why = f"{name} has no backend class in this release's Python source"
            return BackendVerdict(backend=name, verdict="conditional", checks=[self._check(why, REGISTRY, 1)])
        shape = {**DEFAULTS, **_SHAPES[mode], "kv_cache_dtype": kv, "device_capability": cap, "capability": cap}
        open_checks: list[Check] = []
        accepted: list[Check] = []
        for method, expected in _checks(shape):
            # Checks that read neither the KV dtype nor the GPU are asked once per backend and model shape.
            scope = (name, mode) if method in _SHAPE_ONLY else (name, mode, kv, cap)
            outcome = self._outcomes.get((method, *scope))
            if outcome is None:
                outcome = self._check_once(name, ref, method, expected, shape)
                self._outcomes[(method, *scope)] = outcome
            if outcome.verdict == "no":
                return outcome
            if outcome.verdict == "yes":
                accepted += outcome.checks
            else:
                open_checks += outcome.checks
        if open_checks:
            return BackendVerdict(backend=name, verdict="conditional", checks=open_checks[:4])
        return BackendVerdict(backend=name, verdict="yes", checks=accepted)

    def _check_once(
        self, name: str, ref: ClassRef, method: str, expected: Any, shape: dict[str, Any]
    ) -> BackendVerdict:
        found = self.modules.method(ref, method)
        if found is None:
            return BackendVerdict(backend=name, verdict="yes")  # the check does not exist at this tag
        interpreter = self.interpreter(shape["device_capability"])
        value = interpreter.call_method(ref, method, **shape)
        owner, node = found
        if isinstance(value, Unknown):
            return BackendVerdict(backend=name, verdict="conditional", checks=self._checks(value))
        if not expected(value):
            why = f"{ref.name}.{method} rejects it" + (f": {value}" if isinstance(value, str) else "")
            path, at = interpreter.decided_at or (owner.path, line(node))
            return BackendVerdict(backend=name, verdict="no", checks=[self._check(why, path, at)])
        if method != "supports_kv_cache_dtype":
            return BackendVerdict(backend=name, verdict="yes")
        path, at = interpreter.decided_at or (owner.path, line(node))
        return BackendVerdict(
            backend=name, verdict="yes", checks=[self._check(f"{ref.name}.{method} accepts it", path, at)]
        )

    def _checks(self, unknown: Unknown) -> list[Check]:
        return [self._check(r.why, r.path, r.line) for r in unknown.reasons[:4]]

    def _check(self, why: str, path: str, at: int) -> Check:
        return Check(why=why, path=path if path.endswith(".py") else REGISTRY, line=max(at, 1))


def _checks(shape: dict[str, Any]) -> list[tuple[str, Any]]:
    """The validate_configuration checks a default `vllm serve` can fail, each with the answer that passes.

    vLLM runs them all and reports every reason; any one failing is reason enough, so the cheap
    ones (constant flags, the KV list) go first and the walk stops at the first that fails.
    """
    return [
        ("is_mla", lambda v: v is shape["use_mla"]),
        ("is_sparse", lambda v: v is shape["use_sparse"]),
        ("supports_kv_cache_dtype", lambda v: v is True),
        ("supports_compute_capability", lambda v: v is True),
        ("supports_head_size", lambda v: v is True),
        ("supports_dtype", lambda v: v is True),
        ("supports_combination", lambda v: v is None),
    ]


def _key(outcome: CapOutcome) -> tuple[Any, ...]:
    considered = tuple(
        (b.backend, b.verdict, tuple((c.why, c.path, c.line) for c in b.checks)) for b in outcome.considered
    )
    return (outcome.verdict, outcome.backend, considered, tuple(outcome.assumptions))
