"""The attention selector of one platform, replayed from source: which backend wins for a KV dtype, mode and GPU.

vLLM walks the platform's `_get_backend_priorities` list and takes the first backend whose
`validate_configuration` finds nothing wrong. Here the same walk asks each backend the
checks that a plain `vllm serve` can fail on (head size, model dtype, KV dtype, MLA and
sparse match, compute capability, and the backend's own `supports_combination`), each
answered by interpreting that backend's classmethod. A backend that might pass (a check
left to run time) before the first one that surely passes makes the outcome conditional.
Then, as vLLM builds the selected backend's metadata builder and impl, their constructors'
raises that the input reaches (build.py) turn the outcome to no or conditional.
"""

from __future__ import annotations

from itertools import product
from typing import Any

from vllm_quant_mcp.knowledge.extract.attention.build import Constructors
from vllm_quant_mcp.knowledge.extract.engine import (
    CAPABILITY,
    INPUT,
    Cap,
    ClassRef,
    Interpreter,
    Member,
    Modules,
    Shared,
    Unknown,
)
from vllm_quant_mcp.knowledge.extract.engine.syntax import line
from vllm_quant_mcp.knowledge.registry.matrix import (
    PRIORITY_LIST,
    BackendVerdict,
    BuildRaise,
    CapOutcome,
    Check,
    Mode,
    Verdict,
)
from vllm_quant_mcp.knowledge.sources.tree import SourceTree

__all__ = ["ASSUMED", "CUDA_GRID", "REGISTRY", "ROCM_GRID", "Selector", "arch_of"]

# The capabilities of the GPUs operators ask about (the GPU table: A100, L40S, H100/H200, B200/GB200,
# B300/GB300, RTX 50 and PRO 6000, GB10); a GPU outside this grid gets no derived answer, and a test
# keeps the grid and the table in step.
CUDA_GRID = (Cap(8, 0), Cap(8, 9), Cap(9, 0), Cap(10, 0), Cap(10, 3), Cap(12, 0), Cap(12, 1))
ROCM_GRID = (Cap(9, 4), Cap(9, 5))  # gfx942 (MI300X), gfx950 (MI355X) as torch reports them
ROCM_ARCH = {Cap(9, 4): "gfx942", Cap(9, 5): "gfx950"}


def arch_of(platform: str, cap: Cap | None) -> str | None:
    """The gfx name a ROCm interpreter answers vllm/platforms/rocm.py's arch probes with; None off ROCm."""
    return ROCM_ARCH.get(cap) if platform == "rocm" and cap is not None else None


