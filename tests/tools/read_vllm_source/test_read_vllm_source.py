from __future__ import annotations

import os
from pathlib import Path

import pytest
from pydantic import ValidationError

from vllm_quant_mcp.knowledge.errors import InvalidInputError
from vllm_quant_mcp.knowledge.sources.tree import MAX_FILE_BYTES, PathOutsideTreeError, SourceTree
from vllm_quant_mcp.tools.read_vllm_source.models import MAX_LINES, ReadQuery
from vllm_quant_mcp.tools.read_vllm_source.tool import SourceFileNotFoundError, read_tree

CACHE_PY = "vllm/config/cache.py"
LONG_PY = "vllm/v1/worker/gpu_model_runner.py"


def file_lines(tree: SourceTree, path: str) -> list[str]:
    lines = (tree.root / path).read_text(encoding="utf-8").split("\n")
    return lines[:-1] if lines[-1] == "" else lines


def test_read_returns_the_requested_range_with_a_range_permalink(tree: SourceTree) -> None:
    result = read_tree(tree, ReadQuery(path=CACHE_PY, start_line=10, end_line=20))
    assert result.text.split("\n") == file_lines(tree, CACHE_PY)[9:20]
    assert (result.start_line, result.end_line, result.next_start_line) == (10, 20, None)
    assert result.total_lines == len(file_lines(tree, CACHE_PY))
    assert result.permalink == f"https://github.com/vllm-project/vllm/blob/v0.32.0/{CACHE_PY}#L10-L20"
    assert result.tag == "v0.32.0"


def test_read_pages_a_long_file_and_the_pages_rebuild_it_exactly(tree: SourceTree) -> None:
    expected = file_lines(tree, LONG_PY)
    assert len(expected) > 2 * MAX_LINES
    pages, start = [], 1
    while start is not None:
        page = read_tree(tree, ReadQuery(path=LONG_PY, start_line=start))
        assert page.end_line - page.start_line + 1 <= MAX_LINES
        pages.append(page.text)
        start = page.next_start_line
    assert "\n".join(pages).split("\n") == expected


def test_read_end_line_past_the_end_stops_at_the_last_line(tree: SourceTree) -> None:
    total = len(file_lines(tree, CACHE_PY))
    result = read_tree(tree, ReadQuery(path=CACHE_PY, start_line=total - 2, end_line=total + 50))
    assert (result.end_line, result.next_start_line) == (total, None)


def test_read_start_past_the_end_says_how_long_the_file_is(tree: SourceTree) -> None:
    total = len(file_lines(tree, CACHE_PY))
    with pytest.raises(ValueError, match=f"{total} lines"):
        read_tree(tree, ReadQuery(path=CACHE_PY, start_line=total + 1))


def test_read_unknown_path_lists_the_nearest_paths(tree: SourceTree) -> None:
    with pytest.raises(SourceFileNotFoundError, match=CACHE_PY):
        read_tree(tree, ReadQuery(path="vllm/config/caches.py"))


def test_read_rejects_parent_directory_traversal(tree: SourceTree) -> None:
    with pytest.raises(PathOutsideTreeError):
        read_tree(tree, ReadQuery(path="vllm/../../../../etc/passwd"))


def test_read_rejects_absolute_paths(tree: SourceTree) -> None:
    with pytest.raises(PathOutsideTreeError):
        read_tree(tree, ReadQuery(path="/etc/passwd"))


def test_read_rejects_a_symlink_that_points_out_of_the_tree(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("token\n", encoding="utf-8")
    root = tmp_path / "tree"
    (root / "vllm").mkdir(parents=True)
    os.symlink(secret, root / "vllm" / "link.py")
    with pytest.raises(PathOutsideTreeError):
        read_tree(SourceTree(root, "v0.32.0"), ReadQuery(path="vllm/link.py"))


def test_read_query_rejects_an_inverted_range() -> None:
    with pytest.raises(ValidationError, match="swap"):
        ReadQuery(path=CACHE_PY, start_line=20, end_line=10)


def _tiny_tree(tmp_path: Path, name: str, data: bytes) -> SourceTree:
    (tmp_path / "vllm").mkdir()
    (tmp_path / "vllm" / name).write_bytes(data)
    return SourceTree(tmp_path, "v0.32.0")


def test_read_refuses_a_binary_file_instead_of_returning_mojibake(tmp_path: Path) -> None:
    tree = _tiny_tree(tmp_path, "logo.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    with pytest.raises(ValueError, match="binary file"):
        read_tree(tree, ReadQuery(path="vllm/logo.png"))


def test_read_clips_a_megabyte_line_and_says_how_much_is_left(tmp_path: Path) -> None:
    tree = _tiny_tree(tmp_path, "bundle.js", b"short\n" + b"x" * 2_000_000 + b"\nend\n")
    lines = read_tree(tree, ReadQuery(path="vllm/bundle.js")).text.split("\n")
    assert lines[0] == "short" and lines[2] == "end"
    assert len(lines[1]) < 1_100 and "1999000 more characters" in lines[1]


@pytest.mark.timeout(30)
def test_read_of_a_source_file_past_the_cap_is_refused_after_reading_the_cap(tmp_path: Path) -> None:
    (tmp_path / "vllm").mkdir()
    with (tmp_path / "vllm" / "huge.py").open("wb") as out:
        out.truncate(2**40)  # sparse: a terabyte by stat, a checkout's file the loose tree would read whole
    with pytest.raises(InvalidInputError, match=f"larger than {MAX_FILE_BYTES // 1_000_000} MB"):
        read_tree(SourceTree(tmp_path, "v0.32.0"), ReadQuery(path="vllm/huge.py"))


@pytest.mark.timeout(10)
def test_read_of_a_fifo_in_a_checkout_is_not_found_instead_of_waiting_for_a_writer(tmp_path: Path) -> None:
    (tmp_path / "vllm").mkdir()
    os.mkfifo(tmp_path / "vllm" / "envs.py")
    with pytest.raises(SourceFileNotFoundError):
        read_tree(SourceTree(tmp_path, "v0.32.0"), ReadQuery(path="vllm/envs.py"))
