"""A real PEP 691 simple index on 127.0.0.1, in a thread, serving files from disk with HTTP Range support.

Tests point VLLM_QUANT_MCP_INDEX_URL (or `index_url=`) at `server.index_url`. Knobs:
`range_enabled` (False: answer Range requests with the whole file, like a naive server),
`wrong_sha256` (publish a wrong checksum for a file), and `stall_after` (send that many
bytes of a file, set `stalled`, then wait for `release` — a download caught mid-way).
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections.abc import Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from urllib.parse import unquote

__all__ = ["IndexServer"]

_RANGE = re.compile(r"^bytes=(\d*)-(\d*)$")


class IndexServer:
    def __init__(self, files: Iterable[Path], project: str = "vllm") -> None:
        self.files = {path.name: path for path in files}
        self.project = project
        self.range_enabled = True
        self.wrong_sha256: set[str] = set()
        self.stall_after: int | None = None
        self.stalled = threading.Event()
        self.release = threading.Event()
        self.bytes_sent: dict[str, int] = {}
        self.requests: list[str] = []
        self._lock = threading.Lock()
        self._sha256: dict[str, str] = {}
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def index_url(self) -> str:
        return f"{self.base_url}/simple"

    def __enter__(self) -> IndexServer:
        self._thread.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release.set()
        self._httpd.shutdown()
        self._httpd.server_close()

    def sha256(self, name: str) -> str:
        if name not in self._sha256:
            self._sha256[name] = hashlib.sha256(self.files[name].read_bytes()).hexdigest()
        return self._sha256[name]

    def page(self) -> dict[str, object]:
        entries = []
        for name, path in sorted(self.files.items()):
            sha = "0" * 64 if name in self.wrong_sha256 else self.sha256(name)
            entries.append(
                {"filename": name, "url": f"../../files/{name}", "hashes": {"sha256": sha}, "size": path.stat().st_size}
            )
        versions = sorted({name.split("-")[1].removesuffix(".tar.gz") for name in self.files})
        return {"meta": {"api-version": "1.1"}, "name": self.project, "files": entries, "versions": versions}

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:
                return

            def do_GET(self) -> None:
                with server._lock:
                    server.requests.append(f"{self.path} {self.headers.get('Range', '')}".strip())
                if self.path.rstrip("/") == f"/simple/{server.project}":
                    body = json.dumps(server.page()).encode()
                    self._send(200, body, {"Content-Type": "application/vnd.pypi.simple.v1+json"})
                elif self.path.startswith("/files/") and unquote(self.path[7:]) in server.files:
                    self._file(unquote(self.path[7:]))
                else:
                    self._send(404, b"not found", {"Content-Type": "text/plain"})

            def _file(self, name: str) -> None:
                data = server.files[name].read_bytes()
                match = _RANGE.match(self.headers.get("Range", ""))
                if match and server.range_enabled:
                    first, last = match.groups()
                    start = len(data) - int(last) if not first else int(first)
                    end = len(data) - 1 if not first or not last else min(int(last), len(data) - 1)
                    start = max(start, 0)
                    headers = {"Content-Range": f"bytes {start}-{end}/{len(data)}"}
                    self._send(206, data[start : end + 1], headers, name)
                else:
                    self._send(200, data, {"Content-Type": "application/octet-stream"}, name)

            def _send(self, status: int, body: bytes, headers: dict[str, str], name: str | None = None) -> None:
                self.send_response(status)
                for key, value in headers.items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                cut = server.stall_after if name is not None and server.stall_after is not None else len(body)
                try:
                    self.wfile.write(body[:cut])
                    if cut < len(body):
                        self.wfile.flush()
                        server.stalled.set()
                        server.release.wait()
                        self.wfile.write(body[cut:])
                except (BrokenPipeError, ConnectionResetError):
                    return
                if name is not None:
                    with server._lock:
                        server.bytes_sent[name] = server.bytes_sent.get(name, 0) + len(body)

        return Handler
