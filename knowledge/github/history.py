"""vLLM's commit history without a single file in it: the repository that proves which release holds a fix.

Which release contains a commit is a question about commits only, so this keeps a
treeless partial clone (`--filter=tree:0`) of every tag and of the default branch: every commit
reachable from them and nothing else, about 9-25 MB for vLLM against 31-47 MB for
one tag's snapshot. It lives apart from the git source's shallow repository
(`<cache>/git/vllm.git`, one `--depth 1` snapshot per refreshed tag): mixing a
treeless fetch into a shallow repository leaves it shallow, and a shallow history
cannot prove that a release lacks a commit. One repository per remote URL, so two
remotes never answer for each other.

The repository is complete for the tags it holds: a first fetch is staged beside
it and renamed in only when it succeeded, a later fetch updates the refs only at
its end, so a killed fetch leaves the previous state. A commit that is absent
after a fetch of every tag is therefore, provably, in no tag's history.

Every fetch runs under the lookup's Deadline in its own process group, which is
killed when the deadline passes. A remote that ignores `--filter` (a file://
remote without uploadpack.allowFilter) would send every tree and blob: the fetch
is stopped at its warning. Proof commands run with lazy fetching disabled
(GIT_NO_LAZY_FETCH, and GIT_ALLOW_PROTOCOL=none for git before 2.44): a partial
clone would otherwise download missing trees from the remote mid-proof.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import selectors
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from filelock import FileLock, Timeout

from vllm_quant_mcp.knowledge.echo import clip, redact

from ..atomic import atomic_write_text
from ..errors import UnavailableError
from ..progress import report
from ..sources.git import GIT_ENV, check_remote
from .deadline import Deadline

__all__ = ["History", "HistoryError", "HistoryRepo", "check_branch"]

REFRESH_AFTER = 600.0  # seconds a fetch is trusted to know every tag before the next proof fetches again
RETRY_MISSING_AFTER = 60.0  # seconds before a commit the history lacks is looked for again
LOCAL_TIMEOUT = 60.0  # seconds for one local git command (a proof is ~0.1 s on vLLM's 25k commits)
# every tag, and the default branch (main for vLLM) under whatever name the remote gives it
TAGS_AND_MAIN = ("+refs/tags/*:refs/tags/*", "+HEAD:refs/remotes/origin/HEAD")
_STAMP = "vllm-quant-mcp-fetched.json"
_NO_FILTER = b"filtering not recognized by server"
_BRANCH = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._/-]{0,199}$")


class HistoryError(UnavailableError):
    """The history repository could not be fetched or read now (remote unreachable, deadline, damage)."""


class _NoHead(HistoryError):
    """The remote's HEAD names no branch (a bare mirror can be so): fetch the tags alone."""


def check_branch(name: str) -> str:
    """A branch name from GitHub's JSON, safe in a refspec: no option, no `..`, no glob, no lock file."""
    if not _BRANCH.match(name) or ".." in name or name.endswith((".lock", "/", ".")) or "//" in name:
        raise HistoryError(f"branch {clip(name)} is not a plain branch name; it was not fetched.")
    return name


