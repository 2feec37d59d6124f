"""A process and its descendants, read from /proc: a server's CPU and memory count its worker processes too."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["alive", "cpu_seconds", "descendants", "status_kb"]


def _stat(pid: int) -> list[str] | None:
    """The fields of /proc/<pid>/stat after the command name (state first); None once the process is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text(encoding="utf-8").rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return None


def descendants(pid: int) -> list[int]:
    """Every live process below `pid` (children, theirs, ...), from each process's parent id."""
    parents = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (fields := _stat(int(entry.name))) is not None:
            parents[int(entry.name)] = int(fields[1])
    found: list[int] = []
    frontier = [pid]
    while frontier:
        children = [child for child, parent in parents.items() if parent in frontier]
        found += children
        frontier = children
    return found


def alive(pid: int) -> bool:
    """Whether `pid` runs: it exists and is not a zombie waiting to be reaped."""
    fields = _stat(pid)
    return fields is not None and fields[0] != "Z"


def cpu_seconds(pid: int) -> float:
    """CPU seconds (user + system) `pid` and its live descendants have spent."""
    total = 0
    for each in (pid, *descendants(pid)):
        fields = _stat(each)
        if fields is not None:
            total += int(fields[11]) + int(fields[12])  # utime + stime
    return total / os.sysconf("SC_CLK_TCK")


def status_kb(pid: int, field: str) -> int:
    """A /proc/<pid>/status figure (VmRSS, VmHWM) in kB, summed over `pid` and its live descendants."""
    total = 0
    for each in (pid, *descendants(pid)):
        try:
            lines = Path(f"/proc/{each}/status").read_text(encoding="utf-8").splitlines()
        except FileNotFoundError:
            continue
        total += next((int(line.split()[1]) for line in lines if line.startswith(f"{field}:")), 0)
    return total
