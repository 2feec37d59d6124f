"""The built wheel holds every module and data file: an editable install would hide a missing one."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("server", "tools", "knowledge")
DATA_SUFFIXES = (".py", ".scm", ".json", ".yaml")


def test_wheel_contains_every_source_and_data_file_under_the_one_import_package(tmp_path: Path) -> None:
    # Build from a copy: setuptools writes build/ and *.egg-info into the source it builds.
    source = tmp_path / "src"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(".git", ".venv", "build", "*.egg-info", "__pycache__"))
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(source)],
        check=True,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("vllm_quant_mcp-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = {
        f"vllm_quant_mcp/{path.relative_to(ROOT).as_posix()}"
        for package in PACKAGES
        for path in (ROOT / package).rglob("*")
        if path.suffix in DATA_SUFFIXES and "__pycache__" not in path.parts
    }
    assert expected - names == set()
    assert not any(n.split("/")[0] in PACKAGES for n in names), "a bare top-level server/tools/knowledge module"
