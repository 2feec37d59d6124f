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
    """At most `limit` bytes of a regular file; `fix` says what to pass instead (ends each refusal).

    Read with os.read, asking for the size stat gives plus one byte (a file that grew since is read on in
    chunks): a buffered `read(limit + 1)` allocates the whole 16 MB cap first, six times the cost of reading a
    50 kB source file."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise UnreadableFileError(f"cannot read {path}: {exc.strerror or exc}; {fix}.") from exc
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            raise NotARegularFileError(f"{path} is not a regular file (a {_kind(status.st_mode)}); {fix}.")
        chunks: list[bytes] = []
        read, expected = 0, min(status.st_size, limit) + 1
        while read <= limit:
            chunk = os.read(fd, min(max(expected - read, _CHUNK), limit + 1 - read))
            if not chunk:
                break
            chunks.append(chunk)
            read += len(chunk)
    except OSError as exc:
        raise UnreadableFileError(f"cannot read {path}: {exc.strerror or exc}; {fix}.") from exc
    finally:
        os.close(fd)
    if read > limit:
        raise FileTooLargeError(f"{path} is larger than {_size(limit)}; {fix}.")
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


_CHUNK = 1 << 16  # what is read at a time past the size stat gave


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
