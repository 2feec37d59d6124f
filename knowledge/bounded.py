"""Reading a file a caller names, bounded by the bytes actually read.

A size from stat bounds nothing: /dev/zero and /dev/urandom report 0 bytes and never end,
/proc files report 0 and hold more, and opening a FIFO waits for a writer that may never
come. So the file is opened without blocking, refused unless it is a regular file, and read
up to one byte past the cap, which tells "at the cap" from "over it" without reading on.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from .errors import InvalidInputError

__all__ = ["FileTooLargeError", "NotARegularFileError", "UnreadableFileError", "read_bounded"]


class UnreadableFileError(InvalidInputError):
    """The path names nothing readable (missing, a folder, no permission)."""


class NotARegularFileError(InvalidInputError):
    """A device, FIFO or socket: reading it could block or never end."""


class FileTooLargeError(InvalidInputError):
    """More bytes than the reader takes; found by reading one byte past the cap."""


def read_bounded(path: Path, limit: int, fix: str) -> bytes:
    """At most `limit` bytes of a regular file; `fix` says what to pass instead (ends each refusal)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise UnreadableFileError(f"cannot read {path}: {exc.strerror or exc}; {fix}.") from exc
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise NotARegularFileError(f"{path} is not a regular file (a {_kind(mode)}); {fix}.")
    with os.fdopen(fd, "rb") as handle:
        try:
            data = handle.read(limit + 1)
        except OSError as exc:
            raise UnreadableFileError(f"cannot read {path}: {exc.strerror or exc}; {fix}.") from exc
    if len(data) > limit:
        raise FileTooLargeError(f"{path} is larger than {_size(limit)}; {fix}.")
    return data


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "folder"
    if stat.S_ISFIFO(mode):
        return "FIFO or pipe"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    return "socket" if stat.S_ISSOCK(mode) else "special file"


def _size(limit: int) -> str:
    return f"{limit // 1_000_000} MB" if limit % 1_000_000 == 0 else f"{limit:,} bytes"
