"""The store's pack: a tree read back byte for byte through SourceTree's interface, and damage detected."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.releases import release_tree

from vllm_quant_mcp.knowledge.sources.pack import (
    DIGEST_NAME,
    INDEX_NAME,
    PACK_NAME,
    VERIFIED_NAME,
    BinaryFileError,
    DamagedPackError,
    PackBuilder,
    directory_files,
    open_pack,
)
from vllm_quant_mcp.knowledge.sources.packed import PackedTree
from vllm_quant_mcp.knowledge.sources.tree import PathOutsideTreeError, SourceTree


def packed(folder: Path, files: dict[str, bytes]) -> PackedTree:
    builder = PackBuilder()
    for relpath, data in files.items():
        builder.add(relpath, data)
    folder.mkdir(parents=True)
    builder.write(folder)
    return PackedTree(folder, "v0.1.0")


def test_a_packed_release_reads_back_every_file_byte_for_byte(tmp_path: Path) -> None:
    loose = release_tree("0.6.3")
    files = dict(directory_files(loose.root))
    tree = packed(tmp_path / "packed", files)
    for relpath in loose.glob("vllm/**/*.py"):
        assert tree.read_bytes(relpath) == loose.read_bytes(relpath)
    assert tree.glob("vllm/**/*.py") == loose.glob("vllm/**/*.py")
    assert tree.glob("vllm/*.py") == loose.glob("vllm/*.py")


def test_a_pack_keeps_files_without_a_final_newline_and_names_binaries_without_keeping_them(tmp_path: Path) -> None:
    tree = packed(
        tmp_path / "t",
        {"a.py": b"x = 1", "empty.py": b"", "img.png": b"\x89PNG\0\0", "bad.py": b"caf\xe9\n", "b/c.py": b"y\n"},
    )
    assert tree.read_bytes("a.py") == b"x = 1"
    assert tree.read_bytes("empty.py") == b""
    assert tree.read_text("bad.py") == "caf\ufffd\n"
    assert tree.exists("img.png") and tree.exists("b/c.py") and not tree.exists("nope.py")
    with pytest.raises(BinaryFileError, match=r"img\.png"):
        tree.read_bytes("img.png")
    with pytest.raises(FileNotFoundError):
        tree.read_bytes("nope.py")


@pytest.mark.parametrize("path", ["../outside.py", "/etc/passwd", "~root/x"])
def test_a_packed_tree_refuses_paths_that_leave_it(tmp_path: Path, path: str) -> None:
    with pytest.raises(PathOutsideTreeError):
        packed(tmp_path / "t", {"a.py": b"x\n"}).exists(path)


def test_a_pack_whose_index_disagrees_with_it_is_a_damaged_pack_error(tmp_path: Path) -> None:
    packed(tmp_path / "t", {"a.py": b"x = 1\n"})
    with (tmp_path / "t" / PACK_NAME).open("ab") as f:
        f.write(b"appended later\n")
    with pytest.raises(DamagedPackError, match="refresh"):
        open_pack(tmp_path / "t")
    (tmp_path / "t" / INDEX_NAME).write_bytes(b"not an index")
    with pytest.raises(DamagedPackError, match="refresh"):
        open_pack(tmp_path / "t")


def test_a_pack_that_never_reached_the_disk_is_refused_on_its_first_open(tmp_path: Path) -> None:
    """A crash after the rename can leave the right size and zero pages: only the digest sees it."""
    folder = tmp_path / "t"
    folder.mkdir()
    builder = PackBuilder()
    builder.add("a.py", b"x = 1\n")
    builder.write(folder)
    size = (folder / PACK_NAME).stat().st_size
    (folder / PACK_NAME).write_bytes(b"\0" * size)
    with pytest.raises(DamagedPackError, match="digest"):
        open_pack(folder)
    assert not (folder / VERIFIED_NAME).exists()


def test_a_pack_is_hashed_once_then_trusted_by_its_size(tmp_path: Path) -> None:
    folder = tmp_path / "t"
    tree = packed(folder, {"a.py": b"x = 1\n"})
    assert tree.read_text("a.py") == "x = 1\n"
    assert (folder / VERIFIED_NAME).exists()
    (folder / DIGEST_NAME).write_text("0" * 128 + "\n", encoding="ascii")  # a later open does not hash again
    assert PackedTree(folder, "v0.1.0").read_text("a.py") == "x = 1\n"


def test_the_same_pack_is_mapped_once_for_every_tree_object(tmp_path: Path) -> None:
    first = packed(tmp_path / "t", {"a.py": b"x\n"})
    assert PackedTree(tmp_path / "t", "v0.1.0").pack is first.pack
    assert isinstance(first, SourceTree)
