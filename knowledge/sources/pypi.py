"""The `pypi` source: the release's sdist from a PEP 691 simple index, checked and unpacked safely.

A release the index has no sdist of is handed to the wheel source, when one is given.

Verified sdists are kept in `<cache>/sdists/` (renamed into place only after the
sha256 matched), so a second refresh of the same tag needs no network.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from ..atomic import atomic_write_text
from ..errors import NotAVllmTreeError, ReleaseNotFoundError
from ..tags import pypi_version
from .archive import extract_tar
from .base import SourceInfo
from .index import IndexFile, PackageIndex, http_client
from .wheel import WheelSource

__all__ = ["PypiSource", "file_sha256"]


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


class PypiSource:
    kind = "pypi"

    def __init__(self, index_url: str, sdist_dir: Path, no_sdist: WheelSource | None = None) -> None:
        self.index_url = index_url
        self.sdist_dir = sdist_dir
        self.no_sdist = no_sdist

    def sdist(self, tag: str) -> IndexFile:
        """The index entry of `tag`'s sdist, downloaded to `sdist_path` unless a verified copy is kept there."""
        version = pypi_version(tag)
        target = self.sdist_path(tag)
        record = target.with_name(target.name + ".json")
        if target.is_file() and record.is_file():
            kept = IndexFile.model_validate_json(record.read_text(encoding="utf-8"))
            if file_sha256(target) == kept.sha256:
                return kept
        self.sdist_dir.mkdir(parents=True, exist_ok=True)
        with http_client() as client:
            index = PackageIndex(self.index_url, client)
            file = index.sdist(version)
            index.download(file, target)
        atomic_write_text(record, file.model_dump_json())
        return file

    def sdist_path(self, tag: str) -> Path:
        return self.sdist_dir / f"vllm-{pypi_version(tag)}.tar.gz"

    def fetch(self, tag: str, dest: Path) -> SourceInfo:
        try:
            file = self.sdist(tag)
        except ReleaseNotFoundError:
            if self.no_sdist is None:
                raise
            return self.no_sdist.fetch(tag, dest)
        path = self.sdist_path(tag)
        extract_tar(path, dest, strip_components=1)
        if not (dest / "vllm" / "__init__.py").is_file():
            raise NotAVllmTreeError(f"{path} unpacked to no vllm/__init__.py; delete it and refresh again.")
        return SourceInfo(kind="pypi", origin=file.url, sha256=file.sha256)
