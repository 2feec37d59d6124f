"""Which quantization methods each platform class restricts itself to (`supported_quantization`).

vLLM rejects a method missing from the platform's list, but an empty list (the default on
`Platform`, kept by CudaPlatform) means no restriction: such platforms are left out and the
note says so. Lists appear in vllm/platforms/*.py from 0.6.5; before that the checks were
local lists inside vllm/config.py, which this extractor does not read.
"""

from __future__ import annotations

import tree_sitter

from vllm_quant_mcp.knowledge.extract.engine.syntax import NotLiteral, line, matches, string_items, text
from vllm_quant_mcp.knowledge.extract.result import Extracted
from vllm_quant_mcp.knowledge.registry.model import PlatformQuantization
from vllm_quant_mcp.knowledge.sources.tree import SourceTree

__all__ = ["extract_platforms"]

_PLATFORM_FILES = "vllm/platforms/*.py"
_ATTRIBUTE = b"supported_quantization"
_UNRESTRICTED = (
    "A platform not listed (e.g. CudaPlatform) keeps Platform.supported_quantization = [], "
    "which vLLM reads as no restriction."
)
_BEFORE_PLATFORMS = "Before 0.6.5 the per-platform lists were locals in vllm/config.py, which are not extracted."


def extract_platforms(tree: SourceTree) -> Extracted[list[PlatformQuantization]]:
    """Each platform class with a non-empty literal supported_quantization list, file by file."""
    entries: list[PlatformQuantization] = []
    warnings: list[str] = []
    conditional: list[str] = []
    for path in tree.glob(_PLATFORM_FILES):
        if _ATTRIBUTE not in tree.read_bytes(path):  # most platform files never name it: no need to parse them
            continue
        for captures in matches("platforms", tree.parse(path).root_node):
            platform = text(captures["platform"][0])
            if "conditional" in captures:
                addition = captures["addition"][0]
                conditional.append(
                    f"{platform} adds {text(captures['conditional'][0])} under a condition at {path}:{line(addition)}"
                )
                continue
            methods = _literal_methods(captures["methods"][0])
            if methods is None:
                warnings.append(
                    f"{platform}.supported_quantization at {path}:{line(captures['methods'][0])} "
                    "is not a literal list; platform omitted."
                )
            elif methods:
                assignment = captures["assignment"][0]
                entries.append(
                    PlatformQuantization(
                        name=platform, provenance=tree.provenance(path, line(assignment)), methods=methods
                    )
                )
    if not entries:
        reason = (
            "no platform class in vllm/platforms/*.py sets a non-empty literal supported_quantization"
            if tree.glob(_PLATFORM_FILES)
            else "vllm/platforms/ does not exist"
        )
        return Extracted([], note=f"{reason} at {tree.tag}. {_BEFORE_PLATFORMS}", warnings=warnings)
    note = " ".join([_UNRESTRICTED, *(f"{c} (not in methods)." for c in conditional)])
    return Extracted(entries, note=note, warnings=warnings)


def _literal_methods(node: tree_sitter.Node) -> list[str] | None:
    """The names of a list literal, or None for anything computed (a call, a name, a comprehension)."""
    if node.type != "list":
        return None
    try:
        return [name for name, _ in string_items(node)]
    except NotLiteral:
        return None
