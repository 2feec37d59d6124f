"""Real vLLM releases for tests: sdists fetched once through the project's own PyPI source, cached between runs.

The cache lives outside the checkout (VLLM_QUANT_MCP_TEST_CACHE, default
~/.cache/vllm-quant-mcp-tests) so CI on the same machine reuses it. Sdists already
kept in ~/.cache/vllm-sdists are copied instead of downloaded.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from functools import cache
from pathlib import Path

from vllm_quant_mcp.knowledge.settings import DEFAULT_INDEX_URL
from vllm_quant_mcp.knowledge.sources.archive import extract_tar
from vllm_quant_mcp.knowledge.sources.pypi import PypiSource
from vllm_quant_mcp.knowledge.tree import SourceTree

INDEX = os.environ.get("VLLM_QUANT_MCP_INDEX_URL", DEFAULT_INDEX_URL)
CACHE = Path(os.environ.get("VLLM_QUANT_MCP_TEST_CACHE", Path.home() / ".cache" / "vllm-quant-mcp-tests"))


def sdist(version: str) -> Path:
    """The verified sdist of vllm `version` in the test cache."""
    target = CACHE / "sdists" / f"vllm-{version}.tar.gz"
    if target.exists():
        return target
    local = Path.home() / ".cache" / "vllm-sdists" / target.name
    target.parent.mkdir(parents=True, exist_ok=True)
    if local.exists():
        part = target.with_name(target.name + f".{os.getpid()}.part")
        shutil.copyfile(local, part)
        os.replace(part, target)
        return target
    PypiSource(INDEX, target.parent).sdist(f"v{version}")
    return target


def _package_python(relpath: str) -> bool:
    return relpath.startswith("vllm/") and relpath.endswith(".py") and "/tests/" not in relpath


@cache
def release_tree(version: str) -> SourceTree:
    """The `vllm/` Python files of a real release, unpacked once (into a temp folder, then renamed)."""
    root = CACHE / "trees" / f"vllm-{version}"
    if not (root / ".complete").exists():
        root.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".vllm-{version}-", dir=root.parent))
        extract_tar(sdist(version), staging, strip_components=1, include=_package_python)
        (staging / ".complete").write_text("", encoding="utf-8")
        if not (root / ".complete").exists():
            shutil.rmtree(root, ignore_errors=True)
        try:
            staging.rename(root)
        except OSError:
            shutil.rmtree(staging, ignore_errors=True)
    return SourceTree(root, f"v{version}")
