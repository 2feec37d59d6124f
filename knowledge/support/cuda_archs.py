"""Whether the release's wheel carries a kernel's compiled op for a GPU: the `cuda_archs` kind, replayed per CUDA.

The wheel is built for CUDA_ARCHS, the architectures of TORCH_CUDA_ARCH_LIST that CMakeLists.txt's
CUDA_SUPPORTED_ARCHS (chosen by the compiler's version) keeps; that list is the release pipeline's and not in
the tree, so every supported architecture is assumed targeted (stated). A family is then compiled for the
loose intersection of its arch list with CUDA_ARCHS, as cmake/utils.cmake computes it (an `a`/`f` arch when
its base is targeted, an `f` arch for a target of its major, else per target the highest plain arch of the
same major at or below it, `+PTX` across majors), and only where its block's CUDA bounds hold. A compiled
arch runs on a GPU by the usual rules: `x.ya` on x.y only; `x.yf` and plain `x.y` on the same major at or
above x.y; `+PTX` on anything at or above it.

Which family a kernel class needs is ours (KERNEL_FAMILIES, labelled curated): the Python class calls a
`_C` op whose binding lives in csrc/, which the tree does not carry; the `.cu` file named there is matched
against the family's source list in CMakeLists.txt, which the source does tie.
"""

from __future__ import annotations

from dataclasses import dataclass

from vllm_quant_mcp.knowledge.registry.cuda_archs import CudaArchs, CudaBound
from vllm_quant_mcp.knowledge.registry.model import Registry

__all__ = ["KERNEL_FAMILIES", "Compiled", "compiled_for", "kernel_compiled"]

# kernel class (linear kernel, or MoE experts class) -> the .cu files (or, for generated sources, the family
# variable) its compiled op comes from. Curated from each class's ops.* call and csrc/'s bindings.
KERNEL_FAMILIES: dict[str, tuple[str, ...]] = {
    "CutlassNvFp4LinearKernel": ("nvfp4_scaled_mm_kernels.cu", "nvfp4_scaled_mm_sm120_kernels.cu"),
    "CutlassFP8ScaledMMLinearKernel": ("scaled_mm_c3x_sm90.cu", "scaled_mm_c3x_sm100.cu", "scaled_mm_c3x_sm120.cu",
                                       "scaled_mm_c2x.cu"),
    "CutlassInt8ScaledMMLinearKernel": ("scaled_mm_c3x_sm90.cu", "scaled_mm_c3x_sm100.cu", "scaled_mm_c3x_sm120.cu",
                                        "scaled_mm_c2x.cu"),
    "CutlassFp8BlockScaledMMKernel": ("scaled_mm_c3x_sm90.cu", "scaled_mm_c3x_sm100.cu", "scaled_mm_c3x_sm120.cu"),
    "CutlassW4A8LinearKernel": ("w4a8_mm_entry.cu",),
    "MacheteLinearKernel": ("MACHETE_ARCHS",),
    "CutlassExpertsFp8": ("grouped_mm_c3x_sm90.cu", "grouped_mm_c3x_sm100.cu", "grouped_mm_c3x.cu"),
    "CutlassExpertsFp4": ("nvfp4_blockwise_moe_kernel.cu",),
}  # fmt: skip
_SUPPORTED = "CUDA_SUPPORTED_ARCHS"


@dataclass(frozen=True)
class Compiled:
    """A kernel's compiled op on one GPU: built for it or not (None: the wheel's CUDA decides), and the line."""

    kernel: str
    built: bool | None
    family: CudaArchs
    why: str


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in text.split(".") if p.isdigit())


def _holds(bounds: list[CudaBound], cuda: str) -> bool:
    have = _version(cuda)
    for bound in bounds:
        want = _version(bound.version)
        ok = {
            ">=": have >= want, ">": have > want, "<=": have <= want, "<": have < want,
            "==": have == want, "!=": have != want,
        }[bound.op]  # fmt: skip
        if not ok:
            return False
    return True


def _branch_archs(entry: CudaArchs, cuda: str) -> list[str] | None:
    for branch in entry.branches:
        if not branch.guards and _holds(branch.cuda, cuda):
            return branch.archs
    return None


def _split(arch: str) -> tuple[tuple[int, ...], str, bool]:
    ptx = arch.endswith("+PTX")
    base = arch.removesuffix("+PTX")
    suffix = base[-1] if base[-1:] in ("a", "f") else ""
    return _version(base.rstrip("af")), suffix, ptx


def loose_intersection(src: list[str], targets: list[str]) -> list[str]:
    """cmake/utils.cmake's cuda_archs_loose_intersection for plain targets (what CUDA_SUPPORTED_ARCHS holds)."""
    tgt = [_version(t) for t in targets]
    out: list[str] = []
    plain: list[tuple[tuple[int, ...], bool, str]] = []
    for arch in src:
        base, suffix, ptx = _split(arch)
        if suffix and base in tgt:
            out.append(arch)
            tgt.remove(base)
        elif suffix == "f" and (same := next((t for t in tgt if t[0] == base[0]), None)) is not None:
            out.append(".".join(map(str, same)))
            tgt.remove(same)
        elif not suffix:
            plain.append((base, ptx, arch))
    plain.sort()
    for target in tgt:
        picked = None
        for base, ptx, arch in plain:
            if base > target:
                break
            if ptx or base[0] == target[0]:
                picked = arch
        if picked is not None and picked not in out:
            out.append(picked)
    return out


