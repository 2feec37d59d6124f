"""derive_registry against Python's own `ast.parse` over the same files, side by side.

Run: `python benchmarks/bench_registry.py [--versions 0.32.0 0.22.0 ...] [--rounds N]`.
Trees come from tests/releases.py (`release_tree`, cached under ~/.cache/vllm-quant-mcp-tests).

For each version, one recording run learns which files the extractors read (a SourceTree
subclass that notes every `read_bytes`; `parse` reads through it). Then, interleaved and
repeated, with the order rotated each round, it times:

  derive   derive_registry on a fresh SourceTree (cold parse cache, warm query cache)
  ast      ast.parse of every Python file derive read (the requirements files it reads are read here too)
  ts       tree-sitter parse of the same files

All three read the files from disk inside the timed region (derive must; the other two
do too, so none gets its I/O for free), each after a gc.collect(). The table gives median
times and the ratios derive/ast and ts/ast, each the median of the per-round ratios: the
machine is shared, so ratios of runs made side by side are the figure to compare, not lone
absolute times. `ast*` repeats the ast
column over only the files derive handed to tree-sitter, whole or some of their statements
(the rest it read and set aside after a text check, e.g. platform files that never name
supported_quantization). `ts` parses every file whole: derive parses most of them in part
(knowledge/extract/engine/partial.py), so derive can undercut it.
"""

from __future__ import annotations

import argparse
import ast
import gc
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import tree_sitter

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from support.releases import release_tree

from vllm_quant_mcp.knowledge.extract.engine.language import parser
from vllm_quant_mcp.knowledge.registry.derive import derive_registry
from vllm_quant_mcp.knowledge.registry.model import SourceInfo
from vllm_quant_mcp.knowledge.sources.tree import SourceTree

DEFAULT_VERSIONS = ["0.4.0", "0.4.1", "0.6.3", "0.9.2", "0.22.0", "0.32.0", "0.33.0"]


class RecordingTree(SourceTree):
    """A SourceTree that notes which files are read and which are parsed (whole or in part), in first-use order."""

    def __init__(self, root: Path, tag: str) -> None:
        super().__init__(root, tag)
        self.read: dict[str, None] = {}
        self.parsed: dict[str, None] = {}

    def read_bytes(self, relpath: str) -> bytes:
        self.read.setdefault(relpath, None)
        return super().read_bytes(relpath)

    def parse(self, relpath: str) -> tree_sitter.Tree:
        self.parsed.setdefault(relpath, None)
        return super().parse(relpath)

    def parse_part(self, relpath: str, ranges: tuple[tuple[int, int], ...]) -> tree_sitter.Tree | None:
        self.parsed.setdefault(relpath, None)  # some of its statements: handed to tree-sitter all the same
        return super().parse_part(relpath, ranges)


@dataclass(frozen=True)
class Row:
    version: str
    read: int
    parsed: int
    times: dict[str, list[float]]  # per run, round by round

    def median(self, name: str) -> float:
        return statistics.median(self.times[name])

    def ratio(self, top: str, bottom: str) -> float:
        """Median of the per-round ratios: two runs of one round share the machine's load of the moment."""
        return statistics.median(a / b for a, b in zip(self.times[top], self.times[bottom], strict=True))

    def line(self) -> str:
        m = self.median
        return (
            f"{self.version:>9} {self.read:>5} {self.parsed:>6} {m('derive'):>9.3f} {m('ast'):>7.3f} {m('ts'):>7.3f}"
            f" {m('ast*'):>7.3f} {self.ratio('derive', 'ast'):>10.2f} {self.ratio('ts', 'ast'):>7.2f}"
            f" {self.ratio('derive', 'ast*'):>11.2f}"
        )


HEADER = (
    f"{'version':>9} {'read':>5} {'parsed':>6} {'derive s':>9} {'ast s':>7} {'ts s':>7} {'ast* s':>7}"
    f" {'derive/ast':>10} {'ts/ast':>7} {'derive/ast*':>11}"
)


def _timed(run: Callable[[], object]) -> float:
    gc.collect()  # each run starts from the same heap, not from the garbage of the one before
    started = time.perf_counter()
    run()
    return time.perf_counter() - started


def _ast_parse(paths: list[Path]) -> Callable[[], None]:
    def run() -> None:
        for path in paths:
            data = path.read_bytes()  # requirements/*.txt are read, not parsed, by derive too
            if path.suffix == ".py":
                ast.parse(data, filename=str(path))

    return run


def _ts_parse(paths: list[Path]) -> Callable[[], None]:
    ts_parser = parser()

    def run() -> None:
        for path in paths:
            ts_parser.parse(path.read_bytes())

    return run


def bench(version: str, rounds: int) -> Row:
    base = release_tree(version)
    source = SourceInfo(kind="dir", origin=str(base.root))
    recorder = RecordingTree(base.root, base.tag)
    derive_registry(recorder, source)  # also warms the query cache, as in a long-lived process
    read = [base.root / path for path in recorder.read]
    parsed = [base.root / path for path in recorder.parsed]
    runs: dict[str, Callable[[], object]] = {
        "derive": lambda: derive_registry(SourceTree(base.root, base.tag), source),
        "ast": _ast_parse(read),
        "ts": _ts_parse(read),
        "ast*": _ast_parse(parsed),
    }
    names = list(runs)
    times: dict[str, list[float]] = {name: [] for name in names}
    for i in range(rounds):  # interleaved, and each round starts with a different one
        for name in names[i % len(names) :] + names[: i % len(names)]:
            times[name].append(_timed(runs[name]))
    return Row(version, len(read), len(parsed), times)


def main() -> None:
    args = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    args.add_argument("--versions", nargs="+", default=DEFAULT_VERSIONS)
    args.add_argument("--rounds", type=int, default=7)
    options = args.parse_args()
    print(HEADER)
    for version in options.versions:
        print(bench(version, options.rounds).line(), flush=True)


if __name__ == "__main__":
    main()
