"""A smart-HTTP git server on 127.0.0.1 (`git http-backend` as CGI), with a stall switch for deadline tests.

It serves every repository under `root` at `{base_url}/{name}`, the way GitHub serves
https remotes, so a fetch crosses a real network path and a real git client
(git-remote-http). With `stall` set, the pack request is held until the server shuts
down: a remote that never finishes sending.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from support.loopback import LoopbackServer, QuietHandler

__all__ = ["GitHttpServer"]


class GitHttpServer(LoopbackServer):
    def __init__(self, root: Path) -> None:
        self.root = root
        self.stall = False
        self.pack_requests = 0
        super().__init__()

    def _handler(self) -> type[QuietHandler]:
        server = self

        class Handler(QuietHandler):
            def _cgi(self) -> None:
                path, _, query = self.path.partition("?")
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                if path.endswith("/git-upload-pack") and self.command == "POST":
                    server.pack_requests += 1
                    if server.stall:
                        server.release.wait(30)
                        return
                env = {
                    "GIT_PROJECT_ROOT": str(server.root),
                    "GIT_HTTP_EXPORT_ALL": "1",
                    "PATH_INFO": path,
                    "QUERY_STRING": query,
                    "REQUEST_METHOD": self.command,
                    "CONTENT_TYPE": self.headers.get("Content-Type", ""),
                    "CONTENT_LENGTH": str(len(body)),
                    "GIT_PROTOCOL": self.headers.get("Git-Protocol", ""),
                    "HTTP_CONTENT_ENCODING": self.headers.get("Content-Encoding", ""),
                    "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
                }
                out = subprocess.run(["git", "http-backend"], input=body, capture_output=True, env=env).stdout
                head, _, payload = out.partition(b"\r\n\r\n")
                status, headers = 200, {}
                for line in head.decode("latin-1").split("\r\n"):
                    key, _, value = line.partition(": ")
                    if key.lower() == "status":
                        status = int(value.split()[0])
                    elif key:
                        headers[key] = value
                self.reply(status, payload, headers)

            do_GET = do_POST = _cgi

        return Handler
