"""A vLLM-shaped git remote from real release trees, with fix commits placed between the release tags.

vLLM releases from a branch `releases/vX.Y.0` cut from main; fixes reach a release
branch as cherry-picks that keep the PR's subject "(#N)" (or carry `-x`'s "cherry
picked from commit"), and a patch tag sits on the branch. This builds that shape
from the real quantization subtree of each release (a few hundred KB, built in a
fraction of a second through fast-import):

    main  tree 0.19.0 ─ fix0 #1000 = cut19 ─ fixR #1008 ─ steps ─ fixA #1001 ─ steps ─ tree 0.20.0 = cut20
          ─ fixB #1002 ─ fixE #1005 ─ Revert "…(#1005)" #1006 ─ steps ─ tree 0.22.0 = cut22 ─ fixC #59042
    releases/v0.19.0  cut19 + pick #1008 → v0.19.0 ; + pick #1001, tree 0.19.1 → v0.19.1
                      + PR #1007 merged into the branch → v0.19.2
    releases/v0.20.0  cut20 → v0.20.0 ; + pick of #1002 (-x, subject rewritten), tree 0.20.1 → v0.20.1
    releases/v0.22.0  cut22 → v0.22.0 (the newest tag)
    refs/pull/53585/head, refs/pull/53585/merge: an open PR and GitHub's test merge of it into main

So #1001 is first in v0.19.1 (not v0.19.0), #1002 is in v0.20.1 but not in v0.19.2 (released
later), #1005 reaches v0.22.0 by ancestry but is reverted there, fixC is in no release. fixC
and the open PR carry numbers the knowledge base cites (#59042 "fixed in v0.32.0", #53585 a
v0.31.0 gate), releases this remote does not have: what a curated claim must not override.
The remote allows partial-clone filters (uploadpack.allowFilter), as GitHub does.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from support.fastimport import SIGNED, FastImport

__all__ = ["AFTER_NEWEST_PR", "OPEN_PR", "PREFIX", "RELEASES", "VllmRemote", "build_vllm_remote", "git_compare"]

PREFIX = "vllm/model_executor/layers/quantization"
FIX_FILE = f"{PREFIX}/fp8.py"
RELEASES = ("0.19.0", "0.19.1", "0.20.0", "0.20.1", "0.22.0")
AFTER_NEWEST_PR = 59042
OPEN_PR = 53585
STEPS = 4  # main-line commits between two cuts, each moving a share of the files to the next release


@dataclass(frozen=True)
class VllmRemote:
    path: Path
    commits: dict[str, str]  # label -> sha: fix0, fixR, fixA, fixB, fixE, revertE, fix1007, fixC, cut19, ...

    @property
    def url(self) -> str:
        return self.path.resolve().as_uri()


def _subtree(root: Path, prefix: str) -> dict[str, bytes]:
    base = root / prefix
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(base.rglob("*.py"))}


class _Builder:
    def __init__(self, path: Path, trees: dict[str, dict[str, bytes]]) -> None:
        self.fi = FastImport(path)
        self.trees = trees
        self.pr = 3000

    def fix(self, branch: str, label: str, subject: str, line: str, body: str = "") -> int:
        content = self.fi.files[branch].get(FIX_FILE, b"") + line.encode()
        return self.fi.commit(branch, subject + SIGNED + body, {FIX_FILE: content}, label)

    def toward(self, release: str, steps: int, label: str) -> None:
        """Main moves to `release`'s tree in `steps` commits, keeping the fix lines it carries."""
        current = self.fi.files["main"]
        target = dict(self.trees[release])
        kept = b"".join(line + b"\n" for line in current.get(FIX_FILE, b"").splitlines() if line.startswith(b"# fix"))
        target[FIX_FILE] = target.get(FIX_FILE, b"") + kept
        changed = sorted(p for p in set(current) | set(target) if current.get(p) != target.get(p))
        for i in range(steps):
            self.pr += 1
            chunk = {p: target.get(p) for p in changed[i::steps]}
            subject = f"[Misc] Move towards {release}, part {i} (#{self.pr})"
            self.fi.commit("main", subject + SIGNED, chunk, f"{label}-{i}")

    def release_tree(self, branch: str, release: str) -> dict[str, bytes | None]:
        """The branch's files turned into `release`'s, keeping the branch's fix lines."""
        current = self.fi.files[branch]
        target: dict[str, bytes | None] = dict(self.trees[release])
        kept = b"".join(line + b"\n" for line in current.get(FIX_FILE, b"").splitlines() if line.startswith(b"# fix"))
        target[FIX_FILE] = (target.get(FIX_FILE) or b"") + kept
        return target | {p: None for p in current if p not in target}


