"""The `dir` source: an existing vLLM checkout or unpacked sdist, or the vLLM installed here.

The installed package is located through importlib.metadata, which reads the
dist-info and never imports vllm (find_spec would import a parent package's
__init__ for dotted names and can run import hooks). A checkout or unpacked sdist is copied whole
(its csrc/, requirements/, docs/, tests/ and CMakeLists.txt are the release as much as vllm/ is, and the
package index's sdist is kept whole too: a tag holds the same files whichever source refreshed it), minus
version control and caches; the installed package is only `vllm/`, beside which site-packages holds
everything else. Only regular files are copied, so the stored tree holds no links to follow out of it (nor
FIFOs, which would block the copy).
"""

from __future__ import annotations

import importlib.metadata
import re
import shutil
from pathlib import Path

from vllm_quant_mcp.knowledge.echo import clip

from ..errors import NotAVllmTreeError, SourceError, UnsafeInputError
from ..tags import InvalidTagError, normalize_tag
from .base import SourceInfo

__all__ = ["DirectorySource", "declared_version", "installed_vllm"]

_VERSION_RE = re.compile(r"""^__version__\s*=\s*(?:version\s*=\s*)?['"]([^'"]+)['"]""", re.MULTILINE)


def installed_vllm() -> tuple[Path, str]:
    """The directory holding the installed `vllm/` package and its tag, from metadata alone."""
    try:
        dist = importlib.metadata.distribution("vllm")
    except importlib.metadata.PackageNotFoundError as exc:
        raise NotAVllmTreeError(
            "No vllm distribution is installed in this environment; give a checkout directory or use --source pypi."
        ) from exc
    init = Path(str(dist.locate_file("vllm/__init__.py")))
    if not init.is_file():
        raise NotAVllmTreeError(f"vllm {dist.version} is installed but {init} is missing; reinstall it.")
    try:
        tag = normalize_tag(dist.version.split("+")[0])
    except InvalidTagError as exc:
        raise NotAVllmTreeError(f"Installed vllm has version {dist.version!r}, not a release; give --tag.") from exc
    return init.parent.parent, tag


def declared_version(root: Path) -> str | None:
    """The version setuptools-scm wrote to vllm/_version.py (sdists and builds have it), read as text."""
    path = root / "vllm" / "_version.py"
    if not path.is_file():
        return None
    match = _VERSION_RE.search(path.read_text(encoding="utf-8", errors="replace"))
    return match.group(1) if match else None


class DirectorySource:
    kind = "dir"

    def __init__(self, root: Path, whole: bool = True) -> None:
        self.whole = whole  # False for the installed package: its folder is site-packages
        if str(root).startswith("-"):
            raise UnsafeInputError(f"Directory {clip(str(root))} starts with '-'; write it as ./{root}.")
        self.root = root.expanduser().resolve()
        if not (self.root / "vllm" / "__init__.py").is_file():
            raise NotAVllmTreeError(
                f"{self.root} holds no vllm/__init__.py; give the top of a vLLM checkout or unpacked sdist."
            )

    def fetch(self, tag: str, dest: Path) -> SourceInfo:
        tag = normalize_tag(tag)
        version = declared_version(self.root)
        if version is not None and _same_release(version, tag) is False:
            raise NotAVllmTreeError(
                f"{self.root} declares vLLM {version}, not {tag}; pass the matching --tag or another directory."
            )
        source, target = (self.root, dest) if self.whole else (self.root / "vllm", dest / "vllm")
        try:
            shutil.copytree(source, target, symlinks=True, ignore=_links_and_caches, dirs_exist_ok=self.whole)
        except shutil.Error as exc:  # one (source, destination, reason) per file that failed: the first says why
            failures = exc.args[0] if exc.args and isinstance(exc.args[0], list) else [("?", "?", str(exc))]
            path, _dest, why = failures[0]
            raise SourceError(
                f"Copying {source} failed on {len(failures)} file(s), first {clip(str(path))}: {why}. "
                "Free disk space if it is full; nothing half-copied is kept."
            ) from None
        except OSError as exc:  # the folder itself: a full disk, a permission
            raise SourceError(f"Copying {source} failed: {exc}; nothing half-copied is kept.") from exc
        return SourceInfo(kind="dir", origin=str(self.root))


def _same_release(version: str, tag: str) -> bool | None:
    """None when the declared version is not a release number (a dev build), so it cannot contradict the tag."""
    try:
        return normalize_tag(version.split("+")[0]) == tag
    except InvalidTagError:
        return None


# Not the release: version control, byte code, environments and tool caches a working copy collects.
_NOT_SOURCE = frozenset({".git", "__pycache__", ".venv", "venv", ".mypy_cache", ".pytest_cache", ".ruff_cache"})


def _links_and_caches(folder: str, names: list[str]) -> list[str]:
    """Links, caches and special files (a FIFO would block the copy; rg skips them too) are left out."""
    base = Path(folder)
    return [n for n in names if n in _NOT_SOURCE or (base / n).is_symlink() or _special(base / n)]


def _special(path: Path) -> bool:
    return not (path.is_file() or path.is_dir())
