"""Which linear kernel and MoE backend a --quantization value gets on a GPU at a tag, as judgements with their basis.

The kernel is the source's answer (the registry's `kernels` kind, replayed from vLLM's selection code);
which kernel serves which method is ours (METHOD_SCHEMES, labelled curated in the answer's assumptions).
Native, fallback or emulated follows from the kernel picked where the source decides it for certain: a Marlin
or W4A16 kernel for a format whose activations are quantized runs weight-only (activations in BF16, fallback),
an Emulation kernel dequantizes to BF16 (emulated). Whether the release's wheel compiles the picked kernel's
op for the GPU is the cuda_archs kind's answer (support/cuda_archs.py); the MoE backend, forced or not, is
moe_kernels.py's. The GPU table answers where no kernel is derived, where checks ahead
of the pick are decided on the machine, and for Humming (whose activation schema its name does not tell). An AMD
GPU reads the ROCm walk at the capability torch reports for its gfx arch (gfx942: 9.4); cuda_archs is CUDA's
build only, so a ROCm pick carries no build condition.
"""

from __future__ import annotations

from vllm_quant_mcp.knowledge.facts.kinds import Gpu
from vllm_quant_mcp.knowledge.registry.kernels import KernelOutcome, KernelSelection, KernelVerdict
from vllm_quant_mcp.knowledge.registry.matrix import Check
from vllm_quant_mcp.knowledge.registry.model import Registry
from vllm_quant_mcp.knowledge.support.backend_miss import backend_miss
from vllm_quant_mcp.knowledge.support.cuda_archs import kernel_compiled
from vllm_quant_mcp.knowledge.support.evaluate import capability_of
from vllm_quant_mcp.knowledge.support.formats import Support
from vllm_quant_mcp.knowledge.support.judgement import Evidence, Judgement
from vllm_quant_mcp.knowledge.support.kernel_evidence import checks_of, deciding, evidence_of, on
from vllm_quant_mcp.knowledge.support.moe_kernels import moe_judgement

__all__ = ["METHOD_SCHEMES", "kernel_judgements", "kernel_support"]

# --quantization value -> (linear scheme, MoE scheme) of the kernels kind; read by hand from each method's
# create_weights / process_weights_after_loading (curated: a method may build another config per checkpoint).
METHOD_SCHEMES: dict[str, tuple[str | None, str | None]] = {
    "fp8": ("fp8-tensor", "fp8-tensor"),
    "fp8_per_tensor": ("fp8-tensor", "fp8-tensor"),
    "fp8_per_block": ("fp8-block", "fp8-block"),
    "fp8_per_channel": ("fp8-channel", None),
    "fbgemm_fp8": ("fp8-channel", None),
    "gptq": ("gptq-w4a16", None),
    "gptq_marlin": ("gptq-w4a16", None),
    "awq": ("awq-w4a16", None),
    "awq_marlin": ("awq-w4a16", None),
    "modelopt_fp4": ("nvfp4", "nvfp4"),
    "nvfp4_per_token": ("nvfp4", "nvfp4"),
    "mxfp4": ("mxfp4", None),
    "mxfp8": ("mxfp8", None),
    "modelopt_mxfp8": ("mxfp8", None),
}
_WEIGHT_ONLY_WORDS = ("Marlin", "W4A16", "WNA16")


