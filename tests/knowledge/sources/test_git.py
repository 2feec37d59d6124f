"""The git source end to end against a local repository built from two real releases, plus its input guards."""

from __future__ import annotations

import shutil
from pathlib import Path

import git
import pytest
from filelock import FileLock
from support.loopback import closed_port
from support.releases import release_tree

from vllm_quant_mcp.knowledge.errors import (
    LockTimeoutError,
    NetworkError,
    ReleaseNotFoundError,
    SourceError,
    UnsafeInputError,
)
from vllm_quant_mcp.knowledge.sources.git import GitSource
from vllm_quant_mcp.knowledge.tags import InvalidTagError

VERSIONS = ("0.6.3", "0.11.0")


def top_level_python(version: str) -> dict[str, bytes]:
    """The vllm/*.py files (top level only, to keep the repository small) of a real release."""
    root = release_tree(version).root
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted((root / "vllm").glob("*.py"))}


@pytest.fixture(scope="module")
def upstream(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A repository with one commit per release, tagged like vLLM's (annotated, then lightweight)."""
    path = tmp_path_factory.mktemp("upstream")
    repo = git.Repo.init(path)
    with repo.config_writer() as config:
        config.set_value("user", "name", "test")
        config.set_value("user", "email", "test@example.invalid")
    for version in VERSIONS:
        shutil.rmtree(path / "vllm", ignore_errors=True)
        for relpath, data in top_level_python(version).items():
            (path / relpath).parent.mkdir(parents=True, exist_ok=True)
            (path / relpath).write_bytes(data)
        repo.git.add("--all")
        repo.index.commit(f"vLLM {version}")
        repo.create_tag(f"v{version}", message=f"v{version}" if version == "0.6.3" else None)
    return path


def fetched_files(dest: Path) -> dict[str, bytes]:
    return {p.relative_to(dest).as_posix(): p.read_bytes() for p in sorted(dest.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("form", ["path", "file-url"])
def test_git_source_fetches_each_tag_into_one_reused_local_repository(
    upstream: Path, tmp_path: Path, form: str
) -> None:
    remote = str(upstream) if form == "path" else upstream.as_uri()
    repo_dir = tmp_path / "git" / "vllm.git"
    upstream_repo = git.Repo(upstream)
    for version in VERSIONS:
        dest = tmp_path / version
        dest.mkdir()
        info = GitSource(remote, repo_dir).fetch(f"v{version}", dest)
        assert fetched_files(dest) == top_level_python(version)
        assert info.kind == "git"
        assert info.origin == remote
        assert info.commit == upstream_repo.commit(f"v{version}").hexsha
    local = git.Repo(repo_dir)
    assert local.bare
    assert sorted(t.name for t in local.tags) == ["v0.11.0", "v0.6.3"]
    assert sorted(p.name for p in (tmp_path / "git").iterdir()) == ["vllm.git", "vllm.git.lock"]


def test_git_source_serves_a_tag_already_fetched_without_the_remote(upstream: Path, tmp_path: Path) -> None:
    repo_dir = tmp_path / "vllm.git"
    (tmp_path / "first").mkdir()
    GitSource(str(upstream), repo_dir).fetch("v0.6.3", tmp_path / "first")
    offline = GitSource("http://127.0.0.1:9/vllm.git", repo_dir)
    (tmp_path / "second").mkdir()
    offline.fetch("v0.6.3", tmp_path / "second")
    assert fetched_files(tmp_path / "second") == top_level_python("0.6.3")


def test_git_source_lists_the_nearest_remote_tags_for_a_missing_tag(upstream: Path, tmp_path: Path) -> None:
    with pytest.raises(ReleaseNotFoundError, match=r"has no tag v0\.9\.0") as caught:
        GitSource(str(upstream), tmp_path / "vllm.git").fetch("v0.9.0", tmp_path)
    assert caught.value.suggestions == ["v0.11.0", "v0.6.3"]


def test_git_source_says_the_remote_is_unreachable_when_the_port_is_closed(tmp_path: Path) -> None:
    with pytest.raises(NetworkError, match=r"unreachable.*cache was left as it was"):
        GitSource(f"http://127.0.0.1:{closed_port()}/vllm.git", tmp_path / "vllm.git").fetch("v0.6.3", tmp_path)


@pytest.mark.parametrize(
    "remote",
    [
        "--upload-pack=touch /tmp/pwned",
        "-c core.sshCommand=touch /tmp/pwned",
        "ext::sh -c touch% /tmp/pwned",
        "fd::17",
        "ssh://-oProxyCommand=touch /tmp/pwned/x",
        "ftp://example.com/vllm.git",
        "https://example.com/vllm.git\n--upload-pack=x",
    ],
)
def test_git_source_rejects_option_and_transport_remotes_before_git_runs(remote: str, tmp_path: Path) -> None:
    with pytest.raises(UnsafeInputError):
        GitSource(remote, tmp_path / "vllm.git")
    assert not (tmp_path / "vllm.git").exists()


def test_git_source_rejects_upload_pack_remote(tmp_path: Path) -> None:
    with pytest.raises(UnsafeInputError, match="would be read as a git option"):
        GitSource("--upload-pack=touch /tmp/pwned", tmp_path / "vllm.git")


def test_git_source_rejects_ext_transport_remote(tmp_path: Path) -> None:
    with pytest.raises(UnsafeInputError, match="transport helper"):
        GitSource("ext::sh -c 'touch /tmp/pwned'", tmp_path / "vllm.git")


@pytest.mark.parametrize("tag", ["--upload-pack=x", "-c", "v0.6.3:refs/heads/x", "v0.6.3 --force", "../v0.6.3"])
def test_git_source_rejects_tags_that_are_not_release_tags_before_git_runs(
    upstream: Path, tmp_path: Path, tag: str
) -> None:
    with pytest.raises(InvalidTagError):
        GitSource(str(upstream), tmp_path / "vllm.git").fetch(tag, tmp_path)
    assert not (tmp_path / "vllm.git").exists()


def test_a_fetch_waiting_on_a_held_repository_lock_gives_up_naming_the_lock(upstream: Path, tmp_path: Path) -> None:
    repo_dir = tmp_path / "git" / "vllm.git"
    repo_dir.parent.mkdir()
    (tmp_path / "dest").mkdir()
    hung_refresh = FileLock(tmp_path / "git" / "vllm.git.lock")  # held as another process would
    with hung_refresh, pytest.raises(LockTimeoutError, match=r"vllm\.git\.lock for over 0 s"):
        GitSource(str(upstream), repo_dir, lock_timeout=0.05).fetch("v0.6.3", tmp_path / "dest")
    assert not repo_dir.exists()


def test_a_damaged_local_repository_is_a_source_error_that_says_to_delete_it(upstream: Path, tmp_path: Path) -> None:
    repo_dir = tmp_path / "vllm.git"
    repo_dir.mkdir()  # e.g. a first fetch killed before git wrote anything
    (tmp_path / "dest").mkdir()
    with pytest.raises(SourceError, match=rf"{repo_dir} is damaged .*delete it and refresh again"):
        GitSource(str(upstream), repo_dir).fetch("v0.6.3", tmp_path / "dest")


def test_git_run_by_the_source_never_prompts_for_ssh_credentials(tmp_path: Path) -> None:
    env = GitSource._repo(tmp_path / "vllm.git").git.environment()
    assert env["GIT_SSH_COMMAND"] == "ssh -o BatchMode=yes"
    assert env["GIT_TERMINAL_PROMPT"] == "0"
