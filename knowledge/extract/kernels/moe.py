"""The MoE backend selection of one tag, replayed: which backend an oracle in `fused_moe/oracle/` picks for a scheme,
GPU and expert-parallel layout.

Each oracle (`select_fp8_moe_backend`, `select_nvfp4_moe_backend`) builds a priority list (`_get_priority_backends`,
or a list literal in the select function; from v0.32.0 passed through `prioritize_humming`), drops the vLLM
CUTLASS backends unless its caller allows them, then walks the list: per backend, `backend_to_kernel_cls`
names expert classes, and the first whose `is_supported_config(config, weight_key, activation_key, format)`
holds wins. The walk is replayed as written; the list, each backend's classes and each check are read from the
tree by the interpreter, with a MoE config for a bfloat16 SiLU model of hidden size 4096 and the parallel layout
given (tensor parallel, or `--enable-expert-parallel` with its EP size).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import tree_sitter

from vllm_quant_mcp.knowledge.extract.engine import Cap, Member, Obj, Scope, Unknown, class_ref
from vllm_quant_mcp.knowledge.extract.engine.syntax import line, parameters, text
from vllm_quant_mcp.knowledge.extract.engine.values import Function
from vllm_quant_mcp.knowledge.extract.kernels.constants import Constants, Dtype
from vllm_quant_mcp.knowledge.extract.kernels.select import HUMMING_RULE, KernelSelector, probes_a_package
from vllm_quant_mcp.knowledge.registry.kernels import KernelVerdict, MoeOutcome
from vllm_quant_mcp.knowledge.registry.matrix import Check, Verdict

__all__ = ["MOE_SCHEMES", "ORACLE", "MoeScheme", "MoeSelector", "Parallel", "oracle_select"]

ORACLE = "vllm/model_executor/layers/fused_moe/oracle"


@dataclass(frozen=True)
class MoeScheme:
    name: str
    words: str
    oracle: str  # the module under fused_moe/oracle/
    weight_key: str
    activation_key: str


@dataclass(frozen=True)
class Parallel:
    """A parallel layout as FusedMoEParallelConfig describes it: `ep_size` 1 is tensor parallel."""

    name: str
    ep_size: int


MOE_SCHEMES = (
    MoeScheme("fp8-tensor", "FP8 experts, per-tensor weight scales, dynamic per-tensor activations", "fp8",
              "kFp8StaticTensorSym", "kFp8DynamicTensorSym"),
    MoeScheme("fp8-block", "FP8 experts in 128 x 128 blocks, activations per 1 x 128 group", "fp8",
              "kFp8Static128BlockSym", "kFp8Dynamic128Sym"),
    MoeScheme("nvfp4", "NVFP4 experts (FP4 weights and activations, FP8 scales per 16)", "nvfp4",
              "kNvfp4Static", "kNvfp4Dynamic"),
)  # fmt: skip
PARALLEL_TP = Parallel("tp", 1)
PARALLEL = (PARALLEL_TP, Parallel("ep8", 8))
_MAPPED = re.compile(r'"(\w+)":\s*\w+MoeBackend\.\w+')
ASSUMED = (
    "CUDA, and ROCm on MI300X and MI355X; a bfloat16 MoE model with SiLU gated experts, hidden size 4096, no LoRA; "
    "tp: tensor parallel, no expert parallelism; ep8: --enable-expert-parallel over 8 GPUs without data parallelism"
    " (no all2all); --moe-backend auto unless an outcome names another value (those are walked for tp only); VLLM_*"
    " unset; the oracle's caller does not allow the vLLM CUTLASS FP8 backend (allow_vllm_cutlass's default)"
)


class _Namespace(dict[str, Any]):
    """A module imported whole (`import ...modular_kernel as mk`): `mk.Name` is that module's top-level name."""

    def __init__(self, selector: KernelSelector, path: str) -> None:
        super().__init__()
        self.selector, self.path = selector, path

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        if not dict.__contains__(self, name):
            index = self.selector.modules.index(self.path)
            node = index.classes.get(name) or index.functions.get(name) if index is not None else None
            named = node.child_by_field_name("name") if node is not None else None
            if named is None:
                return False
            self[name] = self.selector.interpreter(None).evaluate(named, Scope(self.path))[0]
        return True


