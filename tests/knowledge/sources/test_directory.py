"""The dir source: a checkout or unpacked sdist on disk, and the vLLM installed in this environment."""

from __future__ import annotations

import importlib.metadata
import os
from pathlib import Path

import pytest
from support.releases import release_tree, sdist

from vllm_quant_mcp.knowledge.errors import NotAVllmTreeError, UnsafeInputError
from vllm_quant_mcp.knowledge.sources.archive import extract_tar
from vllm_quant_mcp.knowledge.sources.directory import DirectorySource, installed_vllm


def test_dir_source_copies_the_vllm_package_of_a_checkout(tmp_path: Path) -> None:
    root = release_tree("0.6.3").root
    info = DirectorySource(root).fetch("v0.6.3", tmp_path)
    expected = sorted(p.relative_to(root).as_posix() for p in (root / "vllm").rglob("*.py"))
    assert sorted(p.relative_to(tmp_path).as_posix() for p in (tmp_path / "vllm").rglob("*.py")) == expected
    assert info.kind == "dir"
    assert info.origin == str(root)


def test_dir_source_skips_links_so_the_copy_cannot_point_out_of_the_tree(tmp_path: Path) -> None:
    checkout = tmp_path / "checkout"
    (checkout / "vllm").mkdir(parents=True)
    (checkout / "vllm" / "__init__.py").write_text("", encoding="utf-8")
    os.symlink("/etc/passwd", checkout / "vllm" / "passwd.py")
    dest = tmp_path / "dest"
    dest.mkdir()
    DirectorySource(checkout).fetch("v0.6.3", dest)
    assert sorted(p.name for p in (dest / "vllm").iterdir()) == ["__init__.py"]


def test_dir_source_rejects_a_directory_without_vllm_init(tmp_path: Path) -> None:
    with pytest.raises(NotAVllmTreeError, match=r"no vllm/__init__\.py"):
        DirectorySource(tmp_path)


def test_dir_source_rejects_a_path_that_looks_like_an_option() -> None:
    with pytest.raises(UnsafeInputError, match="starts with '-'"):
        DirectorySource(Path("--upload-pack=touch x"))


def test_dir_source_refuses_a_tree_that_declares_another_version(tmp_path: Path) -> None:
    checkout = tmp_path / "checkout"
    (checkout / "vllm").mkdir(parents=True)
    (checkout / "vllm" / "__init__.py").write_text("", encoding="utf-8")
    (checkout / "vllm" / "_version.py").write_text("__version__ = version = '0.32.0'\n", encoding="utf-8")
    with pytest.raises(NotAVllmTreeError, match=r"declares vLLM 0\.32\.0, not v0\.6\.3"):
        DirectorySource(checkout).fetch("v0.6.3", tmp_path / "dest")


def test_installed_vllm_is_located_from_metadata_or_reported_missing() -> None:
    try:
        version = importlib.metadata.version("vllm")
    except importlib.metadata.PackageNotFoundError:
        with pytest.raises(NotAVllmTreeError, match="No vllm distribution is installed"):
            installed_vllm()
        return
    root, tag = installed_vllm()
    assert (root / "vllm" / "__init__.py").is_file()
    assert tag == f"v{version.split('+')[0]}"


def test_dir_source_of_an_unpacked_sdist_keeps_every_file_the_package_index_source_keeps(tmp_path: Path) -> None:
    """One tree whatever the source: csrc/, CMakeLists.txt, requirements/ and tests/ as well as vllm/."""
    unpacked, dest = tmp_path / "vllm-0.32.0", tmp_path / "dest"
    unpacked.mkdir()
    dest.mkdir()
    extract_tar(sdist("0.32.0"), unpacked, strip_components=1)
    (unpacked / ".git").mkdir()
    (unpacked / ".git" / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")
    DirectorySource(unpacked).fetch("v0.32.0", dest)
    packed = tmp_path / "as-pypi-keeps-it"
    packed.mkdir()
    extract_tar(sdist("0.32.0"), packed, strip_components=1)
    files = sorted(p.relative_to(dest).as_posix() for p in dest.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(packed).as_posix() for p in packed.rglob("*") if p.is_file())
    assert {"CMakeLists.txt", "csrc", "requirements", "vllm"} <= {f.split("/")[0] for f in files}
    assert ".git/HEAD" not in files
