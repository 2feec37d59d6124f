"""The package index, read through the PEP 691 JSON simple API, and checked downloads from it.

httpx errors are translated here, once, into NetworkError / ReleaseNotFoundError /
ChecksumError, each saying which URL failed and what to try next.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import httpx
from pydantic import BaseModel, ConfigDict, ValidationError

from vllm_quant_mcp.knowledge.echo import clip

from ..errors import ChecksumError, NetworkError, ReleaseNotFoundError, UnsafeInputError
from ..progress import report
from ..settings import refuse_network
from ..tags import InvalidTagError, nearest_tags, normalize_tag

__all__ = ["IndexFile", "PackageIndex", "http_client"]

SIMPLE_JSON = "application/vnd.pypi.simple.v1+json"
TIMEOUT = httpx.Timeout(30.0, connect=10.0)


class IndexFile(BaseModel):
    model_config = ConfigDict(frozen=True)

    filename: str
    url: str
    sha256: str
    size: int | None = None


def http_client() -> httpx.Client:
    """One client per fetch: timeouts on every phase, redirects followed (the CDN redirects)."""
    refuse_network("this release's files", "the package index")
    return httpx.Client(timeout=TIMEOUT, follow_redirects=True, headers={"User-Agent": "vllm-quant-mcp"})


def _check_url(url: str) -> str:
    if urlsplit(url).scheme not in ("http", "https"):
        raise UnsafeInputError(
            f"Index URL {clip(url)} is not http(s); set VLLM_QUANT_MCP_INDEX_URL to e.g. https://pypi.org/simple."
        )
    return url.rstrip("/")


@contextmanager
def _translated(url: str, what: str) -> Iterator[None]:
    try:
        yield
    except httpx.TransportError as exc:
        raise NetworkError(
            f"Package index unreachable while {what} ({url}): {exc.__class__.__name__}: {exc}. "
            "Check the network or VLLM_QUANT_MCP_INDEX_URL; the cache was left as it was."
        ) from exc


class PackageIndex:
    """The `vllm` project page of one simple index."""

    def __init__(self, index_url: str, client: httpx.Client, project: str = "vllm") -> None:
        self.index_url = _check_url(index_url)
        self.client = client
        self.project = project
        self._files: list[IndexFile] | None = None
        self._versions: list[str] = []

    @property
    def page_url(self) -> str:
        return f"{self.index_url}/{self.project}/"

    def files(self) -> list[IndexFile]:
        if self._files is None:
            self._files = self._read_page()
        return self._files

    def _read_page(self) -> list[IndexFile]:
        with _translated(self.page_url, "listing releases"):
            response = self.client.get(self.page_url, headers={"Accept": SIMPLE_JSON})
        if response.status_code == 404:
            raise ReleaseNotFoundError(f"The index at {self.index_url} has no project {self.project!r}.")
        if response.status_code != 200 or SIMPLE_JSON not in response.headers.get("content-type", ""):
            raise NetworkError(
                f"{self.page_url} answered {response.status_code} {response.headers.get('content-type', '')!r}, "
                "not a PEP 691 JSON page; point VLLM_QUANT_MCP_INDEX_URL at a simple index that serves JSON."
            )
        try:
            page = response.json()
            files = [
                IndexFile(
                    filename=f["filename"],
                    url=urljoin(str(response.url), f["url"]),
                    sha256=f["hashes"]["sha256"],
                    size=f.get("size"),
                )
                for f in page["files"]
                if "sha256" in f.get("hashes", {}) and not f.get("yanked")
            ]
        except (ValueError, KeyError, TypeError, ValidationError) as exc:
            raise NetworkError(f"{self.page_url} sent a malformed PEP 691 page ({exc}); try another index.") from exc
        self._versions = [str(v) for v in page.get("versions", [])]
        return files

    def sdist(self, version: str) -> IndexFile:
        """The release's source distribution, `vllm-X.tar.gz`."""
        name = f"{self.project}-{version}.tar.gz"
        return self._one_of([f for f in self.files() if f.filename == name], version, "sdist (.tar.gz)")

    def wheels(self, version: str) -> list[IndexFile]:
        """Every wheel of the release (any platform)."""
        prefix = f"{self.project}-{version}-"
        matches = [f for f in self.files() if f.filename.startswith(prefix) and f.filename.endswith(".whl")]
        self._one_of(matches, version, "wheel")
        return matches

    def _one_of(self, matches: list[IndexFile], version: str, what: str) -> IndexFile:
        if not matches:
            raise ReleaseNotFoundError(
                f"The index at {self.index_url} has no {what} for {self.project} {version}.",
                suggestions=self._nearest(version),
            )
        return matches[0]

    def _nearest(self, version: str) -> list[str]:
        tags = []
        for v in self._versions:
            try:
                tags.append(normalize_tag(v))
            except InvalidTagError:
                continue
        return nearest_tags(version, tags)

    def download(self, file: IndexFile, target: Path) -> None:
        """Stream `file` to `target` via `target.part`, verify its sha256, then rename; never leave a bad target."""
        part = target.with_name(target.name + ".part")
        digest = hashlib.sha256()
        with _translated(file.url, f"downloading {file.filename}"), self.client.stream("GET", file.url) as response:
            if response.status_code != 200:
                raise NetworkError(f"{file.url} answered {response.status_code}; retry later or use another index.")
            total = int(response.headers.get("content-length") or file.size or 0)
            with part.open("wb") as out:  # progress is reported; the CLI or the MCP server draws it
                done = reported = 0
                report("fetch", 0, total or None, file.filename)
                for chunk in response.iter_bytes(1 << 16):
                    digest.update(chunk)
                    out.write(chunk)
                    done += len(chunk)
                    if done - reported >= 1 << 20:
                        reported = done
                        report("fetch", done, total or None, file.filename)
                report("fetch", done, done, file.filename)
                out.flush()
                os.fsync(out.fileno())
        if digest.hexdigest() != file.sha256:
            part.unlink()
            raise ChecksumError(
                f"{file.filename} from {file.url} has sha256 {digest.hexdigest()}, but the index says {file.sha256}; "
                "the download was discarded. Retry, or check the mirror behind VLLM_QUANT_MCP_INDEX_URL."
            )
        os.replace(part, target)