class MoeSelector:
    """Walks the oracles of one tree; interpreters, caches and package answers are the linear selector's."""

    def __init__(self, linear: KernelSelector, constants: Constants) -> None:
        self.linear = linear
        self.constants = constants
        self.modules = linear.modules
        self._seed_module_aliases()
        # SiLU as the tree names it: the MoEActivation enum from v0.17.0, the string "silu" before
        activation = self.modules.module_path("vllm.model_executor.layers.fused_moe.activation", ORACLE)
        named = activation is not None and self.modules.find_class("MoEActivation", activation) is not None
        self._silu: Member | str = Member("MoEActivation", "SILU") if named else "silu"
        self._configs: dict[str, Obj] = {}
        self._verdicts: dict[tuple[Any, ...], KernelVerdict] = {}
        self._mappings: dict[tuple[str, Cap], Any] = {}

    def _seed_module_aliases(self) -> None:
        """`mk` in every expert module: the oracle's experts compare formats as `mk.FusedMoEActivationFormat.X`."""
        target = "vllm.model_executor.layers.fused_moe.modular_kernel"
        path = self.modules.module_path(target, ORACLE)
        if path is None:
            return
        namespace = Obj(what="mk", attrs=_Namespace(self.linear, path))  # one: its names are read once
        for shared in (self.linear.shared, self.linear.installed):
            for expert in self.modules.tree.glob("vllm/model_executor/layers/fused_moe/**/*.py"):
                shared.names[(expert, "mk")] = namespace

    def select(self, scheme: MoeScheme, parallel: Parallel, cap: Cap) -> MoeOutcome | None:
        path = f"{ORACLE}/{scheme.oracle}.py"
        index = self.modules.index(path)
        keys = self.constants.keys
        select = oracle_select(index.functions) if index else None
        if select is not None and index is not None and _returns_backend(index.functions, select):
            return self._returned(scheme, parallel, self._config(parallel), path, select, cap)
        if index is None or scheme.weight_key not in keys or scheme.activation_key not in keys:
            return None
        config = self._config(parallel)
        weight, activation = keys[scheme.weight_key], keys[scheme.activation_key]
        listed, at = self._priorities(path, index.functions, config, weight, activation, cap)
        if isinstance(listed, Unknown) or not isinstance(listed, list):
            return MoeOutcome(
                capabilities=[str(cap)], platform=self.linear.platform, parallel=parallel.name, verdict="conditional",
                considered=[KernelVerdict(kernel="(priority list)", verdict="conditional", checks=_checks(listed))],
            )  # fmt: skip
        considered: list[KernelVerdict] = []
        chosen: tuple[str, str | None] | None = None
        fmt = Member("FusedMoEActivationFormat", "Standard")
        for backend in [m for m in listed if isinstance(m, Member)]:
            verdicts = self._experts(path, backend, config, weight, activation, fmt, cap)
            passing = next((v for v in verdicts if v.verdict == "yes"), None)
            open_ = [v for v in verdicts if v.verdict == "conditional"]
            if passing is not None and not open_[: verdicts.index(passing)]:
                considered.append(passing.model_copy(update={"kernel": f"{backend.name}: {passing.kernel}"}))
                # a backend judged by a module function has no expert class (v0.15: k_cls = None)
                chosen = (backend.name, passing.kernel if passing.kernel != backend.name else None)
                break
            shown = open_[0] if open_ else verdicts[-1]
            considered.append(shown.model_copy(update={"kernel": f"{backend.name}: {shown.kernel}"}))
        pending = any(v.verdict == "conditional" for v in considered)
        final: Verdict = "conditional" if pending else "yes" if chosen is not None else "no"
        return MoeOutcome(
            capabilities=[str(cap)],
            platform=self.linear.platform,
            parallel=parallel.name,
            verdict=final,
            backend=chosen[0] if chosen else None,
            experts=chosen[1] if chosen else None,
            considered=considered,
            order=[m.name for m in listed if isinstance(m, Member)],
            reordered=at,
        )

    def _returned(
        self, scheme: MoeScheme, parallel: Parallel, config: Obj, path: str, select: tree_sitter.Node, cap: Cap
    ) -> MoeOutcome:
        """Before v0.17 an oracle is one chain of checks that returns the backend (`select_fp8_moe_backend(
        block_quant, tp_size, with_lora_support, ...)`): called with the scheme's arguments, the `return` reached
        is the answer; there are no expert classes to ask yet."""
        flags = config.attrs["moe_parallel_config"].attrs
        given = {
            "block_quant": scheme.name == "fp8-block", "tp_size": flags["tp_size"], "with_lora_support": False,
            "is_act_and_mul": True, "allow_vllm_cutlass": False,
        }  # fmt: skip
        named = {p for p, _ in parameters(select)}
        kwargs = {k: v for k, v in given.items() if k in named}
        name = text(select.child_by_field_name("name") or select)
        it = self.linear.interpreter(cap)
        value, conditions = it.call_function(path, name, **kwargs), []
        if probes_a_package(value):  # has_deep_gemm(), has_flashinfer_moe(): answered as installed, and said so
            it = self.linear.interpreter(cap, installed=True)
            value, conditions = it.call_function(path, name, **kwargs), ["its optional packages are installed"]
        base: dict[str, Any] = {"capabilities": [str(cap)], "platform": self.linear.platform, "parallel": parallel.name}
        if isinstance(value, Member):
            where = it.decided_at or (path, line(select))
            check = Check(why=f"{value.name}: the check chain returns it here", path=where[0], line=where[1])
            picked = KernelVerdict(kernel=value.name, verdict="yes", checks=[check], conditions=conditions)
            return MoeOutcome(**base, verdict="yes", backend=value.name, considered=[picked])
        open_ = KernelVerdict(kernel="(check chain)", verdict="conditional", checks=_checks(value))
        return MoeOutcome(**base, verdict="conditional", considered=[open_])

    def forced_values(self, scheme: MoeScheme) -> list[str]:
        """The --moe-backend values the oracle's `map_*_backend` maps (its dict's keys, as written)."""
        path = f"{ORACLE}/{scheme.oracle}.py"
        index = self.modules.index(path)
        mapper = _mapper(index.functions) if index is not None else None
        return list(dict.fromkeys(_MAPPED.findall(text(mapper)))) if mapper is not None else []

    def unmapped(self, scheme: MoeScheme) -> Check | None:
        """The raise of `map_*_backend` for a value its dict does not hold."""
        path = f"{ORACLE}/{scheme.oracle}.py"
        index = self.modules.index(path)
        mapper = _mapper(index.functions) if index is not None else None
        at = _raise_line(mapper, "raise ValueError(") if mapper is not None else None
        why = f"moe_backend is not one the {scheme.oracle} oracle maps: ValueError"
        return Check(why=why, path=path, line=at) if at is not None else None

    def forced(self, scheme: MoeScheme, value: str, cap: Cap) -> MoeOutcome | None:
        """`--moe-backend value`: the oracle maps it to one backend and returns its first expert class whose
        is_supported_config holds, or raises (`_return_or_raise`); the walk over the list is skipped."""
        path = f"{ORACLE}/{scheme.oracle}.py"
        index = self.modules.index(path)
        keys = self.constants.keys
        mapper = _mapper(index.functions) if index is not None else None
        select = oracle_select(index.functions) if index else None
        if index is None or mapper is None or select is None or scheme.weight_key not in keys:
            return None
        mapping = self._mapping(path, mapper, cap)
        base: dict[str, Any] = {
            "capabilities": [str(cap)], "platform": self.linear.platform, "parallel": "tp", "moe_backend": value,
        }  # fmt: skip
        backend = mapping.get(value) if isinstance(mapping, dict) else None
        if not isinstance(backend, Member):
            at = _raise_line(mapper, "raise ValueError(") if isinstance(mapping, dict) else None
            if at is None:
                undecided = KernelVerdict(kernel=value, verdict="conditional", checks=_checks(mapping))
                return MoeOutcome(**base, verdict="conditional", considered=[undecided])
            check = Check(why=f"{value} is not a --moe-backend value this oracle maps", path=path, line=at)
            return MoeOutcome(**base, verdict="no", raises=check,
                              considered=[KernelVerdict(kernel=value, verdict="no", checks=[check])])  # fmt: skip
        body = text(select)
        if backend.name.endswith("VLLM_CUTLASS") and "not allow_vllm_cutlass" in body:
            at = _raise_line(select, "is disabled for this configuration")
            if at is not None:
                why = f"{backend.name}: the caller does not allow the vLLM CUTLASS backend (allow_vllm_cutlass)"
                check = Check(why=why, path=path, line=at)
                refused = KernelVerdict(kernel=backend.name, verdict="no", checks=[check])
                return MoeOutcome(**base, verdict="no", backend=backend.name, raises=check, considered=[refused])
        config = self._config(PARALLEL_TP)
        weight, activation = keys[scheme.weight_key], keys[scheme.activation_key]
        fmt = Member("FusedMoEActivationFormat", "Standard")
        verdicts = self._experts(path, backend, config, weight, activation, fmt, cap)
        named = [v.model_copy(update={"kernel": f"{backend.name}: {v.kernel}"}) for v in verdicts]
        passing = next((v for v in verdicts if v.verdict == "yes"), None)
        pending = [v for v in verdicts if v.verdict == "conditional"]
        at = _raise_line(select, "_make_log_unsupported(")
        raises = Check(why=f"{backend.name} refuses: every expert class declines", path=path, line=at) if at else None
        if passing is not None and not any(v.verdict == "conditional" for v in verdicts[: verdicts.index(passing)]):
            return MoeOutcome(**base, verdict="yes", backend=backend.name, experts=passing.kernel,
                              considered=named[: verdicts.index(passing) + 1])  # fmt: skip
        if pending:
            return MoeOutcome(**base, verdict="conditional", backend=backend.name, considered=named, raises=raises)
        return MoeOutcome(**base, verdict="no", backend=backend.name, considered=named, raises=raises)

    def _mapping(self, path: str, mapper: tree_sitter.Node, cap: Cap) -> Any:
        """The `mapping` dict of `map_*_backend`, read once per oracle and GPU (every forced value looks it up)."""
        key = (path, cap)
        if key not in self._mappings:
            node = _dict_assignment(mapper, "mapping")
            self._mappings[key] = self.linear.interpreter(cap).evaluate(node, Scope(path))[0] if node else None
        return self._mappings[key]

    def _priorities(
        self, path: str, functions: Mapping[str, tree_sitter.Node], config: Obj, weight: Obj, activation: Obj, cap: Cap
    ) -> tuple[Any, Check | None]:
        it = self.linear.interpreter(cap)
        select = oracle_select(functions)
        body = text(select) if select is not None else ""
        if "_get_priority_backends" in functions:
            listed = it.call_function(
                path, "_get_priority_backends", moe_config=config, weight_key=weight, activation_key=activation
            )
        else:
            node = _list_assignment(select, "AVAILABLE_BACKENDS") if select is not None else None
            listed = it.evaluate(node, Scope(path))[0] if node is not None else Unknown(())
        if not isinstance(listed, list):
            return listed, None
        at = None
        if "prioritize_humming(AVAILABLE_BACKENDS" in body:
            prefers = it.call_function(HUMMING_RULE, "prefers_humming", compute_capability=cap.to_int())
            names = [m.name if isinstance(m, Member) else "" for m in listed]
            if (
                prefers is True
                and "HUMMING" in names
                and "MARLIN" in names
                and names.index("HUMMING") > names.index("MARLIN")
            ):
                listed = list(listed)
                listed.insert(names.index("MARLIN"), listed.pop(names.index("HUMMING")))
                at = self.linear.humming_rule()
        if "if not allow_vllm_cutlass:" in body:
            listed = [m for m in listed if not (isinstance(m, Member) and m.name.endswith("VLLM_CUTLASS"))]
        return listed, at

    def _experts(
        self, path: str, backend: Member, config: Obj, weight: Obj, activation: Obj, fmt: Member, cap: Cap
    ) -> list[KernelVerdict]:
        """Each expert class `backend_to_kernel_cls` names for the backend, judged in order (a list from v0.18.0;
        v0.17 returns the one class)."""
        check = self._module_check(path, backend, cap)
        if check is not None:
            return [self.linear.ask_function(backend.name, check, [config, weight, activation, fmt], cap)[0]]
        classes = self.linear.interpreter(cap).call_function(path, "backend_to_kernel_cls", backend=backend)
        refs = [class_ref(c) for c in (classes if isinstance(classes, list) else [classes])]
        verdicts = [self._expert(r, config, weight, activation, fmt, cap) for r in refs if r is not None]
        return verdicts or [KernelVerdict(kernel=backend.name, verdict="conditional", checks=_checks(classes))]

    def _module_check(self, path: str, backend: Member, cap: Cap) -> Function | None:
        """The function the oracle's walk asks for a backend with no expert class (v0.15, v0.16: FLASHINFER_TRTLLM
        is `is_supported_config_trtllm(config, weight_key, activation_key, activation_format)`)."""
        index = self.modules.index(path)
        select = oracle_select(index.functions) if index else None
        found = re.search(
            rf"if backend == \w+\.{backend.name}:\s*k_cls = None\s*supported, reason = (is_supported_config_\w+)\(",
            text(select) if select is not None else "",
        )
        callee = _named_call(select, found.group(1)) if select is not None and found else None
        value = self.linear.interpreter(cap).evaluate(callee, Scope(path))[0] if callee is not None else None
        return value if isinstance(value, Function) else None

    def _expert(self, ref: Any, config: Obj, weight: Obj, activation: Obj, fmt: Member, cap: Cap) -> KernelVerdict:
        """is_supported_config, asked once per class, layout, scheme and GPU: the walks and the forced values ask
        the same classes (the config and keys are this selector's own objects, alive as long as it)."""
        key = (ref.path, ref.name, id(config), id(weight), id(activation), fmt, cap)
        if key not in self._verdicts:
            self._verdicts[key], _, _ = self.linear.ask(
                ref, "is_supported_config",
                {"moe_config": config, "weight_key": weight, "activation_key": activation, "activation_format": fmt},
                cap,
            )  # fmt: skip
        return self._verdicts[key]

    def _config(self, parallel: Parallel) -> Obj:
        if parallel.name not in self._configs:
            self._configs[parallel.name] = self._built_config(parallel)
        return self._configs[parallel.name]

    def _built_config(self, parallel: Parallel) -> Obj:
        ep = parallel.ep_size > 1
        flags = {
            "ep_size": parallel.ep_size, "tp_size": 1 if ep else 8, "dp_size": 1, "use_ep": ep,
            "use_all2all_kernels": False, "use_batched_activation_format": False, "use_deepep_v2_kernels": False,
            "use_deepep_ht_kernels": False, "use_deepep_ll_kernels": False, "use_pplx_kernels": False,
            "use_fi_nvl_two_sided_kernels": False, "use_fi_nvl_one_sided_kernels": False,
            "use_mori_kernels": False, "use_nixl_ep_kernels": False, "use_flashinfer_cutlass_kernels": False,
            "use_fi_all2allv_kernels": False,
            "all2all_backend": "allgather_reducescatter", "enable_eplb": False, "is_sequence_parallel": False,
        }  # fmt: skip
        parallel_config = Obj(what="moe_parallel_config", attrs=flags)
        return Obj(
            what="moe_config",
            attrs={
                "moe_parallel_config": parallel_config, "moe_backend": "auto", "is_act_and_mul": True,
                "activation": self._silu, "hidden_dim": 4096, "is_lora_enabled": False,
                "router_logits_dtype": Dtype("bfloat16"), "in_dtype": Dtype("bfloat16"), "swiglu_limit": None,
                "num_experts": 128, "experts_per_token": 8, "intermediate_size_per_partition": 1536,
                "has_bias": False, "has_hash_routing": False, "require_decomposed_backend": False,
                "routing_method": Member("RoutingMethodType", "Renormalize"),
            },
        )  # fmt: skip


