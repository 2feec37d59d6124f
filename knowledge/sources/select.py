"""Turn the `--source` value of `refresh` into a Source: auto, git, pypi, wheel, installed, or a directory."""

from __future__ import annotations

from pathlib import Path

from ..settings import settings
from .base import Source
from .chain import FallbackSource
from .directory import DirectorySource, installed_vllm
from .git import GitSource
from .pypi import PypiSource
from .wheel import WheelSource

__all__ = ["SOURCE_NAMES", "make_source"]

SOURCE_NAMES = ("auto", "git", "pypi", "wheel", "installed")


def make_source(spec: str, cache_dir: Path, remote: str | None = None, index_url: str | None = None) -> Source:
    """`spec` is one of SOURCE_NAMES or a directory path; remote and index URL default to the settings."""
    remote = remote or settings().remote
    index_url = index_url or settings().index_url
    if spec in ("git", "auto"):
        git = GitSource(remote, cache_dir / "git" / "vllm.git")
    if spec in ("pypi", "auto"):
        pypi = PypiSource(index_url, cache_dir / "sdists", WheelSource(index_url), keep_sdist=settings().keep_sdists)
    if spec == "auto":
        return FallbackSource([git, pypi])
    if spec == "git":
        return git
    if spec == "pypi":
        return pypi
    if spec == "wheel":
        return WheelSource(index_url)
    if spec == "installed":
        return DirectorySource(installed_vllm()[0], whole=False)
    return DirectorySource(Path(spec))