@dataclass(frozen=True)
class History:
    """A history repository ready for a proof, and when it last heard from the remote."""

    path: Path
    remote: str
    age: float  # seconds since the remote last answered a fetch into it

    def git(self, *args: str) -> str:
        """Run a read-only git command with lazy fetching off; its stdout, or HistoryError with git's stderr."""
        env = {**os.environ, **GIT_ENV, "GIT_NO_LAZY_FETCH": "1", "GIT_ALLOW_PROTOCOL": "none", "LC_ALL": "C"}
        try:
            done = subprocess.run(
                ["git", "-C", str(self.path), *args],
                capture_output=True,
                env=env,
                timeout=LOCAL_TIMEOUT,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise HistoryError(f"git {args[0]} in {self.path} failed: {exc}") from exc
        if done.returncode != 0:
            stderr = done.stderr.decode("utf-8", "replace").strip()
            raise HistoryError(f"git {args[0]} in {self.path} failed: {stderr or f'exit {done.returncode}'}")
        return done.stdout.decode("utf-8", "replace")

    def has_commit(self, sha: str) -> bool:
        try:
            self.git("cat-file", "-e", f"{sha}^{{commit}}")
        except HistoryError:
            return False
        return True


class HistoryRepo:
    def __init__(self, remote: str, root: Path, *, clock: Callable[[], float] = time.time) -> None:
        self.remote = check_remote(remote)
        self.path = root / f"{hashlib.sha256(remote.encode('utf-8')).hexdigest()[:16]}.git"
        self._clock = clock

    def ensure(self, deadline: Deadline, sha: str | None, branch: str | None) -> tuple[History | None, list[str]]:
        """The history, fetched first when stale or lacking `sha` (then `branch` too); notes say what went wrong.

        None when there is no history at all (never fetched, and the fetch failed now).
        """
        notes: list[str] = []
        history = self.current()
        has_sha = sha is None or (history is not None and history.has_commit(sha))
        age = None if history is None else history.age
        if age is None or age > REFRESH_AFTER or (not has_sha and age > RETRY_MISSING_AFTER):
            try:
                history = self._locked_fetch(deadline, TAGS_AND_MAIN)
            except _NoHead:  # a mirror whose HEAD names no branch: the tags alone prove as much
                history = self._fetch_or_note(deadline, TAGS_AND_MAIN[:1], notes) or history
            except HistoryError as exc:
                notes.append(str(exc))
        if history is not None and sha is not None and branch not in (None, "main") and not history.has_commit(sha):
            try:
                ref = check_branch(str(branch))
                history = self._locked_fetch(deadline, (f"+refs/heads/{ref}:refs/remotes/origin/{ref}",))
            except HistoryError as exc:
                notes.append(f"branch {branch}: {exc}")
        return history, notes

    def current(self) -> History | None:
        """The history as it is, without asking the remote; None before the first successful fetch."""
        stamp = self._stamp()
        return None if stamp is None else History(self.path, self.remote, max(0.0, self._clock() - stamp))

    def _fetch_or_note(self, deadline: Deadline, refspecs: tuple[str, ...], notes: list[str]) -> History | None:
        try:
            return self._locked_fetch(deadline, refspecs)
        except HistoryError as exc:
            notes.append(str(exc))
            return None

    def _stamp(self) -> float | None:
        try:
            data = json.loads((self.path / _STAMP).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        at = data.get("at") if isinstance(data, dict) else None
        return float(at) if isinstance(at, int | float) and data.get("remote") == self.remote else None

    def _locked_fetch(self, deadline: Deadline, refspecs: tuple[str, ...]) -> History:
        stop = deadline.stop_reason()
        if stop is not None:
            raise HistoryError(f"history of {redact(self.remote)} not fetched: {stop}.")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        lock = FileLock(self.path.with_name(self.path.name + ".lock"))
        try:
            lock.acquire(timeout=deadline.remaining())
        except Timeout:
            raise HistoryError(f"another process is fetching into {self.path}; its result was not awaited.") from None
        try:
            if self._stamp() is None:
                self._first_fetch(deadline, refspecs)
            else:
                self._fetch(self.path, deadline, refspecs)
            if refspecs[0] == TAGS_AND_MAIN[0]:  # the stamp dates the tags; a branch fetch does not renew them
                atomic_write_text(self.path / _STAMP, json.dumps({"at": self._clock(), "remote": self.remote}))
        finally:
            lock.release()
        current = self.current()
        if current is None:
            raise HistoryError(f"history of {redact(self.remote)} has no stamp after a fetch; delete {self.path}.")
        return current

    def _first_fetch(self, deadline: Deadline, refspecs: tuple[str, ...]) -> None:
        """Fetch into a fresh repository beside the place, renamed in only when the fetch succeeded."""
        with tempfile.TemporaryDirectory(prefix=".new-", dir=self.path.parent) as scratch:
            staging = Path(scratch) / "history.git"
            setup = (
                ["init", "-q", "--bare", str(staging)],
                ["-C", str(staging), "config", "remote.origin.url", self.remote],
            )
            for args in setup:
                done = subprocess.run(["git", *args], capture_output=True, check=False)
                if done.returncode != 0:
                    raise HistoryError(f"git {' '.join(args)} failed: {done.stderr.decode('utf-8', 'replace')}")
            self._fetch(staging, deadline, refspecs)
            if self.path.exists():  # a damaged leftover without a stamp
                os.replace(self.path, Path(scratch) / "old.git")
            staging.rename(self.path)

    def _fetch(self, repo: Path, deadline: Deadline, refspecs: tuple[str, ...]) -> None:
        """One treeless `git fetch` that ends by the deadline, and stops at once if the remote ignores the filter."""
        args = ["git", "-C", str(repo), "-c", "fetch.writeCommitGraph=true", "fetch", "--quiet", "--no-tags"]
        args += ["--prune", "--filter=tree:0", "--", "origin", *refspecs]  # a named remote: git refuses a path
        env = {**os.environ, **GIT_ENV, "LC_ALL": "C"}
        report("fetch", 0, None, f"commit history of {redact(self.remote)} (treeless)")
        started = time.monotonic()
        proc = subprocess.Popen(
            args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env,
            start_new_session=True,
        )  # fmt: skip
        try:
            stderr, late, ignored = _watch(proc, deadline)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        if late:
            why = f"git fetch of {redact(self.remote)} used up the lookup deadline ({deadline.seconds:g} s)"
            deadline.trip(why)
            raise HistoryError(f"history not fetched: {why}.")
        if ignored:
            raise HistoryError(
                f"history of {redact(self.remote)} not fetched: the remote ignores --filter and would send "
                "every file of every release (set uploadpack.allowFilter=true on it)."
            )
        if proc.returncode != 0:
            text = stderr.decode("utf-8", "replace").strip()
            error = _NoHead if "couldn't find remote ref HEAD" in text else HistoryError
            raise error(f"history of {redact(self.remote)} not fetched: {text or f'git exit {proc.returncode}'}.")
        report("fetch", 1, 1, f"commit history of {redact(self.remote)} in {time.monotonic() - started:.1f} s")


def _watch(proc: subprocess.Popen[bytes], deadline: Deadline) -> tuple[bytes, bool, bool]:
    """Read the fetch's stderr until it ends: (stderr, deadline passed, remote ignored the filter)."""
    stream = proc.stderr
    if stream is None:
        raise HistoryError("git fetch started without its stderr pipe.")
    stderr = b""
    with stream, selectors.DefaultSelector() as selector:
        selector.register(stream, selectors.EVENT_READ)
        while True:
            left = deadline.remaining()
            if left <= 0:
                return stderr, True, False
            if not selector.select(timeout=left):
                continue
            chunk = os.read(stream.fileno(), 65536)
            if not chunk:
                break
            stderr += chunk
            if _NO_FILTER in stderr:
                return stderr, False, True
    try:
        proc.wait(timeout=max(deadline.remaining(), 0.001))
    except subprocess.TimeoutExpired:
        return stderr, True, False
    return stderr, False, False