def _named_call(function: tree_sitter.Node, name: str) -> tree_sitter.Node | None:
    """The callee of the first call of `name` inside the function."""
    stack = [function]
    while stack:
        node = stack.pop()
        callee = node.child_by_field_name("function") if node.type == "call" else None
        if callee is not None and text(callee) == name:
            return callee
        stack.extend(reversed(node.named_children))
    return None


def _returns_backend(functions: Mapping[str, tree_sitter.Node], select: tree_sitter.Node) -> bool:
    """The oracle's select function decides by itself: no priority list to walk, no expert class to ask."""
    return "_get_priority_backends" not in functions and _list_assignment(select, "AVAILABLE_BACKENDS") is None


def oracle_select(functions: Mapping[str, tree_sitter.Node]) -> tree_sitter.Node | None:
    """The oracle's `select_*` function (looked up by name: the module index parses only the definitions asked)."""
    return next((functions[name] for name in functions if name.startswith("select_")), None)


def _mapper(functions: Mapping[str, tree_sitter.Node]) -> tree_sitter.Node | None:
    return next((functions[n] for n in functions if n.startswith("map_") and n.endswith("_backend")), None)


def _raise_line(function: tree_sitter.Node, words: str) -> int | None:
    """The line of the first `raise` in the function (nested helpers included) whose text holds `words`."""
    start = function.start_point[0] + 1
    lines = text(function).splitlines()
    for offset, written in enumerate(lines):
        if words in written:
            for back in range(offset, max(offset - 3, -1), -1):
                if "raise " in lines[back]:
                    return start + back
    return None


def _dict_assignment(function: tree_sitter.Node, name: str) -> tree_sitter.Node | None:
    return _list_assignment(function, name, "dictionary")


def _list_assignment(function: tree_sitter.Node, name: str, kind: str = "list") -> tree_sitter.Node | None:
    """The right side of the first `name = [...]` (or of another literal kind) in the function's body."""
    body = function.child_by_field_name("body")
    for child in body.named_children if body is not None else []:
        stmt = child.named_children[0] if child.type == "expression_statement" and child.named_children else None
        left = stmt.child_by_field_name("left") if stmt is not None and stmt.type == "assignment" else None
        right = stmt.child_by_field_name("right") if stmt is not None and left is not None else None
        if left is not None and right is not None and text(left) == name and right.type == kind:
            return right
    return None


def _checks(value: Any) -> list[Check]:
    reasons = value.reasons[:4] if isinstance(value, Unknown) else ()
    return [Check(why=" ".join(r.why.split())[:240], path=r.path, line=max(r.line, 1)) for r in reasons] or [
        Check(why="not read from the source", path=ORACLE, line=1)
    ]