def kernel_support(
    registry: Registry, method: str, gpu: Gpu, linear_backend: str = "auto"
) -> tuple[Support, str] | None:
    """native, fallback or emulated from the linear kernel vLLM picks; None where the source picks none for certain.

    emulated is the source's word: the class vLLM picks is one of its Emulation* kernels ("Software emulation
    fallback ... dequant to BF16", their docstrings). A kernel whose compiled op the release's wheel does not
    build for the GPU (cuda_archs) is no certain pick: the GPU table answers.
    """
    found = _linear(registry, method, gpu, linear_backend)
    if found is None or found[1].kernel is None or found[1].verdict != "yes":
        return None  # no kernel, or one behind checks decided on the machine: the GPU table answers
    selection, outcome = found
    if outcome.linear_backend != linear_backend and backend_miss(registry, selection).raises:
        return None  # the chooser raises before any kernel is tried: the linear judgement says so
    kernel = outcome.kernel or ""
    compiled = kernel_compiled(registry, kernel, gpu.sm) if gpu.sm is not None else None
    if "Humming" in kernel or (compiled is not None and compiled.built is not True):
        return None  # Humming takes several activation schemas; an op the wheel lacks makes the pick uncertain
    forced = f" with --linear-backend {linear_backend}" if linear_backend != "auto" else ""
    at = f"at {registry.tag}{forced}"
    if "Emulation" in kernel:
        return "emulated", f"{kernel}: emulated, weights dequantized and multiplied in BF16 ({at})"
    if selection.weight_only:
        return "native", f"{kernel}: a weight-only kernel for a weight-only format, activations in BF16 ({at})"
    if any(word in kernel for word in _WEIGHT_ONLY_WORDS):
        return "fallback", f"{kernel}: weight-only, activations in BF16 ({at})"
    return "native", f"{kernel} runs {selection.name} as the checkpoint stores it ({at})"


def kernel_judgements(
    registry: Registry,
    method: str,
    gpu: Gpu,
    moe: bool,
    moe_backend: str = "auto",
    linear_backend: str = "auto",
) -> list[Judgement]:
    """The linear kernel (and with MoE layers the MoE backend) vLLM picks for `method` on the GPU, or none.

    With `linear_backend` other than auto, the linear judgement is the walk made with that value: the kernel it
    picks, or, where the value names no kernel of the list, what the tag's chooser does then (backend_miss.py:
    the auto pick, or the raise). With `moe_backend` other than auto, the MoE judgement is what that one backend
    does (the oracle's forced path, replayed): its expert class, or the raise vLLM meets, with its line; a
    release whose oracle maps no such value is judged as auto and says so.
    """
    found: list[Judgement] = []
    where = capability_of(gpu)
    if where is None:
        return found
    linear = _linear(registry, method, gpu, linear_backend)
    if linear is not None:
        judged = _linear_judgement(registry, method, gpu.id, where, *linear, asked=linear_backend)
        found.append(_built(registry, judged, judged.via, gpu.sm))
    scheme = METHOD_SCHEMES.get(method, (None, None))[1]
    moe_judged = moe_judgement(registry, method, gpu.id, where, scheme, moe_backend) if moe and scheme else None
    if moe_judged is not None:
        judged, experts = moe_judged
        found.append(_built(registry, judged, experts, gpu.sm))
    return found


def _built(registry: Registry, judgement: Judgement, kernel: str | None, sm: int | None) -> Judgement:
    """The judgement with whether the release's wheel compiles the picked kernel's op for the GPU (cuda_archs).

    A kernel whose family CMakeLists.txt does not build for this SM has no op to call in the wheel: the pick
    stands only for a build that covers the GPU, which is a condition, with the CMakeLists.txt line.
    """
    compiled = kernel_compiled(registry, kernel, sm) if kernel and sm is not None else None
    if compiled is None:
        return judgement
    verdict = "conditional" if compiled.built is not True and judgement.verdict == "yes" else judgement.verdict
    at = compiled.family.provenance
    evidence = Evidence(why=compiled.why, path=at.path, line=at.line, permalink=at.permalink)
    return judgement.model_copy(
        update={
            "verdict": verdict,
            "why": f"{judgement.why}; {compiled.why}",
            "evidence": [*judgement.evidence[:5], evidence],
            "assumptions": [
                *judgement.assumptions,
                "which CMake family a kernel's compiled op is built in is read from csrc/ by hand (curated); "
                "the wheel is assumed built for every CUDA_SUPPORTED_ARCHS entry of its CUDA",
            ],
        }
    )


