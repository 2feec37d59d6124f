"""The `pypi` source: the release's sdist from a PEP 691 simple index, checked and unpacked safely.

A release the index has no sdist of is handed to the wheel source, when one is given.

The sdist is downloaded, its sha256 checked, its files read straight from memory into the
store's pack (`fetch_files`), and then thrown away: the pack holds everything a tool reads.
It is kept in `<cache>/sdists/` only when asked (VLLM_QUANT_MCP_KEEP_SDISTS=1, or `sdist()`),
and a verified copy found there is used instead of the network.
"""

from __future__ import annotations

import hashlib
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

from ..atomic import atomic_write_text
from ..errors import NotAVllmTreeError, ReleaseNotFoundError
from ..progress import report
from ..tags import pypi_version
from .archive import gunzip, tar_files, write_files
from .base import SourceInfo
from .pack import directory_files
from .package_index import IndexFile, PackageIndex, http_client
from .wheel import WheelSource

__all__ = ["AddFile", "PypiSource", "file_sha256"]

AddFile = Callable[[str, memoryview | bytes], None]
_REPORT_EVERY = 500  # files between two "extract" progress reports


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


class PypiSource:
    kind = "pypi"

    def __init__(
        self, index_url: str, sdist_dir: Path, no_sdist: WheelSource | None = None, keep_sdist: bool = False
    ) -> None:
        self.index_url = index_url
        self.sdist_dir = sdist_dir
        self.no_sdist = no_sdist
        self.keep_sdist = keep_sdist

    def sdist(self, tag: str) -> IndexFile:
        """The index entry of `tag`'s sdist, downloaded to `sdist_path` (and kept) unless a verified copy is there."""
        kept = self._kept(tag)
        if kept is not None:
            return kept
        target = self.sdist_path(tag)
        self.sdist_dir.mkdir(parents=True, exist_ok=True)
        with http_client() as client:
            index = PackageIndex(self.index_url, client)
            file = index.sdist(pypi_version(tag))
            index.download(file, target)
        atomic_write_text(target.with_name(target.name + ".json"), file.model_dump_json())
        return file

    def _kept(self, tag: str) -> IndexFile | None:
        target = self.sdist_path(tag)
        record = target.with_name(target.name + ".json")
        if target.is_file() and record.is_file():
            kept = IndexFile.model_validate_json(record.read_text(encoding="utf-8"))
            if file_sha256(target) == kept.sha256:
                return kept
        return None

    def sdist_path(self, tag: str) -> Path:
        return self.sdist_dir / f"vllm-{pypi_version(tag)}.tar.gz"

    def _sdist_bytes(self, tag: str) -> tuple[IndexFile, bytes]:
        """The verified sdist, from the kept copy, or downloaded (kept only when keep_sdist)."""
        if self.keep_sdist or self._kept(tag) is not None:
            file = self.sdist(tag)
            return file, self.sdist_path(tag).read_bytes()
        self.sdist_dir.mkdir(parents=True, exist_ok=True)
        prefix = f".download-{self.sdist_path(tag).name}-"
        for stale in self.sdist_dir.glob(prefix + "*"):  # left by a killed refresh of this tag (they run one at a time)
            shutil.rmtree(stale, ignore_errors=True)
        with tempfile.TemporaryDirectory(prefix=prefix, dir=self.sdist_dir) as scratch:
            local = Path(scratch) / self.sdist_path(tag).name
            with http_client() as client:
                index = PackageIndex(self.index_url, client)
                file = index.sdist(pypi_version(tag))
                index.download(file, local)
            return file, local.read_bytes()

    def fetch_files(self, tag: str, add: AddFile) -> SourceInfo:
        """Hand every safe file of the release to `add` (relative path, content) and say where it came from."""
        try:
            file, packed = self._sdist_bytes(tag)
        except ReleaseNotFoundError:
            if self.no_sdist is None:
                raise
            self.sdist_dir.mkdir(parents=True, exist_ok=True)
            with tempfile.TemporaryDirectory(prefix=".wheel-tree-", dir=self.sdist_dir) as scratch:
                info = self.no_sdist.fetch(tag, Path(scratch))
                for relpath, content in directory_files(Path(scratch)):
                    add(relpath, content)
            return info
        found = 0
        has_init = False
        for relpath, data in tar_files(gunzip(packed, file.filename), file.filename, strip_components=1):
            add(relpath, data)
            found += 1
            has_init = has_init or relpath == "vllm/__init__.py"
            if found % _REPORT_EVERY == 0:
                report("extract", found, None, file.filename)
        report("extract", found, found, file.filename)
        if not has_init:
            raise NotAVllmTreeError(f"{file.filename} holds no vllm/__init__.py; it is not a vLLM sdist.")
        return SourceInfo(kind="pypi", origin=file.url, sha256=file.sha256)

    def fetch(self, tag: str, dest: Path) -> SourceInfo:
        """The release as loose files in `dest` (for callers that want a directory, e.g. the fallback chain)."""
        files: list[tuple[str, memoryview | bytes]] = []
        info = self.fetch_files(tag, lambda relpath, data: files.append((relpath, data)))
        write_files(iter(files), dest)
        return info