def build_vllm_remote(path: Path, trees: dict[str, Path], prefix: str = PREFIX) -> VllmRemote:
    """The remote at `path` (bare) from release roots holding `vllm/` (keys: RELEASES); `prefix="vllm"` for whole
    trees (3,000 files a release, for measuring fetches), the quantization subtree by default."""
    b = _Builder(path, {version: _subtree(root, prefix) for version, root in trees.items()})
    fi = b.fi
    fi.commit("main", "Import vllm 0.19.0 (#900)" + SIGNED, dict(b.trees["0.19.0"]), "root")
    b.fix("main", "fix0", "[Bugfix] Fix FP8 scale before the 0.19 cut (#1000)", "# fix0 #1000\n")
    fi.labels["cut19"] = fi.heads["main"]
    fi.branch("releases/v0.19.0", "main")
    b.fix("main", "fixR", "[Bugfix] Fix FP8 scale regression found in rc1 (#1008)", "# fixR #1008\n")
    b.fix("releases/v0.19.0", "pickR", "[Bugfix] Fix FP8 scale regression found in rc1 (#1008)", "# fixR #1008\n")
    fi.tag("v0.19.0", "releases/v0.19.0")
    b.toward("0.20.0", STEPS // 2, "to20a")
    b.fix("main", "fixA", "[Bugfix] Fix FP8 MoE crash on Hopper (#1001)", "# fixA #1001\n")
    b.toward("0.20.0", STEPS - STEPS // 2, "to20b")
    fi.labels["cut20"] = fi.heads["main"]
    pick = b.release_tree("releases/v0.19.0", "0.19.1")
    pick[FIX_FILE] = (pick[FIX_FILE] or b"") + b"# fixA #1001\n"
    fi.commit("releases/v0.19.0", "[Bugfix] Fix FP8 MoE crash on Hopper (#1001)" + SIGNED, pick, "pickA")
    fi.tag("v0.19.1", "releases/v0.19.0")
    fi.branch("releases/v0.20.0", "main")
    fi.tag("v0.20.0", "releases/v0.20.0")
    b.fix("main", "fixB", "[Bugfix] Fix KV cache dtype for MLA (#1002)", "# fixB #1002\n")
    b.fix("main", "fixE", "[Perf] Faster FP8 quant kernel (#1005)", "# fixE #1005\n")
    undo = fi.files["main"][FIX_FILE].replace(b"# fixE #1005\n", b"")
    revert = 'Revert "[Perf] Faster FP8 quant kernel (#1005)" (#1006)'
    fi.commit("main", revert + SIGNED, {FIX_FILE: undo}, "revertE")
    pick = b.release_tree("releases/v0.20.0", "0.20.1")
    pick[FIX_FILE] = (pick[FIX_FILE] or b"") + b"# fixB #1002\n"
    body = f"(cherry picked from commit {fi.sha('fixB')})\n"
    fi.commit("releases/v0.20.0", "[Cherry-pick] MLA KV cache dtype" + SIGNED + body, pick, "pickB")
    fi.tag("v0.20.1", "releases/v0.20.0")
    b.fix("releases/v0.19.0", "fix1007", "[Bugfix][0.19] Backport-only scheduler fix (#1007)", "# fix1007 #1007\n")
    fi.tag("v0.19.2", "releases/v0.19.0")
    b.toward("0.22.0", STEPS, "to22")
    fi.labels["cut22"] = fi.heads["main"]
    fi.branch("releases/v0.22.0", "main")
    fi.tag("v0.22.0", "releases/v0.22.0")
    b.fix("main", "fixC", f"[Bugfix] Fix CUTLASS FP4 MoE with EP (#{AFTER_NEWEST_PR})", "# fixC\n")
    head = fi.commit(
        "open", "[WIP] Try a fix" + SIGNED, {f"{PREFIX}/wip.py": b"# wip\n"}, "open_head",
        parents=[fi.labels["cut22"]], ref=f"refs/pull/{OPEN_PR}/head",
    )  # fmt: skip
    fi.commit(
        "open-merge", "Merge the PR head into main", {f"{PREFIX}/wip.py": b"# wip\n"}, "open_testmerge",
        parents=[fi.heads["main"], head], ref=f"refs/pull/{OPEN_PR}/merge",
    )  # fmt: skip
    commits = fi.finish()
    subprocess.run(["git", "-C", str(path), "config", "uploadpack.allowFilter", "true"], check=True)
    return VllmRemote(path, commits)


def _git(repo: Path, *args: str) -> str | None:
    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=False)
    return done.stdout if done.returncode == 0 else None


def git_compare(repo: Path, base: str, head: str) -> dict[str, Any] | None:
    """GitHub's `/compare/{base}...{head}` JSON computed by git on `repo`; None (a 404) for an unknown ref."""
    ids = [
        _git(repo, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}") for ref in (base, head)
    ]
    if None in ids:
        return None
    left, right = (str(i).strip() for i in ids)
    behind, ahead = (
        int(n) for n in str(_git(repo, "rev-list", "--left-right", "--count", f"{left}...{right}")).split()
    )
    status = "identical" if ahead == behind == 0 else "ahead" if behind == 0 else "behind" if ahead == 0 else "diverged"
    merge_base = str(_git(repo, "merge-base", left, right)).strip()
    log = str(_git(repo, "log", "--reverse", "--format=%H%x1f%B%x1e", f"{left}..{right}"))
    commits = []
    for record in filter(None, (r.strip("\n") for r in log.split("\x1e"))):
        sha, message = record.split("\x1f", 1)
        commits.append({"sha": sha, "commit": {"message": message.strip()}})
    return {
        "status": status,
        "ahead_by": ahead,
        "behind_by": behind,
        "total_commits": ahead,
        "base_commit": {"sha": left},
        "merge_base_commit": {"sha": merge_base},
        "commits": commits[:250],
        "files": [],
    }
