"""A vLLM source tree at one tag: files on disk plus the tag they came from.

Extractors read files only through this class, so every fact they record can
carry a permalink, and each file is parsed by tree-sitter at most once. A tree at a
tag does not change while it is read, so each path is checked against the root once.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from functools import cache, cached_property
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar, cast

from vllm_quant_mcp.knowledge.bounded import read_bounded
from vllm_quant_mcp.knowledge.echo import clip
from vllm_quant_mcp.knowledge.errors import InvalidInputError

if TYPE_CHECKING:
    import tree_sitter

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "MAX_FILE_BYTES",
    "MAX_LINE_CHARS",
    "REPOSITORY_URL",
    "PathOutsideTreeError",
    "Provenance",
    "SourceTree",
    "clip_line",
    "glob_regex",
    "refuse_escape",
]

T = TypeVar("T")
REPOSITORY_URL = "https://github.com/vllm-project/vllm"
MAX_LINE_CHARS = 1000
# vLLM's largest source file is ~0.4 MB; a loose tree (a caller's checkout) may hold anything under a source name.
MAX_FILE_BYTES = 16_000_000


class Provenance(BaseModel):
    """Where in the tree at the tag a fact was read."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    path: str = Field(description="Path relative to the repository root, e.g. vllm/config/cache.py.")
    line: int = Field(ge=1, description="1-based line of the definition.")
    permalink: str = Field(description="Link to that line at the tag.")


class PathOutsideTreeError(InvalidInputError):
    """A relative path tried to leave the tree (.., absolute, or a link out)."""


def refuse_escape(relpath: str) -> None:
    """Refuse a path that leaves the tree by its text alone (absolute, `..`, `~`); links are the disk's to tell."""
    if relpath.startswith(("/", "~")) or ".." in relpath.split("/"):
        raise PathOutsideTreeError(
            f"{clip(relpath)} is not a path inside the vLLM tree; give a relative path such as vllm/envs.py."
        )


