"""read_bounded against files that lie about their size or never end: each test is named after the threat."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from vllm_quant_mcp.knowledge.bounded import (
    FileTooLargeError,
    NotARegularFileError,
    UnreadableFileError,
    read_bounded,
)

FIX = "pass the file itself"


@pytest.mark.timeout(10)
@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_an_endless_device_is_refused_as_not_a_regular_file(device: str) -> None:
    with pytest.raises(NotARegularFileError, match=f"{device} is not a regular file \\(a device\\); {FIX}"):
        read_bounded(Path(device), 1_000_000, FIX)


@pytest.mark.timeout(10)
def test_a_fifo_without_a_writer_is_refused_instead_of_waiting_for_one(tmp_path: Path) -> None:
    fifo = tmp_path / "deploy.sh"
    os.mkfifo(fifo)
    with pytest.raises(NotARegularFileError, match="a FIFO or pipe"):
        read_bounded(fifo, 1_000_000, FIX)


def test_a_folder_is_refused_by_name(tmp_path: Path) -> None:
    with pytest.raises(NotARegularFileError, match="a folder"):
        read_bounded(tmp_path, 1_000_000, FIX)


def test_a_missing_file_says_why_and_what_to_pass(tmp_path: Path) -> None:
    with pytest.raises(UnreadableFileError, match=f"No such file or directory; {FIX}"):
        read_bounded(tmp_path / "gone.sh", 1_000_000, FIX)


def test_a_file_one_byte_over_the_cap_is_refused_and_one_at_the_cap_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "deploy.sh"
    path.write_bytes(b"x" * 1_000_000)
    assert read_bounded(path, 1_000_000, FIX) == b"x" * 1_000_000
    path.write_bytes(b"x" * 1_000_001)
    with pytest.raises(FileTooLargeError, match=f"deploy.sh is larger than 1 MB; {FIX}"):
        read_bounded(path, 1_000_000, FIX)


@pytest.mark.timeout(30)
def test_a_sparse_file_claiming_terabytes_is_refused_after_reading_one_byte_past_the_cap(tmp_path: Path) -> None:
    path = tmp_path / "huge.sh"
    with path.open("wb") as out:
        out.truncate(2**40)  # a terabyte that takes no disk: reading it whole would never finish
    with pytest.raises(FileTooLargeError, match="larger than 4,096 bytes"):
        read_bounded(path, 4096, FIX)


def test_a_proc_file_that_reports_no_size_is_read_whole_up_to_the_cap() -> None:
    status = read_bounded(Path("/proc/self/status"), 1_000_000, FIX)  # stat says 0 bytes; it holds a page or so
    assert status.startswith(b"Name:") and b"\nPid:" in status
    with pytest.raises(FileTooLargeError):
        read_bounded(Path("/proc/self/status"), 10, FIX)


def test_a_file_of_many_chunks_is_read_whole_and_the_same_file_over_the_cap_refused(tmp_path: Path) -> None:
    path = tmp_path / "config.py"
    data = os.urandom(3 * 65536 + 17)
    path.write_bytes(data)
    assert read_bounded(path, 16_000_000, FIX) == data
    with pytest.raises(FileTooLargeError):
        read_bounded(path, 65536, FIX)
