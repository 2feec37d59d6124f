"""The `git` source: a shallow fetch of exactly one tag into one reusable bare repository, then `git archive`.

Every tag fetched from any remote lands in `<cache>/git/vllm.git`, so a second tag
costs one more shallow fetch and a tag already there costs none. The repository is
created beside its place and renamed in after its first successful fetch, so a
failed first fetch leaves nothing behind. Nothing the user
typed reaches git where it could be read as an option: the remote is checked here
(no leading dash, no `transport::` helpers such as `ext::`/`fd::`, only known URL
schemes), the tag by knowledge.tags, and both follow `--`. GIT_ALLOW_PROTOCOL is
a second fence.
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from filelock import FileLock, Timeout

from ..echo import clip
from ..errors import LockTimeoutError, NetworkError, ReleaseNotFoundError, SourceError, UnsafeInputError
from ..progress import report
from ..settings import refuse_network
from ..tags import InvalidTagError, nearest_tags, normalize_tag
from .archive import extract_tar
from .base import SourceInfo

if TYPE_CHECKING:
    import git

__all__ = ["GitSource", "check_remote"]

_SCHEMES = ("https", "http", "git", "ssh", "file")
LOCK_TIMEOUT = 900.0  # longer than one fetch plus one archive at the default timeout; a hung holder then fails
# git's own test (transport.c): a run of URL-scheme characters, then `::`, names a remote helper (`ext::sh -c ..`,
# `fd::3`). Only there: `::` inside an IPv6 host (`https://[::1]:8080/x.git`) is no helper.
_HELPER = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*::")
_SCP_LIKE = re.compile(r"^(?:[^@/:]+@)?(?P<host>[^/:]+):")
GIT_ENV = {
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_ASKPASS": "",
    "SSH_ASKPASS": "",
    "GIT_SSH_COMMAND": "ssh -o BatchMode=yes",  # never a password or host-key prompt on a terminal no one watches
    "GIT_HTTP_LOW_SPEED_LIMIT": "1000",
    "GIT_HTTP_LOW_SPEED_TIME": "30",
    "GIT_ALLOW_PROTOCOL": ":".join(_SCHEMES),
}


def check_remote(remote: str) -> str:
    """The remote unchanged if git can only read it as a repository location; else UnsafeInputError."""
    fix = "give an https://, ssh://, git://, file:// URL or a local path, e.g. https://github.com/vllm-project/vllm.git"
    if not remote or remote != remote.strip() or any(ord(c) < 32 for c in remote):
        raise UnsafeInputError(f"Git remote {clip(remote)} is empty or holds whitespace/control characters; {fix}.")
    if remote.startswith("-"):
        raise UnsafeInputError(f"Git remote {clip(remote)} starts with '-' and would be read as a git option; {fix}.")
    if _HELPER.match(remote) or remote.lower().startswith(("ext:", "fd:")):
        raise UnsafeInputError(f"Git remote {clip(remote)} names a transport helper (ext::, fd::...), refused; {fix}.")
    if "://" in remote:
        parts = urlsplit(remote)
        if parts.scheme.lower() not in _SCHEMES:
            raise UnsafeInputError(f"Git remote {clip(remote)} uses scheme {parts.scheme!r}, refused; {fix}.")
        if (parts.hostname or "").startswith("-") or parts.netloc.startswith("-"):
            raise UnsafeInputError(f"Git remote {clip(remote)} has a host starting with '-' (an ssh option), refused.")
        return remote
    scp = _SCP_LIKE.match(remote)
    if scp and not Path(remote).exists() and scp.group("host").startswith("-"):
        raise UnsafeInputError(f"Git remote {clip(remote)} has a host starting with '-' (an ssh option), refused.")
    return remote


class GitSource:
    kind = "git"

    def __init__(self, remote: str, repo_dir: Path, timeout: float = 600.0, lock_timeout: float = LOCK_TIMEOUT) -> None:
        self.remote = check_remote(remote)
        self.repo_dir = repo_dir
        self.timeout = timeout
        self.lock_timeout = lock_timeout

    def fetch(self, tag: str, dest: Path) -> SourceInfo:
        tag = normalize_tag(tag)
        self.repo_dir.parent.mkdir(parents=True, exist_ok=True)
        lock = FileLock(self.repo_dir.with_name(self.repo_dir.name + ".lock"))
        try:
            lock.acquire(timeout=self.lock_timeout)
        except Timeout as exc:
            raise LockTimeoutError(
                f"Another fetch into {self.repo_dir} has held {lock.lock_file} for over {self.lock_timeout:.0f} s; "
                "wait for it to finish and retry (the lock is released when that process exits)."
            ) from exc
        try:
            if self.repo_dir.is_dir():
                repo = self._repo(self.repo_dir)
                commit = self._local_commit(repo, tag) or self._fetch_tag(repo, tag)
            else:
                repo, commit = self._first_fetch(tag)
            self._archive(repo, commit, dest)
        finally:
            lock.release()
        return SourceInfo(kind="git", origin=self.remote, commit=commit)

    def _first_fetch(self, tag: str) -> tuple[git.Repo, str]:
        """Create the local repository beside its place and rename it in only once a tag arrived."""
        with tempfile.TemporaryDirectory(prefix=".new-", dir=self.repo_dir.parent) as scratch:
            staging = Path(scratch) / "vllm.git"
            commit = self._fetch_tag(self._repo(staging), tag)
            staging.rename(self.repo_dir)
        return self._repo(self.repo_dir), commit

    @staticmethod
    def _repo(path: Path) -> git.Repo:
        try:
            import git
        except ImportError as exc:
            raise SourceError(f"The git executable is unavailable ({exc}); install git or use --source pypi.") from exc
        try:
            repo = git.Repo(path) if path.is_dir() else git.Repo.init(path, bare=True)
        except (git.InvalidGitRepositoryError, git.NoSuchPathError) as exc:
            raise SourceError(
                f"The local git repository {path} is damaged ({type(exc).__name__}); delete it and refresh again."
            ) from exc
        repo.git.update_environment(**GIT_ENV)
        return repo

    @staticmethod
    def _local_commit(repo: git.Repo, tag: str) -> str | None:
        import git

        try:
            return str(repo.git.rev_parse("--verify", "--quiet", "--end-of-options", f"refs/tags/{tag}^{{commit}}"))
        except git.GitCommandError:
            return None

    def _fetch_tag(self, repo: git.Repo, tag: str) -> str:
        import git

        refuse_network(f"the source tree of {tag}", f"a git fetch from {self.remote}")
        refspec = f"+refs/tags/{tag}:refs/tags/{tag}"
        report("fetch", 0, None, f"git fetch of {tag} from {self.remote}")
        try:
            repo.git.fetch("--depth", "1", "--no-tags", "--", self.remote, refspec, kill_after_timeout=self.timeout)
        except git.GitCommandError as exc:
            stderr = str(exc.stderr).strip()
            if "couldn't find remote ref" in stderr:
                raise ReleaseNotFoundError(
                    f"Git remote {self.remote} has no tag {tag}.", suggestions=self._remote_tags_near(repo, tag)
                ) from exc
            raise NetworkError(
                f"Git remote {self.remote} unreachable while fetching {tag}: {stderr or exc}. "
                "Check the network or the remote (--remote / VLLM_QUANT_MCP_REMOTE), or use --source pypi; "
                "the cache was left as it was."
            ) from exc
        commit = self._local_commit(repo, tag)
        if commit is None:
            raise ReleaseNotFoundError(f"Fetching {tag} from {self.remote} yielded no commit; is it a tag of vLLM?")
        return commit

    def _remote_tags_near(self, repo: git.Repo, tag: str) -> list[str]:
        import git

        try:
            listing = repo.git.ls_remote("--tags", "--refs", "--", self.remote, kill_after_timeout=self.timeout)
        except git.GitCommandError:
            return []
        tags = []
        for line in str(listing).splitlines():
            name = line.rpartition("refs/tags/")[2]
            try:
                tags.append(normalize_tag(name))
            except InvalidTagError:
                continue
        return nearest_tags(tag, tags)

    def _archive(self, repo: git.Repo, commit: str, dest: Path) -> None:
        import git

        with tempfile.TemporaryFile(dir=dest.parent) as tar:
            try:
                repo.git.archive("--format=tar", commit, output_stream=tar, kill_after_timeout=self.timeout)
            except git.GitCommandError as exc:
                raise SourceError(
                    f"git archive of {commit} failed in {self.repo_dir} ({str(exc.stderr).strip() or exc}); "
                    f"the local repository {self.repo_dir} is damaged; delete it and refresh again."
                ) from exc
            tar.seek(0)
            extract_tar(tar, dest)
