"""Where a vLLM tree at a tag comes from: git, the package index (sdist or wheel), or a directory."""

from __future__ import annotations

from .base import Source
from .chain import FallbackSource
from .directory import DirectorySource, installed_vllm
from .git import GitSource, check_remote
from .pypi import PypiSource
from .select import SOURCE_NAMES, make_source
from .wheel import WheelSource

__all__ = [
    "SOURCE_NAMES",
    "DirectorySource",
    "FallbackSource",
    "GitSource",
    "PypiSource",
    "Source",
    "WheelSource",
    "check_remote",
    "installed_vllm",
    "make_source",
]
