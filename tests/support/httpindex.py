"""A real PEP 691 simple index on 127.0.0.1, in a thread, serving files from disk with HTTP Range support.

Tests point VLLM_QUANT_MCP_INDEX_URL (or `index_url=`) at `server.index_url`. Knobs:
`range_enabled` (False: answer Range requests with the whole file, like a naive server), `file_query`
(appended to every file URL, as a mirror that signs its links does: `?X-Amz-Signature=...`),
`wrong_sha256` (publish a wrong checksum for a file), and `stall_after` (send that many
bytes of a file, set `stalled`, then wait for `release` — a download caught mid-way).
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections.abc import Iterable
from pathlib import Path
from urllib.parse import unquote

from support.loopback import LoopbackServer, QuietHandler

__all__ = ["IndexServer"]

_RANGE = re.compile(r"^bytes=(\d*)-(\d*)$")


class IndexServer(LoopbackServer):
    def __init__(self, files: Iterable[Path], project: str = "vllm") -> None:
        self.files = {path.name: path for path in files}
        self.project = project
        self.range_enabled = True
        self.file_query = ""
        self.wrong_sha256: set[str] = set()
        self.stall_after: int | None = None
        self.stalled = threading.Event()
        self.bytes_sent: dict[str, int] = {}
        self.requests: list[str] = []
        self._lock = threading.Lock()
        self._sha256: dict[str, str] = {}
        super().__init__()

    @property
    def index_url(self) -> str:
        return f"{self.base_url}/simple"

    def sha256(self, name: str) -> str:
        if name not in self._sha256:
            self._sha256[name] = hashlib.sha256(self.files[name].read_bytes()).hexdigest()
        return self._sha256[name]

    def page(self) -> dict[str, object]:
        entries = []
        for name, path in sorted(self.files.items()):
            sha = "0" * 64 if name in self.wrong_sha256 else self.sha256(name)
            entries.append(
                {
                    "filename": name,
                    "url": f"../../files/{name}{self.file_query}",
                    "hashes": {"sha256": sha},
                    "size": path.stat().st_size,
                }
            )
        versions = sorted({name.split("-")[1].removesuffix(".tar.gz") for name in self.files})
        return {"meta": {"api-version": "1.1"}, "name": self.project, "files": entries, "versions": versions}

    def _handler(self) -> type[QuietHandler]:
        server = self

        class Handler(QuietHandler):
            def do_GET(self) -> None:
                with server._lock:
                    server.requests.append(f"{self.path} {self.headers.get('Range', '')}".strip())
                path = self.path.split("?", 1)[0]  # a signed link's query authorises, it names nothing
                if path.rstrip("/") == f"/simple/{server.project}":
                    body = json.dumps(server.page()).encode()
                    self.reply(200, body, {"Content-Type": "application/vnd.pypi.simple.v1+json"})
                elif path.startswith("/files/") and unquote(path[7:]) in server.files:
                    self._file(unquote(path[7:]))
                else:
                    self.reply(404, b"not found", {"Content-Type": "text/plain"})

            def _file(self, name: str) -> None:
                data = server.files[name].read_bytes()
                match = _RANGE.match(self.headers.get("Range", ""))
                if match and server.range_enabled:
                    first, last = match.groups()
                    start = len(data) - int(last) if not first else int(first)
                    end = len(data) - 1 if not first or not last else min(int(last), len(data) - 1)
                    start = max(start, 0)
                    headers = {"Content-Range": f"bytes {start}-{end}/{len(data)}"}
                    self._send_file(206, data[start : end + 1], headers, name)
                else:
                    self._send_file(200, data, {"Content-Type": "application/octet-stream"}, name)

            def _send_file(self, status: int, body: bytes, headers: dict[str, str], name: str) -> None:
                """Like reply, but stalls after `stall_after` bytes when set, and counts what reached the client."""
                self.begin_reply(status, headers, len(body))
                cut = len(body) if server.stall_after is None else server.stall_after
                try:
                    self.wfile.write(body[:cut])
                    if cut < len(body):
                        self.wfile.flush()
                        server.stalled.set()
                        server.release.wait()
                        self.wfile.write(body[cut:])
                except (BrokenPipeError, ConnectionResetError):
                    return
                with server._lock:
                    server.bytes_sent[name] = server.bytes_sent.get(name, 0) + len(body)

        return Handler
