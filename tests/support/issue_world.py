"""GitHub threads over the vLLM-shaped remote: one issue or PR per case a lookup must answer right.

`serve_threads(api, remote)` fills a GitHubApi with issues, PRs, timelines, releases
(with their published dates and generated notes) and tags whose SHAs and dates are
the remote's own, read with git. THREADS names each case. Numbers the knowledge base
cites are used where a curated claim must lose to the live state or a proof.
"""

from __future__ import annotations

import subprocess
from typing import Any

from support.githubapi import GitHubApi, issue_json, pull_json
from support.vllm_remote import AFTER_NEWEST_PR, OPEN_PR, VllmRemote

__all__ = ["REPO", "THREADS", "cross_ref", "serve_threads"]

REPO = "vllm-project/vllm"
FORK_COMMIT = "f0" * 20

# number -> what the thread is, as the issue's scenario list names it
THREADS: dict[int, str] = {
    38652: "open issue the knowledge base calls fixed in v0.19.0 (a merged PR into a release branch names it)",
    OPEN_PR: "open PR whose merge_commit_sha is GitHub's test merge (the KB places it in v0.31.0)",
    AFTER_NEWEST_PR: "PR merged after the newest tag (the KB says fixed in v0.32.0)",
    2003: "issue closed by the PR merged after the newest tag",
    2002: "issue fixed by #1001: on main after the 0.19 cut, cherry-picked into patch release v0.19.1",
    1008: "PR cherry-picked into v0.19.0 before its release (rc pick)",
    1007: "PR merged into releases/v0.19.0 only (backport): v0.19.2 and nothing later",
    1002: "PR picked into v0.20.1 with -x and a rewritten subject; v0.19.2, released later, lacks it",
    1005: "PR reaching v0.22.0 by ancestry, reverted there by #1006",
    2000: "issue fixed by #1000 on main before the 0.19 cut",
    39407: "issue closed as not planned (the KB records it closed_unfixed)",
    2010: "issue closed as completed with no linked PR and no closing commit",
    2011: "issue closed as completed; three linked PRs close it, none merged",
    2012: "issue closed by a pushed commit (fixB) of the repository",
    2013: "issue closed by a commit pushed to a fork",
}


def cross_ref(number: int, body: str, merged_at: str | None, state: str, repo: str = REPO) -> dict[str, Any]:
    """A `cross-referenced` timeline event from PR `number` (the PR summary as the timeline embeds it)."""
    issue = {
        "number": number,
        "title": f"PR {number}",
        "state": state,
        "body": body,
        "pull_request": {"merged_at": merged_at},
        "html_url": f"https://github.com/{repo}/pull/{number}",
        "repository": {"full_name": repo},
    }
    return {
        "event": "cross-referenced",
        "created_at": "2025-01-01T00:00:00Z",
        "source": {"type": "issue", "issue": issue},
    }


def _dates(remote: VllmRemote) -> tuple[dict[str, str], dict[str, str]]:
    """Commit dates (label -> ISO) and tag dates (tag -> ISO), in GitHub's Z form."""
    iso = "%Y-%m-%dT%H:%M:%SZ"
    env = {"TZ": "UTC", "PATH": "/usr/bin:/bin"}
    commits = {}
    for label, sha in remote.commits.items():
        out = subprocess.run(
            ["git", "-C", str(remote.path), "log", "-1", f"--date=format-local:{iso}", "--format=%cd", sha],
            capture_output=True, text=True, check=True, env=env,
        )  # fmt: skip
        commits[label] = out.stdout.strip()
    listing = subprocess.run(
        ["git", "-C", str(remote.path), "for-each-ref", f"--format=%(refname:strip=2) %(taggerdate:format-local:{iso})",
         "refs/tags/"],
        capture_output=True, text=True, check=True, env=env,
    ).stdout  # fmt: skip
    tags = dict(line.split() for line in listing.splitlines())
    return commits, tags


