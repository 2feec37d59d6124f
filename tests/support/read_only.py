"""A folder made read-only the way a team's shared cache is: a read-only bind mount (root ignores file modes),
or, for a user who may not mount, its modes taken away."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = ["read_only"]


@contextmanager
def read_only(folder: Path) -> Iterator[Path]:
    """`folder` seen through a read-only view, yielded; the view is gone afterwards."""
    if os.geteuid() != 0:
        modes = {p: p.stat().st_mode for p in [folder, *folder.rglob("*")] if not p.is_symlink()}
        for path in modes:
            path.chmod(modes[path] & ~0o222)
        try:
            yield folder
        finally:
            for path, mode in modes.items():
                path.chmod(mode)
        return
    view = folder.with_name(folder.name + "-ro")
    view.mkdir()
    subprocess.run(["mount", "--bind", str(folder), str(view)], check=True, timeout=10)
    try:
        subprocess.run(["mount", "-o", "remount,bind,ro", str(view)], check=True, timeout=10)
        yield view
    finally:
        subprocess.run(["umount", str(view)], check=True, timeout=10)
        view.rmdir()