class SourceTree:
    def __init__(self, root: Path, tag: str, commit: str | None = None) -> None:
        self.root = root.resolve()
        self.tag = tag
        self.commit = commit
        self._parsed: dict[str, tree_sitter.Tree] = {}
        self._resolved: dict[str, Path] = {}
        self._root = str(self.root)
        self._inside = os.path.join(self._root, "")  # a resolved file is under the root: its text starts so
        self._directories: dict[str, str] = {"": self._root}
        self._exists: dict[str, bool] = {}
        self._plain: frozenset[str] = frozenset()  # filled by listing the tree (`_files`)
        self._memo: dict[str, object] = {}
        self._globbed: dict[str, list[str]] = {}
        self._parts: dict[tuple[str, tuple[tuple[int, int], ...]], tree_sitter.Tree | None] = {}
        self._sources: dict[str, bytes] = {}

    def resolve(self, relpath: str) -> Path:
        """The file for a repository-relative path, refusing anything that escapes the tree. Strings and `os.path`,
        not pathlib: a derive resolves up to 500 paths, and resolving them with pathlib took 1 ms of a 22 ms derive
        at 0.4.0."""
        known = self._resolved.get(relpath)
        if known is not None:
            return known
        if relpath in self._plain:  # listed: a file, not a link, in folders that are not links
            known = self._resolved[relpath] = Path(self._inside + relpath)
            return known
        refuse_escape(relpath)
        folder, _, name = relpath.rpartition("/")
        candidate = os.path.join(self._directory(folder), name)
        if os.path.islink(candidate):
            candidate = os.path.realpath(candidate)
        if not candidate.startswith(self._inside):
            raise PathOutsideTreeError(f"{clip(relpath)} resolves outside the vLLM tree (a link out); refused.")
        known = self._resolved[relpath] = Path(candidate)
        return known

    def _directory(self, folder: str) -> str:
        """A directory resolved once, from its parent's resolution: one link check per folder of the tree, where
        `realpath` walks every folder from / again for each."""
        known = self._directories.get(folder)
        if known is None:
            parent, _, name = folder.rpartition("/")
            known = os.path.join(self._directory(parent), name)
            if os.path.islink(known):
                known = os.path.realpath(known)
            self._directories[folder] = known
        return known

    def exists(self, relpath: str) -> bool:
        """Whether the path is a file of the tree, asked of the disk once per path (extractors ask again and again)."""
        found = self._exists.get(relpath)
        if found is None and relpath in self._plain:
            return True
        if found is None:
            found = self._exists[relpath] = self.resolve(relpath).is_file()
        return found

    def read_bytes(self, relpath: str) -> bytes:
        return read_bounded(self.resolve(relpath), MAX_FILE_BYTES, f"{relpath} is no vLLM source file to read")

    def read_text(self, relpath: str) -> str:
        return self.read_bytes(relpath).decode("utf-8", errors="replace")

    def glob(self, pattern: str) -> list[str]:
        """Repository-relative POSIX paths of files matching a glob, sorted; the tree is listed once and each
        pattern answered once (pathlib's glob over its 3,000 files took 0.12 s a call)."""
        found = self._globbed.get(pattern)
        if found is None:
            matches = glob_regex(pattern).fullmatch
            found = self._globbed[pattern] = [p for p in self._files if matches(p)]
        return list(found)

    @cached_property
    def _files(self) -> list[str]:
        """Every regular file of the tree (a link counts where it points at a file), as a sorted relative path.
        The ones that are no link, in folders that are none, are noted in `_plain`: resolving one of them then
        asks nothing of the disk (the link checks were a fiftieth of a small release's derive)."""
        found: list[str] = []
        plain: set[str] = set()
        pending = [(self._root, "")]
        while pending:
            folder, prefix = pending.pop()
            with os.scandir(folder) as entries:
                for entry in entries:
                    if entry.is_dir(follow_symlinks=False):
                        pending.append((entry.path, f"{prefix}{entry.name}/"))
                    elif entry.is_file():
                        found.append(prefix + entry.name)
                        if not entry.is_symlink():
                            plain.add(prefix + entry.name)
        self._plain = frozenset(plain)
        return sorted(found)

    def parse(self, relpath: str) -> tree_sitter.Tree:
        """The tree-sitter syntax tree of a Python file, parsed once per SourceTree."""
        tree = self._parsed.get(relpath)
        if tree is None:
            tree = self._parser.parse(self.source(relpath))
            self._parsed[relpath] = tree
        return tree

    def source(self, relpath: str) -> bytes:
        """A file's bytes, read once and kept: for a file that is parsed, in whole or statement by statement (its
        trees hold the bytes anyway), and scanned before that (engine/partial.py)."""
        data = self._sources.get(relpath)
        if data is None:
            data = self._sources[relpath] = self.read_bytes(relpath)
        return data

    def parsed_tree(self, relpath: str) -> tree_sitter.Tree | None:
        """The syntax tree of a file another reader parsed already; None rather than a parse."""
        return self._parsed.get(relpath)

    def parsed_part(self, relpath: str, ranges: tuple[tuple[int, int], ...]) -> tree_sitter.Tree | None:
        """The tree of ranges another reader parsed already (`parse_part`); None rather than a parse."""
        return self._parts.get((relpath, ranges))

    def parse_part(self, relpath: str, ranges: tuple[tuple[int, int], ...]) -> tree_sitter.Tree | None:
        """A tree of only those byte ranges of a file, each starting a line (engine/partial.py), parsed once per
        tree and kept as long as it: the interpreters key their caches on node ids. None where they do not parse
        on their own; then parse the whole file."""
        key = (relpath, ranges)
        if key not in self._parts:
            from vllm_quant_mcp.knowledge.extract.engine.language import parse_ranges

            self._parts[key] = parse_ranges(self.source(relpath), list(ranges))
        return self._parts[key]

    def memo(self, key: str, compute: Callable[[], T]) -> T:
        """`compute()` once per tree: what one extractor derives, another that needs it reads again for free."""
        if key not in self._memo:
            self._memo[key] = compute()
        return cast(T, self._memo[key])

    @cached_property
    def _parser(self) -> tree_sitter.Parser:
        from vllm_quant_mcp.knowledge.extract.engine.language import parser

        return parser()

    def permalink(self, relpath: str, line: int) -> str:
        return f"{REPOSITORY_URL}/blob/{self.tag}/{relpath}#L{line}"

    def provenance(self, relpath: str, line: int) -> Provenance:
        return Provenance(path=relpath, line=line, permalink=self.permalink(relpath, line))


@cache
def glob_regex(pattern: str) -> re.Pattern[str]:
    """pathlib's reading of a glob as one regex: `*` and `?` within a folder name, `**` any run of folders (none
    too). Only our own fixed patterns come here, never a caller's; matching 3,000 paths segment by segment with
    fnmatch cost 0.05 s a derive."""
    if "[" in pattern:
        raise ValueError(f"glob {pattern!r}: character classes are not read here; write the names out")
    parts = pattern.split("/")
    regex = ""
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        if part == "**":
            regex += ".*" if last else "(?:[^/]+/)*"
        else:
            regex += re.escape(part).replace(r"\*", "[^/]*").replace(r"\?", "[^/]") + ("" if last else "/")
    return re.compile(regex)


def clip_line(line: str, around: tuple[int, int] | None = None) -> str:
    """A line as tools show it: minified assets run to megabytes on one line, which no agent should be sent.

    `around` is where a match sits in the line: the window kept is centred on it, so a hit far into a
    vendored bundle shows the match, and says how much was cut on each side.
    """
    if len(line) <= MAX_LINE_CHARS:
        return line
    if around is None or around[1] <= MAX_LINE_CHARS:
        return f"{line[:MAX_LINE_CHARS]}… [line continues for {len(line) - MAX_LINE_CHARS} more characters]"
    start, end = around
    room = max(0, MAX_LINE_CHARS - (end - start)) // 2
    begin = max(0, start - room)
    stop = min(len(line), max(end, begin + MAX_LINE_CHARS))
    if stop - begin > MAX_LINE_CHARS:  # a match longer than the window: its start is shown
        stop = begin + MAX_LINE_CHARS
    cut_after = f"… [{len(line) - stop} more characters]" if stop < len(line) else ""
    return f"[clipped: {begin} characters before, match at {start}] …{line[begin:stop]}{cut_after}"