def _tag_commits(remote: VllmRemote) -> dict[str, str]:
    listing = subprocess.run(
        ["git", "-C", str(remote.path), "for-each-ref", "--format=%(refname:strip=2) %(*objectname)", "refs/tags/"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    return dict(line.split() for line in listing.splitlines())


def _merged(api: GitHubApi, remote: VllmRemote, number: int, label: str, when: str, branch: str = "main") -> None:
    api.issues[number] = issue_json(
        REPO, number, title=f"PR {number}", state="closed", closed_at=when,
        html_url=f"https://github.com/{REPO}/pull/{number}", pull_request={"merged_at": when},
    )  # fmt: skip
    api.pulls[number] = pull_json(
        REPO, number, remote.commits[label], merged_at=when, base={"ref": branch}, body="", title=f"PR {number}"
    )


def _closed_issue(api: GitHubApi, number: int, when: str, reason: str = "completed") -> None:
    api.issues[number] = issue_json(REPO, number, state="closed", state_reason=reason, closed_at=when)


def serve_threads(api: GitHubApi, remote: VllmRemote) -> None:
    """Every thread of THREADS, the remote's releases with generated notes, and its tags."""
    at, published = _dates(remote)
    api.remote = remote.path
    fixes = {
        1000: "fix0", 1008: "fixR", 1001: "fixA", 1002: "fixB", 1005: "fixE", 1006: "revertE",
        AFTER_NEWEST_PR: "fixC",
    }  # fmt: skip
    for number, label in fixes.items():
        _merged(api, remote, number, label, at[label])
    _merged(api, remote, 1007, "fix1007", at["fix1007"], branch="releases/v0.19.0")
    api.pulls[1007]["body"] = "Fixes #38652 on the 0.19 branch"

    api.issues[38652] = issue_json(REPO, 38652, title="FP8 KV cache with MLA garbles multi-turn output")
    api.timelines[38652] = [cross_ref(1007, "Fixes #38652 on the 0.19 branch", at["fix1007"], "closed")]

    api.issues[OPEN_PR] = issue_json(
        REPO, OPEN_PR, title="[WIP] Try a fix", html_url=f"https://github.com/{REPO}/pull/{OPEN_PR}",
        pull_request={"merged_at": None},
    )  # fmt: skip
    api.pulls[OPEN_PR] = pull_json(REPO, OPEN_PR, None) | {"merge_commit_sha": remote.commits["open_testmerge"]}

    for issue, pr, label in ((2003, AFTER_NEWEST_PR, "fixC"), (2002, 1001, "fixA"), (2000, 1000, "fix0")):
        _closed_issue(api, issue, at[label])
        api.timelines[issue] = [
            {"event": "labeled", "label": {"name": "bug"}},
            cross_ref(pr, f"Fixes #{issue}", at[label], "closed"),
            {"event": "closed", "commit_id": None, "commit_url": None, "created_at": at[label]},
        ]

    _closed_issue(api, 39407, at["cut22"], reason="not_planned")
    api.timelines[39407] = [{"event": "closed", "commit_id": None, "commit_url": None}]
    _closed_issue(api, 2010, at["cut22"])
    api.timelines[2010] = [{"event": "closed", "commit_id": None, "commit_url": None}]
    _closed_issue(api, 2011, at["cut22"])
    api.timelines[2011] = [
        cross_ref(1011, "Fixes #2011", None, "open"),
        cross_ref(1012, "Closes #2011", None, "closed"),
        cross_ref(1013, "Resolves #2011 (draft)", None, "open"),
        {"event": "closed", "commit_id": None, "commit_url": None},
    ]
    for number in (1011, 1012, 1013):
        state = "closed" if number == 1012 else "open"
        api.pulls[number] = pull_json(REPO, number, None, state=state) | {"merge_commit_sha": "ab" * 20}
    _closed_issue(api, 2012, at["fixB"])
    api.timelines[2012] = [
        {"event": "referenced", "commit_id": FORK_COMMIT, "commit_url": f"https://api.github.com/repos/someone/vllm/commits/{FORK_COMMIT}"},
        {"event": "closed", "commit_id": remote.commits["fixB"],
         "commit_url": f"https://api.github.com/repos/{REPO}/commits/{remote.commits['fixB']}"},
    ]  # fmt: skip
    _closed_issue(api, 2013, at["cut22"])
    api.timelines[2013] = [
        {"event": "closed", "commit_id": FORK_COMMIT,
         "commit_url": f"https://api.github.com/repos/someone/vllm/commits/{FORK_COMMIT}"},
    ]  # fmt: skip

    notes = {
        "v0.19.0": [1000, 1008], "v0.19.1": [1001], "v0.19.2": [1007], "v0.20.0": [1001],
        "v0.20.1": [1002], "v0.22.0": [1002, 1005, 1006],
    }  # fmt: skip
    api.releases = [
        {
            "tag_name": tag,
            "name": tag,
            "draft": False,
            "prerelease": False,
            "published_at": published[tag],
            "target_commitish": f"releases/{tag[: tag.rindex('.')]}.0",
            "body": "## What's Changed\n"
            + "".join(f"* Change by @dev in https://github.com/{REPO}/pull/{n}\n" for n in prs),
        }
        for tag, prs in sorted(notes.items(), key=lambda item: published[item[0]], reverse=True)
    ]
    api.releases.insert(0, {"tag_name": "v0.23.0", "draft": True, "prerelease": False, "published_at": None,
                            "body": f"* Draft naming #{AFTER_NEWEST_PR}"})  # fmt: skip
    api.tags = [
        {"name": tag, "commit": {"sha": sha, "url": f"https://api.github.com/repos/{REPO}/commits/{sha}"}}
        for tag, sha in sorted(_tag_commits(remote).items(), reverse=True)
    ]
