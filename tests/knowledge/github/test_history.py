"""The treeless history repository: what a fetch brings, when it fetches again, and how it stops."""

from __future__ import annotations

import os
import subprocess
from collections import Counter
from pathlib import Path

import pytest
from support.clock import Clock
from support.githttp import GitHttpServer
from support.releases import release_tree
from support.vllm_remote import RELEASES, VllmRemote, build_vllm_remote

from vllm_quant_mcp.knowledge.errors import UnsafeInputError
from vllm_quant_mcp.knowledge.github.deadline import Deadline
from vllm_quant_mcp.knowledge.github.history import HistoryError, HistoryRepo, check_branch


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> VllmRemote:
    return build_vllm_remote(tmp_path_factory.mktemp("up") / "vllm.git", {v: release_tree(v).root for v in RELEASES})


@pytest.fixture
def remote(built: VllmRemote, tmp_path: Path) -> VllmRemote:
    """A copy each test may change (new tags, branches, server settings)."""
    copy = tmp_path / "remote" / "vllm.git"
    subprocess.run(["git", "clone", "-q", "--mirror", str(built.path), str(copy)], check=True)
    subprocess.run(["git", "-C", str(copy), "config", "uploadpack.allowFilter", "true"], check=True)
    return VllmRemote(copy, built.commits)


IDENTITY = {"GIT_AUTHOR_NAME": "Dev", "GIT_AUTHOR_EMAIL": "dev@example.invalid", "GIT_COMMITTER_NAME": "Dev",
            "GIT_COMMITTER_EMAIL": "dev@example.invalid"}  # fmt: skip


def git(repo: Path, *args: str) -> str:
    env = {**os.environ, **IDENTITY}
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True, env=env).stdout


def objects(repo: Path) -> Counter[str]:
    return Counter(git(repo, "cat-file", "--batch-all-objects", "--batch-check=%(objecttype)").split())


def new_tag(remote: VllmRemote, tag: str, on: str) -> str:
    """A release tag on a new commit above `on`, as a later release would add it upstream."""
    tree = git(remote.path, "rev-parse", f"{on}^{{tree}}").strip()
    commit = git(remote.path, "commit-tree", tree, "-p", on, "-m", f"Release {tag}").strip()
    git(remote.path, "tag", tag, commit)
    return commit


def test_a_first_fetch_holds_every_commit_of_the_tags_and_main_and_not_one_file(
    remote: VllmRemote, tmp_path: Path
) -> None:
    history, notes = HistoryRepo(remote.url, tmp_path / "cache").ensure(Deadline(60), None, None)
    assert notes == [] and history is not None
    wanted = git(remote.path, "rev-list", "--count", "--tags", "refs/heads/main").strip()
    assert git(history.path, "rev-list", "--count", "--all").strip() == wanted
    assert objects(history.path).keys() == {"commit", "tag"}
    assert objects(remote.path)["blob"] > 100  # what the remote holds and the history does not
    assert git(history.path, "tag").split() == ["v0.19.0", "v0.19.1", "v0.19.2", "v0.20.0", "v0.20.1", "v0.22.0"]


def test_a_fresh_history_is_trusted_for_ten_minutes_then_fetched_again(remote: VllmRemote, tmp_path: Path) -> None:
    clock = Clock()
    repo = HistoryRepo(remote.url, tmp_path / "cache", clock=clock)
    repo.ensure(Deadline(60), None, None)
    new_tag(remote, "v0.23.0", "refs/heads/main")
    clock.now += 599
    history, _ = repo.ensure(Deadline(60), None, None)
    assert history is not None and "v0.23.0" not in git(history.path, "tag").split()
    clock.now += 2
    history, _ = repo.ensure(Deadline(60), None, None)
    assert history is not None and "v0.23.0" in git(history.path, "tag").split()
    assert history.age == 0


def test_a_commit_the_history_lacks_is_looked_for_again_after_a_minute_not_before(
    remote: VllmRemote, tmp_path: Path
) -> None:
    clock = Clock()
    repo = HistoryRepo(remote.url, tmp_path / "cache", clock=clock)
    repo.ensure(Deadline(60), None, None)
    later = new_tag(remote, "v0.23.0", "refs/heads/main")
    clock.now += 30
    history, _ = repo.ensure(Deadline(60), later, None)
    assert history is not None and not history.has_commit(later)
    clock.now += 31
    history, _ = repo.ensure(Deadline(60), later, None)
    assert history is not None and history.has_commit(later)


