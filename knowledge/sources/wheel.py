"""The `wheel` source: for releases the index has no sdist of (0.4.0, 0.15.0), the `.py` files of a wheel.

A wheel holds the same `vllm/` package as the sdist minus build files, which is all
the extractors read. Only the Python members are fetched (HTTP Range) when the
server allows it; otherwise the wheel is streamed to a temporary file, verified, read
and deleted. With Range reads the whole-file sha256 cannot be checked; zipfile checks
every member's CRC instead, and the SourceInfo keeps the index's sha256 as the
identity of the wheel.
"""

from __future__ import annotations

import tempfile
import zipfile
from pathlib import Path

import httpx

from ..errors import NotAVllmTreeError, SourceError
from ..tags import pypi_version
from .archive import extract_zip_members
from .base import SourceInfo
from .package_index import IndexFile, PackageIndex, http_client
from .remotezip import RangeFile, RangeNotSupportedError

__all__ = ["WheelSource", "choose_wheel"]

_PLATFORM_PREFERENCE = ("x86_64", "any", "aarch64")


def choose_wheel(wheels: list[IndexFile]) -> IndexFile:
    """The smallest wheel of the most common platform: x86_64 first, then pure, then aarch64, then anything."""

    def rank(file: IndexFile) -> tuple[int, int, str]:
        tags = file.filename.removesuffix(".whl")
        platform = next((i for i, p in enumerate(_PLATFORM_PREFERENCE) if tags.endswith(p)), len(_PLATFORM_PREFERENCE))
        return platform, file.size or 0, file.filename

    return min(wheels, key=rank)


def is_package_source(relpath: str) -> bool:
    return relpath.startswith("vllm/") and relpath.endswith(".py")


class WheelSource:
    kind = "wheel"

    def __init__(self, index_url: str) -> None:
        self.index_url = index_url

    def fetch(self, tag: str, dest: Path) -> SourceInfo:
        version = pypi_version(tag)
        with http_client() as client:
            index = PackageIndex(self.index_url, client)
            wheel = choose_wheel(index.wheels(version))
            try:
                try:
                    self._read_ranges(client, wheel, dest)
                except RangeNotSupportedError:
                    self._read_whole(index, wheel, dest)
            except zipfile.BadZipFile as exc:  # also a member whose CRC does not match
                raise SourceError(
                    f"{wheel.filename} from {wheel.url} is not a readable zip ({exc}); the index serves a broken "
                    "wheel: retry later or use --source git."
                ) from exc
        if not (dest / "vllm" / "__init__.py").is_file():
            raise NotAVllmTreeError(f"{wheel.filename} holds no vllm/__init__.py; it is not a vLLM wheel.")
        return SourceInfo(kind="wheel", origin=wheel.url, sha256=wheel.sha256)

    @staticmethod
    def _read_ranges(client: httpx.Client, wheel: IndexFile, dest: Path) -> None:
        with zipfile.ZipFile(RangeFile(client, wheel.url)) as archive:
            extract_zip_members(archive, dest, is_package_source)

    def _read_whole(self, index: PackageIndex, wheel: IndexFile, dest: Path) -> None:
        with tempfile.TemporaryDirectory(prefix=".wheel-", dir=dest.parent) as scratch:
            local = Path(scratch) / wheel.filename
            index.download(wheel, local)
            with zipfile.ZipFile(local) as archive:
                extract_zip_members(archive, dest, is_package_source)
