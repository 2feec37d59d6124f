"""The linear kernel selection of one tag, replayed: which kernel of a `_POSSIBLE_*` list wins for a scheme and GPU.

vLLM's choosers (`choose_scaled_mm_linear_kernel`, `choose_mp_linear_kernel`) are loops over a
list: skip a kernel named in VLLM_DISABLED_KERNELS, then ask `is_supported(capability)` (the mixed
precision list compares `get_min_capability()` instead) and `can_implement(config)`, and take the first
that holds. The loop is replayed here as written; the list, its reordering (`prioritize_humming`,
whose rule `prefers_humming` is interpreted for the GPU), the `--linear-backend` map and every check are
read from the tree. A check that probes an optional package (`has_humming()`, `has_flashinfer()`) is
answered as if the package is installed, and says so; whether the release's requirements install it is
for the build conditions to tell. On ROCm the interpreter is told the GPU's gfx name, which
vllm/platforms/rocm.py reads at import (`_GCN_ARCH`) and its `on_gfx9()`-style checks compare.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from vllm_quant_mcp.knowledge.extract.attention.select import arch_of
from vllm_quant_mcp.knowledge.extract.engine import Cap, ClassRef, Interpreter, Modules, Obj, Shared, Unknown
from vllm_quant_mcp.knowledge.extract.engine.syntax import line, parameters, text
from vllm_quant_mcp.knowledge.extract.engine.values import Function
from vllm_quant_mcp.knowledge.extract.kernels.constants import Constants
from vllm_quant_mcp.knowledge.extract.kernels.schemes import MP_LIST
from vllm_quant_mcp.knowledge.registry.kernels import KernelOutcome, KernelVerdict, Platform
from vllm_quant_mcp.knowledge.registry.matrix import Check, Verdict

__all__ = ["HUMMING_RULE", "KernelSelector", "probes_a_package"]

HUMMING_RULE = "vllm/model_executor/layers/quantization/utils/humming/priority.py"
_PROBE = re.compile(r"\b(has_\w+)\(\)")
_PROBE_WORDS = ("find_spec", "import_module(", "hasattr(mod")
# How vLLM asks for an optional package and its API: answered "present" by the interpreters that assume it installed.
_PROBE_CALLS = ("find_spec(", "import_module(module_name)", "hasattr(mod, ")
_UTILS = ("vllm/utils/import_utils.py", "vllm/utils/flashinfer.py", "vllm/utils/deep_gemm.py")


class KernelSelector:
    """Walks candidate lists for one tree on one platform; checks are cached per kernel, scheme and (where asked)
    GPU."""

    def __init__(
        self,
        modules: Modules,
        constants: Constants,
        env: dict[str, str | None],
        humming: bool,
        platform: Platform = "cuda",
    ) -> None:
        self.modules = modules
        self.constants = constants
        self.platform: Platform = platform
        # Two sets of lookups: the interpreters that answer package probes as present must not share cached
        # results with those that leave them open.
        self.shared = constants.shared
        self.installed = Shared()
        constants.seed(self.installed)
        self.env = env
        self.humming = humming  # whether the resolver calls prioritize_humming at this tag
        self.paths: set[str] = set()  # the candidates' modules, whose own package probes count too
        self._interpreters: dict[tuple[Cap | None, bool], Interpreter] = {}
        self._checks: dict[tuple[Any, ...], tuple[KernelVerdict, bool]] = {}
        self._sites: dict[tuple[str, int], Any] | None = None

    def interpreter(self, cap: Cap | None, installed: bool = False) -> Interpreter:
        """Bound to one GPU; `installed` answers every package probe (`find_spec`) with: present."""
        key = (cap, installed)
        if key not in self._interpreters:
            forced = self._probe_sites() if installed else {}
            shared = self.installed if installed else self.shared
            self._interpreters[key] = Interpreter(
                self.modules, self.platform, cap, self.env, shared, arch=arch_of(self.platform, cap), forced=forced
            )
        return self._interpreters[key]

    def select(
        self,
        scheme: str,
        list_name: str,
        candidates: list[ClassRef],
        config: dict[str, Any],
        cap: Cap,
        backend: str = "auto",
        covered: set[str] | None = None,
    ) -> KernelOutcome:
        ordered, reordered = self.reorder(candidates, cap)
        if backend != "auto":  # walked only for values that name a kernel of this list (support/backend_miss.py)
            ordered = [ref for ref in ordered if ref.name in (covered or set())]
        considered: list[KernelVerdict] = []
        for ref in ordered:
            verdict = self.verdict(scheme, list_name, ref, config, cap)
            considered.append(verdict)
            if verdict.verdict == "yes":
                break
        chosen = next((v.kernel for v in considered if v.verdict == "yes"), None)
        # VLLM_DISABLED_KERNELS=<chosen> (or the kernel failing on the machine): the walk goes on to the next one
        # that does not refuse, e.g. Humming after Machete on SM90 from v0.32.0.
        runner_up = None
        for ref in ordered[len(considered) :] if chosen is not None else []:
            verdict = self.verdict(scheme, list_name, ref, config, cap)
            if verdict.verdict != "no":
                runner_up = verdict
                break
        pending = any(v.verdict == "conditional" for v in considered)
        final: Verdict = "conditional" if pending else "yes" if chosen is not None else "no"
        return KernelOutcome(
            capabilities=[str(cap)],
            platform=self.platform,
            linear_backend=backend,
            verdict=final,
            kernel=chosen,
            considered=considered,
            reordered=reordered,
            runner_up=runner_up,
        )

    def reorder(self, candidates: list[ClassRef], cap: Cap) -> tuple[list[ClassRef], Check | None]:
        """`prioritize_humming`: Humming moves directly ahead of Marlin where `prefers_humming(cc)` holds."""
        if not self.humming:
            return candidates, None
        it = self.interpreter(cap)
        prefers = it.call_function(HUMMING_RULE, "prefers_humming", compute_capability=cap.to_int())
        names = [ref.name.lower() for ref in candidates]
        humming = next((i for i, n in enumerate(names) if "humming" in n), None)
        marlin = next((i for i, n in enumerate(names) if "marlin" in n), None)
        if prefers is not True or humming is None or marlin is None or humming < marlin:
            return candidates, None
        moved = list(candidates)
        moved.insert(marlin, moved.pop(humming))
        return moved, self.humming_rule()

    def humming_rule(self) -> Check:
        index = self.modules.index(HUMMING_RULE)
        node = index.functions.get("prioritize_humming") if index is not None else None
        at = line(node) if node is not None else 1
        return Check(why="prioritize_humming: Humming ahead of Marlin on this GPU", path=HUMMING_RULE, line=at)

    def verdict(self, scheme: str, list_name: str, ref: ClassRef, config: dict[str, Any], cap: Cap) -> KernelVerdict:
        everywhere = self._checks.get((scheme, ref.path, ref.name, None))
        if everywhere is not None:
            return everywhere[0]
        here = self._checks.get((scheme, ref.path, ref.name, cap))
        if here is None:
            here = self._verdict(list_name, ref, config, cap)
            self._checks[(scheme, ref.path, ref.name, cap if here[1] else None)] = here
        return here[0]

    def _verdict(self, list_name: str, ref: ClassRef, config: dict[str, Any], cap: Cap) -> tuple[KernelVerdict, bool]:
        """The kernel's verdict and whether reaching it asked for the GPU."""
        asked = False
        conditions: list[str] = []
        accepted: Check | None = None
        # The mixed-precision chooser compares get_min_capability(); the others ask is_supported(capability), and
        # an older scaled-mm kernel without it is compared by get_min_capability() too.
        method = "get_min_capability" if list_name == MP_LIST else "is_supported"
        if self.modules.method(ref, method) is None:
            method = "get_min_capability"
        if self.modules.method(ref, method) is not None:
            outcome, gpu, needs = self._ask(ref, method, {}, cap)
            asked = asked or gpu
            conditions += needs
            if outcome.verdict != "yes":
                return outcome, asked
            accepted = outcome.accepted
        outcome, gpu, needs = self._ask(ref, "can_implement", config, cap)
        asked = asked or gpu
        conditions += needs
        if outcome.verdict != "yes":
            return outcome.model_copy(update={"conditions": list(dict.fromkeys(conditions))}), asked
        conditions = list(dict.fromkeys(conditions))  # is_supported and can_implement may probe the same package
        accepted = outcome.accepted or accepted  # can_implement's return, else is_supported's
        return KernelVerdict(
            kernel=ref.name, verdict="yes", checks=outcome.checks, conditions=conditions, accepted=accepted
        ), asked

    def _ask(
        self, ref: ClassRef, method: str, config: dict[str, Any], cap: Cap
    ) -> tuple[KernelVerdict, bool, list[str]]:
        """is_supported(capability) / can_implement(config) / get_min_capability(), by the method's own names."""
        found = self.modules.method(ref, method)
        names = [p for p, _ in parameters(found[1]) if p not in ("self", "cls")] if found is not None else []
        kwargs: dict[str, Any] = {}
        if method == "is_supported" and names:
            kwargs[names[0]] = cap.to_int()
        elif method == "can_implement" and names:
            kwargs[names[0]] = Obj(what=names[0], attrs=dict(config))
        return self.ask(ref, method, kwargs, cap)

    def ask(
        self, ref: ClassRef, method: str, kwargs: dict[str, Any], cap: Cap
    ) -> tuple[KernelVerdict, bool, list[str]]:
        """One check: its verdict, whether it asked for the GPU, and the packages it assumed installed."""
        found = self.modules.method(ref, method)
        if found is None and method == "is_supported_config":  # the oracle's check must exist: its base is not source
            why = f"{ref.name}.{method} is not in the tree"
            return KernelVerdict(kernel=ref.name, verdict="conditional", checks=[_check(why, ref.path, 1)]), False, []
        if found is None:
            return KernelVerdict(kernel=ref.name, verdict="yes"), False, []
        owner, node = found
        check = Function(owner.path, node)
        return self._judged(ref.name, method, check, lambda it: it.call_method(ref, method, **kwargs), cap)

    def ask_function(
        self, kernel: str, check: Function, args: list[Any], cap: Cap
    ) -> tuple[KernelVerdict, bool, list[str]]:
        """A module-level check answering (supported, reason), as v0.15's `is_supported_config_trtllm(config,
        weight_key, activation_key, activation_format)` stands in for a class the backend does not have yet."""
        name = text(check.node.child_by_field_name("name") or check.node)
        return self._judged(kernel, name, check, lambda it: it.run(check, list(args), {}), cap)

    def _judged(
        self, kernel: str, method: str, check: Function, call: Callable[[Interpreter], Any], cap: Cap
    ) -> tuple[KernelVerdict, bool, list[str]]:
        it = self.interpreter(cap)
        value = call(it)
        asked = it.asked_gpu or method == "is_supported"  # it is handed the capability: its answer is per GPU
        needs: list[str] = []
        if probes_a_package(value):
            needs = [f"{probe}() holds (the package is installed)" for probe in _probes(text(check.node))] or [
                "an optional package it probes is installed"
            ]
            it = self.interpreter(cap, installed=True)
            value = call(it)
            asked = asked or it.asked_gpu
        where = it.decided_at or (check.path, line(check.node))
        if method == "get_min_capability":
            if isinstance(value, int):
                if value > cap.to_int():
                    why = f"{kernel} requires capability {value}"
                    return KernelVerdict(kernel=kernel, verdict="no", checks=[_check(why, *where)]), True, needs
                return KernelVerdict(kernel=kernel, verdict="yes"), True, needs
        elif isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], bool):
            if not value[0]:
                why = f"{kernel}.{method}: {value[1]}" if isinstance(value[1], str) else f"{kernel}.{method}"
                return KernelVerdict(kernel=kernel, verdict="no", checks=[_check(why, *where)]), asked, needs
            accepted = _check(f"{kernel}.{method} holds", *where)
            return KernelVerdict(kernel=kernel, verdict="yes", accepted=accepted), asked, needs
        reasons = value.reasons[:4] if isinstance(value, Unknown) else ()
        checks = [_check(r.why, r.path, r.line) for r in reasons] or [
            _check(f"{kernel}.{method} answers a value known only at run time", check.path, line(check.node))
        ]
        return KernelVerdict(kernel=kernel, verdict="conditional", checks=checks, conditions=needs), asked, needs

    def _probe_sites(self) -> dict[tuple[str, int], Any]:
        """Every `find_spec(...)` call of vllm/utils and the kernels' own modules: how vLLM asks whether an optional
        package is installed. Read once: every GPU's installed interpreter forces the same lines."""
        if self._sites is not None:
            return self._sites
        sites: dict[tuple[str, int], Any] = {}
        for path in (*_UTILS, *self.paths):
            tree = self.modules.tree
            written = tree.read_text(path) if tree.exists(path) else ""  # text, not a parse: lines are the file's
            if not any(probe in written for probe in _PROBE_CALLS):
                continue
            for at, source in enumerate(written.splitlines(), start=1):
                if any(probe in source for probe in _PROBE_CALLS):
                    sites[(path, at)] = object()  # a present module's spec: truthy, not None
        self._sites = sites
        return sites


def probes_a_package(value: Any) -> bool:
    """An answer left open by a probe for an optional package (`find_spec`, `import_module`)."""
    return isinstance(value, Unknown) and any(w in r.why for r in value.reasons for w in _PROBE_WORDS)


def _probes(source: str) -> list[str]:
    return list(dict.fromkeys(_PROBE.findall(source)))


def _check(why: str, path: str, at: int) -> Check:
    return Check(why=" ".join(why.split())[:240], path=path, line=max(at, 1))