_NONE: frozenset[str] = frozenset()
MAX_FORKS = 2  # run-time checks a selection is replayed both ways for (2**n runs)

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
_GPU_ONLY = frozenset({"supports_compute_capability"})
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
        forced: tuple[tuple[tuple[str, int], Any], ...] = (),
        constructors: Constructors | None = None,
    ) -> None:
        self.tree = tree
        self.modules = modules
        self.platform = platform
        self.classes = classes
        self.env = env
        self.forced = forced
        self._shared = Shared()
        self._interpreters: dict[Cap | None, Interpreter] = {}
        self._outcomes: dict[tuple[Any, ...], tuple[BackendVerdict, frozenset[str], bool]] = {}
        self._verdicts: dict[tuple[Any, ...], tuple[BackendVerdict, frozenset[str]]] = {}
        self._forks: dict[tuple[tuple[tuple[str, int], Any], ...], Selector] = {}
        self._built: dict[tuple[str, int, str | None, Cap | None], list[BuildRaise]] = {}
        self._per_gpu: set[tuple[str, int, str]] = set()  # (backend, head size, KV dtype) walked GPU by GPU
        # What a constructor walk must read depends on the tree alone: shared with the forks, and by extract_attention
        # with the other platform's selector.
        self.constructors = constructors or Constructors()

    def interpreter(self, cap: Cap | None) -> Interpreter:
        """The interpreter bound to one GPU; with None, to no GPU (every question about it left open)."""
        if cap not in self._interpreters:
            self._interpreters[cap] = Interpreter(
                self.modules,
                self.platform,
                cap,
                self.env,
                self._shared,
                arch=arch_of(self.platform, cap),
                forced=dict(self.forced),
            )
        return self._interpreters[cap]

    def fork(self, forced: tuple[tuple[tuple[str, int], Any], ...]) -> Selector:
        """The same selector with some run-time checks decided, and caches of its own."""
        if forced not in self._forks:
            self._forks[forced] = Selector(
                self.tree,
                self.modules,
                self.platform,
                self.classes,
                self.env,
                (*self.forced, *forced),
                self.constructors,
            )
        return self._forks[forced]

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
        if isinstance(priorities, Unknown) and not self.forced:
            both = self._both_ways(priorities, mode, kv, cap)
            if both is not None:
                return both
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
            verdict, relied = self.backend_verdict(name, mode, kv, cap)
            assumed |= relied
            considered.append(verdict)
            if verdict.verdict == "yes":
                break
        chosen = next((v for v in considered if v.verdict == "yes"), None)
        pending = [v for v in considered if v.verdict == "conditional"]
        construction = self.construction(chosen.backend, mode, kv, cap) if chosen is not None else []
        refused = any(c.verdict == "no" for c in construction)
        final: Verdict
        if pending or (construction and not refused):
            final = "conditional"
        elif chosen is None or refused:
            final = "no"
        else:
            final = "yes"
        return CapOutcome(
            capabilities=[str(cap)],
            verdict=final,
            backend=chosen.backend if chosen is not None else None,
            considered=considered,
            construction=construction,
            assumptions=sorted(assumed),
        )

    def construction(self, name: str, mode: Mode, kv: str, cap: Cap) -> list[BuildRaise]:
        """The raises the selected backend's builder and impl constructors reach for `kv` (build.py).

        Kept per backend and head size, and per KV dtype and GPU only where a condition on the way read them.
        On CUDA the first walk leaves the GPU open: where it answers every GPU at once (FlashInfer's decode kernel
        choice reads the GPU for every KV dtype, and no raise follows from it), the walk per GPU is skipped.
        Not on ROCm: there the GPU is also the gfx name its probes answer with, and with no GPU bound a walk
        would read the probes' own source instead, unmarked, so it could not stand for every GPU.
        """
        ref = self.classes.get(name)
        if ref is None:
            return []
        head_size = _SHAPES[mode]["head_size"]
        keys: list[tuple[str, int, str | None, Cap | None]] = [
            (name, head_size, None, None),
            (name, head_size, kv, None),
            (name, head_size, None, cap),
            (name, head_size, kv, cap),
        ]
        for key in keys:
            if key in self._built:
                return self._built[key]
        if self.platform != "rocm" and (name, head_size, kv) not in self._per_gpu:
            anywhere = self.constructors.on_any_gpu(self.interpreter(None), ref, kv, head_size)
            if anywhere is not None:
                raised, asked = anywhere
                self._built[(name, head_size, kv if INPUT in asked else None, None)] = raised
                return raised
            self._per_gpu.add((name, head_size, kv))
        raised, asked = self.constructors.raises(self.interpreter(cap), ref, kv, head_size)
        self._built[(name, head_size, kv if INPUT in asked else None, cap if CAPABILITY in asked else None)] = raised
        return raised

    def _both_ways(self, unknown: Unknown, mode: Mode, kv: str, cap: Cap) -> CapOutcome | None:
        """When the priority list waits on run-time checks, the selection with each check passing and failing.

        Up to two checks (four runs). The same outcome every way settles it; backends that differ,
        all accepting, make a `conditional` whose fallback still runs (the last, every check
        failing); a way with no backend leaves it conditional with none. None: still undecided.
        """
        sites = list(dict.fromkeys((r.path, r.line) for r in unknown.reasons))
        if not sites or len(sites) > MAX_FORKS:
            return None
        ways = [tuple(zip(sites, values, strict=True)) for values in product((True, None), repeat=len(sites))]
        outcomes = [self.fork(way).select(mode, kv, cap) for way in ways]
        if any(o.considered and o.considered[0].backend == PRIORITY_LIST for o in outcomes):
            return None
        checks = self._checks(unknown)
        first = outcomes[0]
        if all((o.verdict, o.backend) == (first.verdict, first.backend) for o in outcomes):
            return first
        backends = list(dict.fromkeys(o.backend for o in outcomes if o.backend is not None))
        fallback = outcomes[-1].backend if all(o.verdict == "yes" for o in outcomes) else None
        considered = [
            BackendVerdict(backend=b, verdict="conditional", checks=checks) for b in backends if b != fallback
        ]
        if fallback is not None:
            considered.append(BackendVerdict(backend=fallback, verdict="yes"))
        return CapOutcome(
            capabilities=[str(cap)],
            verdict="conditional",
            backend=fallback,
            considered=considered,
            assumptions=sorted({a for o in outcomes for a in o.assumptions}),
        )

    def backend_verdict(self, name: str, mode: Mode, kv: str, cap: Cap) -> tuple[BackendVerdict, frozenset[str]]:
        """The backend's verdict, and the env defaults its checks relied on (kept with each cached check).

        A verdict none of whose checks asked for the GPU holds on every GPU: it is kept once for all.
        """
        everywhere = self._verdicts.get((name, mode, kv, None))
        if everywhere is not None:
            return everywhere
        here = self._verdicts.get((name, mode, kv, cap))
        if here is None:
            here, asked_gpu = self._verdict(name, mode, kv, cap)
            self._verdicts[(name, mode, kv, cap if asked_gpu else None)] = here
        return here

    def _verdict(self, name: str, mode: Mode, kv: str, cap: Cap) -> tuple[tuple[BackendVerdict, frozenset[str]], bool]:
        ref = self.classes.get(name)
        if ref is None:
            why = f"{name} has no backend class in this release's Python source"
            return (
                BackendVerdict(backend=name, verdict="conditional", checks=[self._check(why, REGISTRY, 1)]),
                _NONE,
            ), False
        shape: dict[str, Any] | None = None  # the arguments, built only when a check is not cached yet
        open_checks: list[Check] = []
        accepted: list[Check] = []
        relied: set[str] = set()
        gpu = False
        for method, expected in _CHECKS[mode]:
            # Checks that read neither the KV dtype nor the GPU are asked once per backend and model shape,
            # the capability check once per backend and GPU, and a check that never asked for the GPU
            # answers every GPU alike (KV lists, most combinations).
            if method in _SHAPE_ONLY:
                scope: tuple[Any, ...] = (name, mode)
            elif method in _GPU_ONLY:
                scope = (name, cap)
            else:
                scope = (name, mode, kv, cap)
            anywhere = (method, name, mode, kv, None)
            found = self._outcomes.get((method, *scope)) or self._outcomes.get(anywhere)
            if found is None:
                if shape is None:
                    shape = {**DEFAULTS, **_SHAPES[mode], "kv_cache_dtype": kv, "device_capability": cap}
                    shape["capability"] = cap
                outcome, asked_gpu, assumed = self._check_once(name, ref, method, expected, shape)
                narrow = method in _SHAPE_ONLY or method in _GPU_ONLY or asked_gpu
                found = (outcome, assumed, asked_gpu or method in _GPU_ONLY)
                self._outcomes[(method, *scope) if narrow else anywhere] = found
            outcome, assumed, asked = found
            relied |= assumed
            gpu = gpu or asked
            if outcome.verdict == "no":
                return (outcome, frozenset(relied)), gpu
            if outcome.verdict == "yes":
                accepted += outcome.checks
            else:
                open_checks += outcome.checks
        if open_checks:
            return (BackendVerdict(backend=name, verdict="conditional", checks=open_checks[:4]), frozenset(relied)), gpu
        return (BackendVerdict(backend=name, verdict="yes", checks=accepted), frozenset(relied)), gpu

    def _check_once(
        self, name: str, ref: ClassRef, method: str, expected: Any, shape: dict[str, Any]
    ) -> tuple[BackendVerdict, bool, frozenset[str]]:
        """The verdict of one check, whether answering it asked for the GPU, and the env defaults it relied on."""
        found = self.modules.method(ref, method)
        if found is None:
            return BackendVerdict(backend=name, verdict="yes"), False, _NONE  # the check does not exist at this tag
        interpreter = self.interpreter(shape["device_capability"])
        value = interpreter.call_method(ref, method, **shape)
        asked, assumed = interpreter.asked_gpu, frozenset(interpreter.assumed)
        owner, node = found
        if isinstance(value, Unknown):
            return BackendVerdict(backend=name, verdict="conditional", checks=self._checks(value)), asked, assumed
        path, at = interpreter.decided_at or (owner.path, line(node))
        if not expected(value):
            why = f"{ref.name}.{method} rejects it" + (f": {value}" if isinstance(value, str) else "")
            return BackendVerdict(backend=name, verdict="no", checks=[self._check(why, path, at)]), asked, assumed
        if method != "supports_kv_cache_dtype":
            return BackendVerdict(backend=name, verdict="yes"), asked, assumed
        accepts = self._check(f"{ref.name}.{method} accepts it", path, at)
        return BackendVerdict(backend=name, verdict="yes", checks=[accepts]), asked, assumed

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
    built = tuple((c.why, c.path, c.line) for c in outcome.construction)
    return (outcome.verdict, outcome.backend, considered, built, tuple(outcome.assumptions))


_CHECKS: dict[Mode, list[tuple[str, Any]]] = {mode: _checks(shape) for mode, shape in _SHAPES.items()}
