"""Debian's Chromium, headless, driven over the DevTools protocol on a pipe (`--remote-debugging-pipe`).

The pipe (fd 3 into the browser, fd 4 out of it, NUL-terminated JSON messages) needs no port and
no websocket library, and dies with the process. Each read waits on `select` with a deadline, so a
browser that hangs fails the test instead of holding it.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import select
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

__all__ = ["CHROMIUM", "INSTALL_HINT", "Browser", "Tab", "chromium"]

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
INSTALL_HINT = "Chromium is not installed: apt-get update && apt-get install -y chromium chromium-driver"
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--remote-debugging-pipe",
    "--window-size=1600,1000",
)


class Browser:
    def __init__(self, proc: subprocess.Popen[bytes], to_browser: int, from_browser: int) -> None:
        self._proc, self._out, self._in = proc, to_browser, from_browser
        self._buffer = b""
        self._next = 0
        self.events: list[dict[str, Any]] = []

    def send(self, method: str, params: dict[str, Any] | None = None, session: str | None = None) -> dict[str, Any]:
        """One command; its result (an error is raised), the events that came first kept in `events`."""
        self._next += 1
        message: dict[str, Any] = {"id": self._next, "method": method, "params": params or {}}
        if session is not None:
            message["sessionId"] = session
        os.write(self._out, json.dumps(message).encode() + b"\0")
        while True:
            reply = self._read(30)
            if reply.get("id") == self._next:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return dict(reply.get("result", {}))
            self.events.append(reply)

    def wait_event(self, method: str, seconds: float = 30) -> dict[str, Any]:
        """The first event named `method`, seen already or arriving within `seconds`."""
        deadline = time.monotonic() + seconds
        while True:
            for i, event in enumerate(self.events):
                if event.get("method") == method:
                    return self.events.pop(i)
            self.events.append(self._read(max(0.0, deadline - time.monotonic())))

    def _read(self, seconds: float) -> dict[str, Any]:
        deadline = time.monotonic() + seconds
        while b"\0" not in self._buffer:
            ready, _, _ = select.select([self._in], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                raise TimeoutError(f"Chromium sent nothing for {seconds:g} s")
            chunk = os.read(self._in, 1 << 20)
            if not chunk:
                raise RuntimeError(f"Chromium exited ({self._proc.poll()})")
            self._buffer += chunk
        message, _, self._buffer = self._buffer.partition(b"\0")
        return dict(json.loads(message))

    def tab(self, headers: dict[str, str] | None = None) -> Tab:
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        tab = Tab(self, session)
        tab.send("Page.enable")
        tab.send("Network.enable")
        if headers:
            tab.send("Network.setExtraHTTPHeaders", {"headers": headers})
        return tab


class Tab:
    def __init__(self, browser: Browser, session: str) -> None:
        self.browser, self.session = browser, session

    def send(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        return self.browser.send(method, params, self.session)

    def open(self, url: str) -> int:
        """Navigate and wait for the load event; the HTTP status of the document (0 for a file)."""
        self.browser.events.clear()
        self.send("Page.navigate", {"url": url})
        self.browser.wait_event("Page.loadEventFired")
        responses = [e for e in self.browser.events if e.get("method") == "Network.responseReceived"]
        document = next((e for e in responses if e["params"].get("type") == "Document"), None)
        return int(document["params"]["response"]["status"]) if document else 0

    def requests(self) -> list[str]:
        """URLs requested since the last `open` (the document included)."""
        return [
            e["params"]["request"]["url"] for e in self.browser.events if e.get("method") == "Network.requestWillBeSent"
        ]

    def eval(self, expression: str) -> Any:
        result = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def screenshot(self, path: Path) -> Path:
        data = self.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True})["data"]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(data))
        return path


@contextmanager
def chromium() -> Iterator[Browser]:
    """A headless Chromium on its own throw-away profile; killed when the block ends."""
    to_browser_r, to_browser_w = os.pipe()
    from_browser_r, from_browser_w = os.pipe()
    with tempfile.TemporaryDirectory(prefix="chromium-") as profile:
        # The child's fds 3 and 4 must be the pipe ends: moved there in the child, then kept open (pass_fds).
        def fds() -> None:
            os.dup2(to_browser_r, 3)
            os.dup2(from_browser_w, 4)

        proc = subprocess.Popen(
            [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
            preexec_fn=fds,  # the fds must be 3 and 4 in the child alone
            pass_fds=(3, 4),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # /usr/bin/chromium is a wrapper script: its browser is a child, killed by group
        )
        os.close(to_browser_r)
        os.close(from_browser_w)
        try:
            yield Browser(proc, to_browser_w, from_browser_r)
        finally:
            os.close(to_browser_w)
            os.close(from_browser_r)
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)  # every process of the browser, before its profile is removed
            proc.wait(timeout=30)
