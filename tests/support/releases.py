"""Real vLLM releases for tests: sdists fetched once through the project's own PyPI source, cached between runs.

The cache lives outside the checkout (VLLM_QUANT_MCP_TEST_CACHE, default
~/.cache/vllm-quant-mcp-tests) so CI on the same machine reuses it. Sdists already
kept in ~/.cache/vllm-sdists are copied instead of downloaded. Releases published
without an sdist (0.4.0) come from their wheel, pinned here by URL and sha256.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import zipfile
from functools import cache
from pathlib import Path

from vllm_quant_mcp.knowledge.registry.store import Store
from vllm_quant_mcp.knowledge.settings import DEFAULT_INDEX_URL
from vllm_quant_mcp.knowledge.sources.archive import extract_tar, extract_zip_members
from vllm_quant_mcp.knowledge.sources.directory import DirectorySource
from vllm_quant_mcp.knowledge.sources.package_index import IndexFile, PackageIndex, http_client
from vllm_quant_mcp.knowledge.sources.pypi import PypiSource
from vllm_quant_mcp.knowledge.sources.tree import SourceTree

__all__ = ["CACHE", "install_release_tree", "release_tree", "sdist", "wheel"]

INDEX = os.environ.get("VLLM_QUANT_MCP_INDEX_URL", DEFAULT_INDEX_URL)
CACHE = Path(os.environ.get("VLLM_QUANT_MCP_TEST_CACHE", Path.home() / ".cache" / "vllm-quant-mcp-tests"))

# Wheel-only releases: the smallest x86_64 wheel of each, as PyPI lists it.
WHEELS = {
    "0.4.0": IndexFile(
        filename="vllm-0.4.0-cp311-cp311-manylinux1_x86_64.whl",
        url="https://files.pythonhosted.org/packages/76/e6/3e4be97960eadfcc3356421258d7e753031e223fe028b110dae7e17e2dc8/"
        "vllm-0.4.0-cp311-cp311-manylinux1_x86_64.whl",
        sha256="69ce98bba1ad1c2174b4eb98502fb80181f1fcb7653551c512662da59cb18d8c",
    ),
}


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


def wheel(version: str) -> Path:
    """The verified wheel of a wheel-only release (72 MB for 0.4.0) in the test cache, downloaded once."""
    if version not in WHEELS:
        raise KeyError(f"vllm {version} has an sdist; use sdist({version!r}). Wheel-only releases: {sorted(WHEELS)}")
    file = WHEELS[version]
    target = CACHE / "wheels" / file.filename
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        with http_client() as client:
            PackageIndex("https://pypi.org/simple", client).download(file, target)
    return target


def _package_python(relpath: str) -> bool:
    return relpath.startswith("vllm/") and relpath.endswith(".py") and "/tests/" not in relpath


def _build_files(relpath: str) -> bool:
    """What the build-pins kind reads beside the Python: the requirements files and CMakeLists.txt (a few KB)."""
    return (relpath.startswith("requirements/") and relpath.endswith(".txt")) or relpath == "CMakeLists.txt"


@cache
def release_tree(version: str) -> SourceTree:
    """The `vllm/` Python files of a real release and its requirements/ and CMakeLists.txt, unpacked once."""
    root = CACHE / "trees" / f"vllm-{version}"
    if not (root / ".complete").exists():
        root.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".vllm-{version}-", dir=root.parent))
        if version in WHEELS:
            with zipfile.ZipFile(wheel(version)) as archive:
                extract_zip_members(archive, staging, _package_python)
        else:
            extract_tar(
                sdist(version), staging, strip_components=1, include=lambda p: _package_python(p) or _build_files(p)
            )
            (staging / ".build-files").write_text("", encoding="utf-8")
        (staging / ".complete").write_text("", encoding="utf-8")
        if not (root / ".complete").exists():
            shutil.rmtree(root, ignore_errors=True)
        try:
            staging.rename(root)
        except OSError:
            shutil.rmtree(staging, ignore_errors=True)
    if version not in WHEELS and not (root / ".build-files").exists():
        # Trees cached before the build files were kept get them added once, in place (a wheel has none).
        extract_tar(sdist(version), root, strip_components=1, include=_build_files)
        (root / ".build-files").write_text("", encoding="utf-8")
    return SourceTree(root, f"v{version}")


def install_release_tree(cache: Path, version: str) -> None:
    """Put the real tree of `version` into the server cache `cache` the way `refresh --source DIR` does.

    A server started on that cache then answers source tools for the tag without a network.
    """
    store = Store(cache)
    tag = f"v{version}"
    with store.lock(tag):
        store.install_tree(tag, DirectorySource(release_tree(version).root))