def test_a_commit_on_an_untagged_release_branch_is_fetched_with_that_branch(remote: VllmRemote, tmp_path: Path) -> None:
    tree = git(remote.path, "rev-parse", "v0.22.0^{tree}").strip()
    commit = git(remote.path, "commit-tree", tree, "-p", "v0.22.0^{commit}", "-m", "[Bugfix] Backport (#1010)").strip()
    git(remote.path, "update-ref", "refs/heads/releases/v0.22.0", commit)
    history, notes = HistoryRepo(remote.url, tmp_path / "cache").ensure(Deadline(60), commit, "releases/v0.22.0")
    assert notes == [] and history is not None and history.has_commit(commit)


def test_a_mirror_whose_head_names_no_branch_is_fetched_by_its_tags(remote: VllmRemote, tmp_path: Path) -> None:
    git(remote.path, "symbolic-ref", "HEAD", "refs/heads/master")
    history, notes = HistoryRepo(remote.url, tmp_path / "cache").ensure(Deadline(60), None, None)
    assert notes == [] and history is not None
    assert len(git(history.path, "tag").split()) == 6
    assert not history.has_commit(remote.commits["fixC"])  # on main only, after every tag


def test_a_remote_that_ignores_the_filter_is_not_downloaded_whole(remote: VllmRemote, tmp_path: Path) -> None:
    git(remote.path, "config", "uploadpack.allowFilter", "false")
    repo = HistoryRepo(remote.url, tmp_path / "cache")
    history, notes = repo.ensure(Deadline(60), None, None)
    assert history is None and not repo.path.exists()
    assert notes == [
        f"history of {remote.url} not fetched: the remote ignores --filter and would send every file of every "
        "release (set uploadpack.allowFilter=true on it)."
    ]


def test_a_stalled_remote_is_given_up_at_the_deadline_and_leaves_no_process_and_no_history(
    remote: VllmRemote, tmp_path: Path
) -> None:
    with GitHttpServer(remote.path.parent) as server:
        server.stall = True
        url = f"{server.base_url}/vllm.git"
        repo = HistoryRepo(url, tmp_path / "cache")
        deadline = Deadline(1.0)
        history, notes = repo.ensure(deadline, None, None)
        lingering = [p for p in Path("/proc").glob("[0-9]*/cmdline") if url.encode() in _read(p)]
    assert history is None and not repo.path.exists() and lingering == []
    assert server.pack_requests == 1
    assert notes == [f"history not fetched: git fetch of {url} used up the lookup deadline (1 s)."]
    assert deadline.stop_reason() == (
        f"lookup deadline: git fetch of {url} used up the lookup deadline (1 s), so no further network waits"
    )


def test_a_smart_http_remote_is_fetched_treeless_too(remote: VllmRemote, tmp_path: Path) -> None:
    with GitHttpServer(remote.path.parent) as server:
        history, notes = HistoryRepo(f"{server.base_url}/vllm.git", tmp_path / "cache").ensure(Deadline(60), None, None)
    assert notes == [] and history is not None
    assert objects(history.path).keys() == {"commit", "tag"}


def test_a_proof_never_downloads_what_the_treeless_history_lacks(remote: VllmRemote, tmp_path: Path) -> None:
    history, _ = HistoryRepo(remote.url, tmp_path / "cache").ensure(Deadline(60), None, None)
    assert history is not None
    with pytest.raises(HistoryError, match=r"git show in .* failed: .*(lazy fetching disabled|not allowed)"):
        history.git("show", "--stat", remote.commits["fixA"])  # needs trees: a lazy fetch, refused
    assert objects(history.path).keys() == {"commit", "tag"}


def test_each_remote_has_its_own_history(remote: VllmRemote, tmp_path: Path) -> None:
    first = HistoryRepo(remote.url, tmp_path / "cache")
    other = HistoryRepo(str(remote.path), tmp_path / "cache")
    assert first.path != other.path and first.path.parent == other.path.parent


@pytest.mark.parametrize("remote_url", ["--upload-pack=touch /tmp/x", "ext::sh -c touch% /tmp/x"])
def test_a_remote_git_could_read_as_an_option_or_a_helper_is_refused(remote_url: str, tmp_path: Path) -> None:
    with pytest.raises(UnsafeInputError):
        HistoryRepo(remote_url, tmp_path)


@pytest.mark.parametrize("branch", ["--upload-pack=x", "main..x", "releases/*", "a/.lock", "", "x y"])
def test_a_branch_name_from_github_that_is_not_plain_is_never_fetched(branch: str) -> None:
    with pytest.raises(HistoryError, match="is not a plain branch name"):
        check_branch(branch)


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError:
        return b""
