"""Real vLLM releases for tests: sdists fetched once from the package index, cached between runs.

The cache lives outside the checkout (VLLM_QUANT_MCP_TEST_CACHE, default
~/.cache/vllm-quant-mcp-tests) so CI on the same machine reuses it.
TODO(sources): route through knowledge.sources.pypi once it exists.
"""

from __future__ import annotations

import hashlib
import json
import os
import tarfile
from functools import cache
from pathlib import Path

import httpx

from vllm_quant_mcp.knowledge.tree import SourceTree

INDEX = os.environ.get("VLLM_QUANT_MCP_INDEX_URL", "https://pypi.org/simple")
CACHE = Path(os.environ.get("VLLM_QUANT_MCP_TEST_CACHE", Path.home() / ".cache" / "vllm-quant-mcp-tests"))


def _sdist_url(version: str) -> tuple[str, str]:
    response = httpx.get(
        f"{INDEX}/vllm/", headers={"Accept": "application/vnd.pypi.simple.v1+json"}, timeout=30, follow_redirects=True
    )
    response.raise_for_status()
    for f in json.loads(response.text)["files"]:
        if f["filename"] == f"vllm-{version}.tar.gz":
            return f["url"], f["hashes"]["sha256"]
    raise LookupError(f"no sdist for vllm {version}")


def sdist(version: str) -> Path:
    target = CACHE / "sdists" / f"vllm-{version}.tar.gz"
    if target.exists():
        return target
    local = Path.home() / ".cache" / "vllm-sdists" / target.name
    target.parent.mkdir(parents=True, exist_ok=True)
    if local.exists():
        target.write_bytes(local.read_bytes())
        return target
    url, sha = _sdist_url(version)
    part = target.with_suffix(".part")
    digest = hashlib.sha256()
    with httpx.stream("GET", url, timeout=60, follow_redirects=True) as r, part.open("wb") as out:
        r.raise_for_status()
        for chunk in r.iter_bytes():
            digest.update(chunk)
            out.write(chunk)
    if digest.hexdigest() != sha:
        part.unlink()
        raise ValueError(f"checksum mismatch for {url}")
    part.rename(target)
    return target


@cache
def release_tree(version: str) -> SourceTree:
    """The `vllm/` Python files of a real release, unpacked once."""
    root = CACHE / "trees" / f"vllm-{version}"
    if not (root / ".complete").exists():
        with tarfile.open(sdist(version)) as tar:
            members = [
                m
                for m in tar.getmembers()
                if m.isfile() and m.name.endswith(".py") and "/vllm/" in m.name and "/tests/" not in m.name
            ]
            for m in members:
                m.name = m.name.split("/", 1)[1]
            tar.extractall(root, members=members, filter="data")
        (root / ".complete").write_text("", encoding="utf-8")
    return SourceTree(root, f"v{version}")
