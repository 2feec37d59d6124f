"""A small `git fast-import` driver: branches as path -> bytes maps, commits, annotated tags, any ref.

Writing commits through fast-import takes a fraction of a second for thousands of files,
where a working tree and `git commit` per step would take seconds. Each commit gets a
label; `finish()` returns label -> sha from fast-import's own marks.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import IO

__all__ = ["FastImport"]

SIGNED = "\n\nSigned-off-by: Dev <dev@example.invalid>\n"


class FastImport:
    def __init__(self, bare: Path, start: int = 1_735_689_600) -> None:
        self.bare = bare
        subprocess.run(["git", "init", "-q", "--bare", "--initial-branch=main", str(bare)], check=True)
        self._proc = subprocess.Popen(
            ["git", "fast-import", "--quiet", "--done", f"--export-marks={bare / 'marks'}"],
            cwd=bare,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        assert self._proc.stdin is not None and self._proc.stdout is not None
        self._out: IO[bytes] = self._proc.stdin
        self._in: IO[bytes] = self._proc.stdout
        self._mark = 0
        self._time = start
        self.files: dict[str, dict[str, bytes]] = {}  # branch -> path -> content
        self.heads: dict[str, int] = {}  # branch -> commit mark
        self.labels: dict[str, int] = {}  # label -> commit mark

    def _next(self) -> int:
        self._mark += 1
        return self._mark

    def commit(
        self,
        branch: str,
        message: str,
        changes: dict[str, bytes | None],
        label: str,
        *,
        parents: list[int] | None = None,
        ref: str | None = None,
    ) -> int:
        """A commit on `branch` setting (bytes) or deleting (None) paths; with `ref`, a commit only that ref names."""
        self._time += 600
        mark = self._next()
        tree = dict(self.files.get(branch, {}))
        lines = []
        for path, data in sorted(changes.items()):
            if data is None:
                if tree.pop(path, None) is not None:
                    lines.append(b"D %s\n" % path.encode())
            elif tree.get(path) != data:
                tree[path] = data
                lines.append(b"M 100644 inline %s\ndata %d\n%s\n" % (path.encode(), len(data), data))
        text = message.encode()
        head = [
            b"commit %s\n" % (ref or f"refs/heads/{branch}").encode(),
            b"mark :%d\n" % mark,
            b"author Dev <dev@example.invalid> %d +0000\n" % self._time,
            b"committer GitHub <noreply@github.com> %d +0000\n" % self._time,
            b"data %d\n%s\n" % (len(text), text),
        ]
        parents = parents if parents is not None else ([self.heads[branch]] if branch in self.heads else [])
        if parents:
            head.append(b"from :%d\n" % parents[0])
            head += [b"merge :%d\n" % p for p in parents[1:]]
        self._out.writelines([*head, *lines, b"\n"])
        if ref is None:
            self.files[branch] = tree
            self.heads[branch] = mark
        self.labels[label] = mark
        return mark

    def sha(self, label: str) -> str:
        """The sha of a commit written so far (fast-import's get-mark), e.g. for a `-x` pick's message."""
        self._out.write(b"get-mark :%d\n" % self.labels[label])
        self._out.flush()
        return self._in.readline().decode().strip()

    def branch(self, new: str, source: str) -> None:
        self.files[new] = dict(self.files[source])
        self.heads[new] = self.heads[source]

    def tag(self, name: str, branch: str) -> None:
        """An annotated tag on the head of `branch`, as vLLM tags its releases."""
        self._time += 60
        text = f"vLLM {name}".encode()
        self._out.write(b"tag %s\nfrom :%d\n" % (name.encode(), self.heads[branch]))
        self._out.write(b"tagger Release <release@example.invalid> %d +0000\n" % self._time)
        self._out.write(b"data %d\n%s\n" % (len(text), text))

    def finish(self) -> dict[str, str]:
        """Close the stream; label -> commit sha."""
        self._out.write(b"done\n")
        self._out.close()
        self._in.close()
        if self._proc.wait() != 0:
            raise RuntimeError(f"git fast-import failed in {self.bare}")
        marks = dict(line.split() for line in (self.bare / "marks").read_text(encoding="utf-8").splitlines())
        (self.bare / "marks").unlink()
        return {label: marks[f":{mark}"] for label, mark in self.labels.items()}
