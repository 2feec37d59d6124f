"""Lint and strict typing run as part of the test suite, so CI and a contributor run the same gate."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("server", "tools", "knowledge")


def test_ruff_finds_no_lint_or_format_issue() -> None:
    paths = [str(ROOT / p) for p in (*PACKAGES, "tests", "benchmarks", "scripts")]
    lint = subprocess.run([sys.executable, "-m", "ruff", "check", *paths], capture_output=True, text=True)
    assert lint.returncode == 0, lint.stdout + lint.stderr
    fmt = subprocess.run([sys.executable, "-m", "ruff", "format", "--check", *paths], capture_output=True, text=True)
    assert fmt.returncode == 0, fmt.stdout + fmt.stderr


def test_mypy_strict_passes_on_the_package(tmp_path: Path) -> None:
    # The folders install as vllm_quant_mcp.<folder> through a package-dir mapping that mypy cannot
    # follow, so it checks them through links named the way they import.
    package = tmp_path / "vllm_quant_mcp"
    package.mkdir()
    for name in PACKAGES:
        (package / name).symlink_to(ROOT / name, target_is_directory=True)
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"), "-p", "vllm_quant_mcp"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={"MYPYPATH": str(tmp_path), "PATH": "/usr/bin:/bin"},
    )
    assert result.returncode == 0, result.stdout[-5000:] + result.stderr[-2000:]
