"""A read-only, seekable file over HTTP Range requests, so zipfile can read a wheel's few .py members.

Release wheels are hundreds of MB, almost all compiled kernels; the Python files are a
few MB. Reads are served from aligned blocks fetched on demand, adjacent missing blocks
in one request, so reading members in archive order costs a handful of requests.
"""

from __future__ import annotations

import io

import httpx

from ..errors import InternalError, NetworkError

__all__ = ["BLOCK", "RangeFile", "RangeNotSupportedError"]

BLOCK = 1 << 19


class RangeNotSupportedError(InternalError):
    """The server answered a Range request with the whole file; the caller falls back to a full download."""


class RangeFile(io.RawIOBase):
    """Opening it fetches the last block (where a zip keeps its central directory) and learns the size."""

    def __init__(self, client: httpx.Client, url: str) -> None:
        super().__init__()
        self.client = client
        self.url = url
        self.position = 0
        self._blocks: dict[int, bytes] = {}
        response = self._get(f"bytes=-{BLOCK}")
        content_range = response.headers.get("content-range", "")
        try:
            first, total = content_range.removeprefix("bytes ").split("/")
            self.size = int(total)
            self._tail_start = int(first.split("-")[0])
        except ValueError as exc:
            raise NetworkError(f"{url} sent a malformed Content-Range {content_range!r}; retry later.") from exc
        self._tail = response.content

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self.position

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self.position, io.SEEK_END: self.size}[whence]
        self.position = max(0, base + offset)
        return self.position

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        end = min(self.position + len(buffer), self.size)
        if end <= self.position:
            return 0
        data = self._span(self.position, end)
        buffer[: len(data)] = data
        self.position = end
        return len(data)

    def _span(self, start: int, end: int) -> bytes:
        if start >= self._tail_start:
            return self._tail[start - self._tail_start : end - self._tail_start]
        first, last = start // BLOCK, (end - 1) // BLOCK
        missing = [b for b in range(first, last + 1) if b not in self._blocks]
        if missing:
            self._fetch(missing[0], missing[-1])
        joined = b"".join(self._blocks[b] for b in range(first, last + 1))
        offset = first * BLOCK
        return joined[start - offset : end - offset]

    def _fetch(self, first: int, last: int) -> None:
        start, end = first * BLOCK, min((last + 1) * BLOCK, self.size)
        content = self._get(f"bytes={start}-{end - 1}").content
        if len(content) != end - start:
            raise NetworkError(f"{self.url} returned {len(content)} bytes for a {end - start}-byte range; retry later.")
        for block in range(first, last + 1):
            offset = (block - first) * BLOCK
            self._blocks[block] = content[offset : offset + BLOCK]

    def _get(self, byte_range: str) -> httpx.Response:
        try:
            response = self.client.get(self.url, headers={"Range": byte_range})
        except httpx.TransportError as exc:
            raise NetworkError(f"Reading {self.url} failed: {exc}; check the network and retry.") from exc
        if response.status_code == 200:
            raise RangeNotSupportedError(self.url)
        if response.status_code != 206:
            raise NetworkError(f"{self.url} answered a Range request with {response.status_code}; retry later.")
        return response
