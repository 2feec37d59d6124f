"""What a release installs with it: the pins of `requirements/*.txt` for the packages its kernels probe for.

A kernel that asks `has_humming()` or `has_flashinfer()` runs only where the package is installed; whether
`pip install vllm` installs it is written in requirements/cuda.txt and common.txt (the wheel's
install_requires are read from them). Read as text: `name[extras]==version ; markers  # comment`.
The pins come from the sdist; a tree of Python files alone (the installed vllm/) has none, and says so.
"""

from __future__ import annotations

import re

from vllm_quant_mcp.knowledge.extract.result import Extracted
from vllm_quant_mcp.knowledge.registry.model import BuildPin, BuildPins
from vllm_quant_mcp.knowledge.sources.tree import SourceTree

__all__ = ["PACKAGES", "REQUIREMENTS", "extract_build_pins"]

ENVS = "vllm/envs.py"
# `VLLM_MAIN_CUDA_VERSION: str = "13.0"` in the TYPE_CHECKING block: the CUDA of the wheel without a +cu suffix
_MAIN_CUDA = re.compile(r'^\s*VLLM_MAIN_CUDA_VERSION:\s*str\s*=\s*"([\d.]+)"', re.M)
REQUIREMENTS = ("requirements/common.txt", "requirements/cuda.txt", "requirements/rocm.txt")
# The packages vLLM's kernel and backend selection probes for, as PyPI spells them.
PACKAGES = re.compile(r"^(torch|triton|flashinfer[-\w]*|deep[-_]gemm|humming[-\w]*|xformers|flash[-_]attn\w*)$", re.I)
_PIN = re.compile(
    r"^\s*(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?\s*(?P<spec>[<>=!~][^;#]*)?(?:;(?P<marker>[^#]*))?"
)


def extract_build_pins(tree: SourceTree) -> Extracted[BuildPins]:
    present = [path for path in REQUIREMENTS if tree.exists(path)]
    main = _MAIN_CUDA.search(tree.read_text(ENVS)) if tree.exists(ENVS) else None
    cuda, at = (main[1], tree.provenance(ENVS, _line_of(main))) if main else (None, None)
    if not present:
        return Extracted(
            BuildPins(main_cuda=cuda, main_cuda_provenance=at),
            note="No requirements/*.txt in this tree (a tree of vllm/ Python files only): no pins.",
        )
    pins: list[BuildPin] = []
    for path in present:
        platform = path.rsplit("/", 1)[-1].removesuffix(".txt")
        for number, written in enumerate(tree.read_text(path).splitlines(), start=1):
            found = _PIN.match(written)
            if found is None or written.lstrip().startswith(("#", "-")) or not PACKAGES.match(found["name"]):
                continue
            pins.append(
                BuildPin(
                    name=found["name"].lower().replace("_", "-"),
                    provenance=tree.provenance(path, number),
                    requirement=" ".join(written.split("#", 1)[0].split()),
                    platform=platform,
                    marker=(found["marker"] or "").strip() or None,
                )
            )
    return Extracted(BuildPins(pins=pins, main_cuda=cuda, main_cuda_provenance=at))


def _line_of(found: re.Match[str]) -> int:
    return found.string.count("\n", 0, found.start(1)) + 1