def runs_on(arch: str, sm: tuple[int, int]) -> bool:
    base, suffix, ptx = _split(arch)
    if ptx:
        return sm >= base
    if suffix == "a":
        return sm == base
    return sm[0] == base[0] and sm >= base


def compiled_for(registry: Registry, entry: CudaArchs, sm: tuple[int, int], cuda: str) -> bool | None:
    """Whether the family's sources are built for the GPU by a wheel of this CUDA version; None if undecided."""
    supported = next((e for e in registry.cuda_archs if e.name == _SUPPORTED), None)
    targets = _branch_archs(supported, cuda) if supported is not None else None
    archs = _branch_archs(entry, cuda)
    if targets is None or archs is None:
        return None
    if not _holds(entry.built_if, cuda):
        return False
    return any(runs_on(a, sm) for a in loose_intersection(archs, targets))


def _families(registry: Registry, kernel: str) -> list[CudaArchs]:
    wanted = KERNEL_FAMILIES.get(kernel, ())
    return [
        e
        for e in registry.cuda_archs
        if e.name.split("#")[0] in wanted or any(s.rsplit("/", 1)[-1] in wanted for s in e.sources)
    ]


def kernel_compiled(registry: Registry, kernel: str, sm: int) -> Compiled | None:
    """The kernel's compiled op on SM `sm` in the release's wheel; None where the kernel needs no mapped family.

    Built if any family holding its sources is built for the GPU. The wheel's CUDA is VLLM_MAIN_CUDA_VERSION's
    default; a release without it is judged for every CUDA its CMakeLists.txt tells apart, and where they
    differ the answer is undecided (None) with each stated.
    """
    families = _families(registry, kernel)
    if not families:
        return None
    gpu = (sm // 10, sm % 10)
    main, at = registry.build.main_cuda, registry.build.main_cuda_provenance
    answers: dict[str, bool | None] = {}
    covering: list[CudaArchs] = []
    for cuda in [main] if main else _distinguished(registry):
        per = [compiled_for(registry, f, gpu, cuda) for f in families]
        answers[cuda] = True if True in per else None if None in per else False
        covering += [f for f, b in zip(families, per, strict=True) if b is True and f not in covering]
    values = set(answers.values())
    built = values.pop() if len(values) == 1 else None
    families = covering if built is True else families
    listed = "; ".join(
        f"{f.name.split('#')[0]} {' / '.join(';'.join(b.archs) for b in f.branches)} "
        f"(CMakeLists.txt:{f.provenance.line})"
        for f in families
    )
    if main and at is not None:
        origin = f"the wheel's CUDA {main}, VLLM_MAIN_CUDA_VERSION at {at.path}:{at.line}"
    else:
        said = ", ".join(f"{v}: {_said(a)}" for v, a in answers.items())
        origin = f"no VLLM_MAIN_CUDA_VERSION at this tag; by the wheel's CUDA {said}"
    sm_text = f"SM {gpu[0]}.{gpu[1]}"
    if built is True:
        why = f"{kernel}'s compiled op is built for {sm_text}: {listed} ({origin})"
    elif built is False:
        why = (
            f"{kernel}'s compiled op is not built for {sm_text} in the release's wheel: {listed} ({origin}"
            f"{_targets(registry, main)}); it needs a build whose arch list covers this GPU"
        )
    else:
        why = f"whether {kernel}'s compiled op is built for {sm_text} depends on the build: {listed} ({origin})"
    return Compiled(kernel, built, families[-1], why)


def _said(built: bool | None) -> str:
    return "built" if built else "not built" if built is False else "undecided"


def _targets(registry: Registry, cuda: str | None) -> str:
    """`; CUDA_SUPPORTED_ARCHS 7.5;...;12.0 at CMakeLists.txt:N` for the wheel's CUDA, or nothing."""
    supported = next((e for e in registry.cuda_archs if e.name == _SUPPORTED), None)
    branch = (
        next((b for b in supported.branches if not b.guards and _holds(b.cuda, cuda)), None)
        if supported is not None and cuda
        else None
    )
    return f"; targets {_SUPPORTED} {';'.join(branch.archs)} at CMakeLists.txt:{branch.line}" if branch else ""


def _distinguished(registry: Registry) -> list[str]:
    """One CUDA version per range CMakeLists.txt tells apart: each bound's version and one just above it."""
    bounds = {b.version for e in registry.cuda_archs for br in e.branches for b in br.cuda}
    bounds |= {b.version for e in registry.cuda_archs for b in e.built_if}
    ordered = sorted(bounds, key=_version)
    return [v for b in ordered for v in (b, f"{b}.1")] if ordered else []