def _linear(
    registry: Registry, method: str, gpu: Gpu, backend: str = "auto"
) -> tuple[KernelSelection, KernelOutcome] | None:
    """The selection and its outcome on the GPU with --linear-backend `backend` (auto where that value was not
    walked for the scheme: vLLM selects as with auto when the backend names no kernel of the list)."""
    scheme, where = METHOD_SCHEMES.get(method, (None, None))[0], capability_of(gpu)
    selection = next((s for s in registry.kernel_support.selections if s.name == scheme), None)
    if selection is None or where is None:
        return None
    here = [o for o in selection.outcomes if on(o, where)]
    outcome = next((o for o in here if o.linear_backend == backend), None) or next(
        (o for o in here if o.linear_backend == "auto"), None
    )
    return (selection, outcome) if outcome is not None else None


def _linear_judgement(
    registry: Registry,
    method: str,
    gpu: str,
    where: tuple[str, str],
    selection: KernelSelection,
    outcome: KernelOutcome,
    asked: str = "auto",
) -> Judgement:
    """The walk's judgement: auto's, the one made with `asked`, or (`asked` walked for no kernel of the list) what
    the chooser does with it."""
    if asked != "auto" and outcome.linear_backend == asked:
        return _forced_linear(registry, method, gpu, where, selection, outcome)
    judged = _auto_linear(registry, method, gpu, where, selection, outcome)
    return judged if asked == "auto" else _missed_linear(registry, method, selection, judged, asked)


def _auto_linear(
    registry: Registry,
    method: str,
    gpu: str,
    where: tuple[str, str],
    selection: KernelSelection,
    outcome: KernelOutcome,
) -> Judgement:
    forced = [
        f"--linear-backend {o.linear_backend} -> {o.kernel or 'none'}"
        for o in selection.outcomes
        if o.linear_backend != "auto" and on(o, where) and o.kernel != outcome.kernel
    ]
    refused, pending = _walked(outcome)
    why = f"{selection.provenance.path.rsplit('/', 1)[-1]} {selection.name}: "
    why += f"{outcome.kernel or 'no kernel'}" + (f" after {'; '.join(refused)} refused" if refused else "")
    if pending:
        why += f"; ahead of it, decided on the machine: {', '.join(pending)}"
    if outcome.reordered is not None:
        why += f"; {outcome.reordered.why}"
    if outcome.runner_up is not None:
        why += f"; with VLLM_DISABLED_KERNELS={outcome.kernel}: {outcome.runner_up.kernel}"
    if forced:
        why += f"; {', '.join(forced)}"
    taken = [v for v in outcome.considered if v.verdict == "yes"] + ([outcome.runner_up] if outcome.runner_up else [])
    evidence = deciding(registry.tag, outcome.considered, [outcome.reordered] if outcome.reordered else [])
    return _walk_judgement(registry, method, gpu, selection, outcome, "", why, evidence, taken)


def _walked(outcome: KernelOutcome) -> tuple[list[str], list[str]]:
    """The candidates refused (with the first check's why) and those left to the machine, in the walk's order."""
    refused = [f"{v.kernel} ({v.checks[0].why})" for v in outcome.considered if v.verdict == "no" and v.checks]
    return refused, [v.kernel for v in outcome.considered if v.verdict == "conditional"]


def _walk_judgement(
    registry: Registry,
    method: str,
    gpu: str,
    selection: KernelSelection,
    outcome: KernelOutcome,
    asked: str,
    why: str,
    evidence: list[Evidence],
    taken: list[KernelVerdict],
) -> Judgement:
    """A linear walk's judgement, read off the source: the kernel is the walk's, the layer's scheme is curated."""
    return Judgement(
        subject=f"linear kernel for --quantization {method}{f' with {asked}' if asked else ''}",
        gpu=gpu,
        tag=registry.tag,
        verdict=outcome.verdict,
        basis="source",
        via=outcome.kernel,
        why=why,
        evidence=evidence,
        assumptions=[
            *registry.kernel_support.assumptions,
            f"{method} builds a {selection.name} layer (curated)",
            *_installs(registry, taken),
        ],
    )


