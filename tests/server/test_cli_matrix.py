"""`vllm-quant-mcp matrix`: the page of a tag or of two, to stdout or a file; wrong counts and tags say the fix."""

from __future__ import annotations

from pathlib import Path

from support.cli import run_cli


def test_one_tag_prints_its_markdown_matrix_with_a_table_per_model_shape(tmp_path: Path) -> None:
    done = run_cli("matrix", "v0.32.0", cache=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("# vLLM v0.32.0: support matrix")
    assert "## Attention backend by KV-cache dtype: Dense models" in done.stdout
    assert "## Attention backend by KV-cache dtype: MLA models" in done.stdout


def test_html_goes_to_the_file_named_and_stdout_stays_empty(tmp_path: Path) -> None:
    out = tmp_path / "m.html"
    done = run_cli("matrix", "v0.31.0", "v0.32.0", "--format", "html", "-o", str(out), cache=tmp_path / "c")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "" and str(out) in done.stderr
    assert out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_three_tags_or_an_unknown_tag_are_usage_errors_that_say_what_to_give(tmp_path: Path) -> None:
    three = run_cli("matrix", "v0.30.0", "v0.31.0", "v0.32.0", cache=tmp_path)
    assert three.returncode == 2 and "two (old new) for a diff" in three.stderr
    unknown = run_cli("matrix", "v0.99.0", cache=tmp_path)
    assert unknown.returncode == 2 and "v0.33.0" in unknown.stderr
