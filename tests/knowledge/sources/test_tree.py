"""SourceTree's path checks: a file is read only from inside the tree, however its directories are linked."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from vllm_quant_mcp.knowledge.sources.tree import PathOutsideTreeError, SourceTree


def _tree(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    (root / "vllm" / "config").mkdir(parents=True)
    (root / "vllm" / "config" / "cache.py").write_text("x = 1\n", encoding="utf-8")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text("token = 1\n", encoding="utf-8")
    return root


def test_a_file_under_a_directory_linked_out_of_the_tree_is_refused(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    os.symlink(tmp_path / "outside", root / "vllm" / "elsewhere")
    tree = SourceTree(root, "v0.32.0")
    assert tree.read_text("vllm/config/cache.py") == "x = 1\n"  # the directory cache holds vllm/ first
    with pytest.raises(PathOutsideTreeError):
        tree.read_bytes("vllm/elsewhere/secret.py")


def test_a_file_linked_out_of_the_tree_from_a_directory_already_resolved_is_refused(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    os.symlink(tmp_path / "outside" / "secret.py", root / "vllm" / "config" / "link.py")
    tree = SourceTree(root, "v0.32.0")
    assert tree.exists("vllm/config/cache.py")
    with pytest.raises(PathOutsideTreeError):
        tree.read_bytes("vllm/config/link.py")


def test_links_that_stay_inside_the_tree_resolve_to_their_target(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    os.symlink(root / "vllm" / "config", root / "vllm" / "settings")
    os.symlink(root / "vllm" / "config" / "cache.py", root / "vllm" / "cache_link.py")
    tree = SourceTree(root, "v0.32.0")
    target = (root / "vllm" / "config" / "cache.py").resolve()
    assert tree.resolve("vllm/settings/cache.py") == target
    assert tree.resolve("vllm/cache_link.py") == target
    assert tree.resolve("vllm/config/absent.py") == target.parent / "absent.py"
    assert not tree.exists("vllm/config/absent.py")


def test_a_tree_listed_first_resolves_and_refuses_every_path_as_one_that_was_not(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    os.symlink(tmp_path / "outside", root / "vllm" / "elsewhere")
    os.symlink(tmp_path / "outside" / "secret.py", root / "vllm" / "config" / "link.py")
    os.symlink(root / "vllm" / "config" / "cache.py", root / "vllm" / "cache_link.py")
    paths = [
        "vllm/config/cache.py", "vllm/config/link.py", "vllm/elsewhere/secret.py", "vllm/cache_link.py",
        "vllm/config/absent.py", "../outside/secret.py",
    ]  # fmt: skip

    def answers(tree: SourceTree) -> list[object]:
        found: list[object] = []
        for path in paths:
            try:
                found.append((tree.resolve(path), tree.exists(path)))
            except PathOutsideTreeError:
                found.append("refused")
        return found

    listed = SourceTree(root, "v0.32.0")
    assert "vllm/cache_link.py" in listed.glob("vllm/**/*.py")  # listed before any path is resolved
    assert answers(listed) == answers(SourceTree(root, "v0.32.0"))
    assert answers(listed).count("refused") == 3


def test_a_glob_reads_as_pathlib_does_star_within_a_folder_and_double_star_over_any_run_of_them(
    tmp_path: Path,
) -> None:
    root = tmp_path / "tree"
    for name in ("vllm/envs.py", "vllm/a/b/deep.py", "vllm/a/notes.txt", "vllm/platforms/cuda.py", "setup.py"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("x = 1\n", encoding="utf-8")
    tree = SourceTree(root, "v9.9.9")
    assert tree.glob("vllm/**/*.py") == ["vllm/a/b/deep.py", "vllm/envs.py", "vllm/platforms/cuda.py"]
    assert tree.glob("vllm/*.py") == ["vllm/envs.py"]
    assert tree.glob("vllm/platforms/cud?.py") == ["vllm/platforms/cuda.py"]
    assert tree.glob("vllm/a/**") == ["vllm/a/b/deep.py", "vllm/a/notes.txt"]
    assert tree.glob("*.py") == ["setup.py"]
    assert tree.glob("vllm.py") == []  # a dot is a dot, not any character
    with pytest.raises(ValueError, match=r"character classes"):
        tree.glob("vllm/[ab]/*.py")