def _forced_linear(
    registry: Registry,
    method: str,
    gpu: str,
    where: tuple[str, str],
    selection: KernelSelection,
    outcome: KernelOutcome,
) -> Judgement:
    """`--linear-backend X` walked: the list narrowed to X's kernels (the map's line), and the one that accepts.

    prioritize_humming's order is left out: a value narrows the list to one family, so it decides nothing here.
    """
    asked = f"--linear-backend {outcome.linear_backend}"
    refused, pending = _walked(outcome)
    why = f"{selection.provenance.path.rsplit('/', 1)[-1]} {selection.name}: {asked} -> "
    if outcome.kernel is None:
        why += f"no kernel: {'; '.join(refused) or 'none of its kernels accepts the layer'}"
    else:
        why += outcome.kernel + (f" after {'; '.join(refused)} refused" if refused else "")
    if pending:
        why += f"; ahead of it, decided on the machine: {', '.join(pending)}"
    auto = next((o for o in selection.outcomes if o.linear_backend == "auto" and on(o, where)), None)
    why += f"; auto picks {auto.kernel}" if auto is not None and auto.kernel and auto.kernel != outcome.kernel else ""
    mapped = next((b for b in registry.kernel_support.backends if b.name == outcome.linear_backend), None)
    checks = [c for v in outcome.considered for c in checks_of(v)]
    if mapped is not None:
        at = mapped.provenance
        checks.insert(0, Check(why=f"{asked} covers {', '.join(mapped.kernels)}", path=at.path, line=at.line))
    taken = [v for v in outcome.considered if v.verdict == "yes"]
    evidence = [evidence_of(c, registry.tag) for c in checks][:6]
    return _walk_judgement(registry, method, gpu, selection, outcome, asked, why, evidence, taken)


def _missed_linear(
    registry: Registry, method: str, selection: KernelSelection, auto: Judgement, asked: str
) -> Judgement:
    """`--linear-backend X` naming no kernel of the list: the chooser's raise, or its fallback to auto selection."""
    miss = backend_miss(registry, selection)
    head = f"--linear-backend {asked} names no kernel of the {selection.name} list"
    subject = f"{auto.subject} with --linear-backend {asked}"
    sites = [(s, Check(why=s.name, path=s.provenance.path, line=s.provenance.line)) for s in miss.sites]
    where = ", ".join(f"{s.function} at {c.path.rsplit('/', 1)[-1]}:{c.line}" for s, c in sites[:3])
    evidence = [evidence_of(c, registry.tag) for _, c in sites[:3]]
    if miss.raises:
        return auto.model_copy(
            update={
                "subject": subject,
                "verdict": "no",
                "via": None,
                "why": f'{head}: vLLM raises ValueError("{miss.message(asked)}") in its chooser ({where})',
                "evidence": evidence,
            }
        )
    said = (
        f"vLLM warns ({where}) and selects as with auto"
        if sites
        else "no line of the list's file says what vLLM does then; judged as auto"
    )
    return auto.model_copy(
        update={"subject": subject, "why": f"{head}: {said}: {auto.why}", "evidence": [*evidence, *auto.evidence][:6]}
    )


def _installs(registry: Registry, verdicts: list[KernelVerdict]) -> list[str]:
    """Each package probe a kernel relied on, with whether `pip install vllm` at the tag installs the package."""
    said: list[str] = []
    for verdict in verdicts:
        for condition in verdict.conditions:
            probe = condition.split("()", 1)[0]
            word = probe.removeprefix("has_").replace("_", "-")
            pin = next((p for p in registry.build.pins if p.name.startswith(word)), None)
            if pin is not None:
                where = f"{pin.provenance.path}:{pin.provenance.line}"
                said.append(f"{verdict.kernel}: {probe}() holds with the release's pin {pin.requirement} ({where})")
            elif registry.build.pins:
                said.append(f"{verdict.kernel}: {condition}; this release pins no {word} package: install it")
            else:
                said.append(f"{verdict.kernel}: {condition}")
    return list(dict.fromkeys(said))
