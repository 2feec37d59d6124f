"""grep_vllm_source against ripgrep on the full vLLM 0.32.0 sdist, side by side.

Run: `python benchmarks/bench_grep.py [--tree DIR] [--repeat N]`. The sdist (every file,
csrc and docs included) is unpacked once under ~/.cache/vllm-quant-mcp-bench. Ours is
timed warm (index built once, kept in memory) through the tool function; rg runs as a
process over the same directory with `--no-ignore --hidden`. For each pattern the full
set of (path, line) matches of both must be identical.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tarfile
import time
from pathlib import Path

from vllm_quant_mcp.knowledge.search.grep import search
from vllm_quant_mcp.knowledge.search.trigram import SourceIndex
from vllm_quant_mcp.knowledge.sources.tree import SourceTree
from vllm_quant_mcp.tools.grep_vllm_source.tool import GrepQuery, grep_vllm_source

VERSION = "0.32.0"
SDIST = Path.home() / ".cache" / "vllm-sdists" / f"vllm-{VERSION}.tar.gz"
CACHE = Path.home() / ".cache" / "vllm-quant-mcp-bench"

# (pattern, options): literals, regexes, case-insensitive, path-filtered.
PATTERNS: list[tuple[str, dict[str, object]]] = [
    ("QuantizationMethods", {}),
    ("kv_cache_dtype", {}),
    ("def get_min_capability", {}),
    ("VLLM_USE_[A-Z_]+", {}),
    (r"class \w+Config\(QuantizationConfig\)", {}),
    ("nvfp4", {"ignore_case": True}),
    ("get_quant_method", {}),
    ("fp8_e4m3", {}),
    (r"def apply\(self", {}),
    (r"compressed[-_]tensors", {}),
    ("QuantizationConfig", {"path_glob": "vllm/model_executor/**"}),
    ("kv_cache_dtype", {"path_glob": "vllm/model_executor/**"}),
    (r"def (get_name|get_supported_act_dtypes)", {"path_glob": "vllm/model_executor/**"}),
    ("marlin", {"ignore_case": True}),
    (r"is_device_capability\(\d+\)", {}),
    ("CacheDType", {}),
    ("register_quantization_config", {}),
    (r"envs\.VLLM_\w+", {}),
    ("moe_wna16", {}),
    ("modelopt", {"ignore_case": True, "path_glob": "vllm/**"}),
    (r"torch\.float8_e4m3fn(uz)?", {}),
    ("get_quant_method(layer, prefix", {"fixed_string": True}),
    (r"^class \w+Method\(", {}),
    ("bitsandbytes", {"ignore_case": True}),
]


def unpacked_tree() -> Path:
    root = CACHE / f"vllm-{VERSION}"
    if not (CACHE / f".complete-{VERSION}").exists():
        CACHE.mkdir(parents=True, exist_ok=True)
        with tarfile.open(SDIST) as tar:
            tar.extractall(CACHE, filter="data")
        (CACHE / f".complete-{VERSION}").write_text("", encoding="utf-8")
    return root


def rg(root: Path, pattern: str, options: dict[str, object]) -> tuple[float, set[tuple[str, int]]]:
    args = ["rg", "--no-ignore", "--hidden", "--no-heading", "--line-number", "--null", "--color", "never"]
    if options.get("fixed_string"):
        args.append("--fixed-strings")
    if options.get("ignore_case"):
        args.append("--ignore-case")
    if "path_glob" in options:
        args += ["--glob", str(options["path_glob"])]
    args += ["--regexp", pattern, "."]
    started = time.perf_counter()
    out = subprocess.run(args, cwd=root, capture_output=True, check=False).stdout
    elapsed = time.perf_counter() - started
    found = set()
    for row in out.split(b"\n"):
        if row:
            path, rest = row.split(b"\0", 1)
            found.add((path.decode().removeprefix("./"), int(rest.split(b":", 1)[0])))
    return elapsed, found


def ours(tree: SourceTree, index: SourceIndex, pattern: str, options: dict[str, object]) -> float:
    query = GrepQuery(pattern=pattern, **options)  # type: ignore[arg-type]
    started = time.perf_counter()
    grep_vllm_source(tree, index, query)
    return time.perf_counter() - started


def ours_all(index: SourceIndex, pattern: str, options: dict[str, object]) -> set[tuple[str, int]]:
    found = search(index, pattern, keep=10**9, **options)  # type: ignore[arg-type]
    return {(index.paths[h.file_id], h.line) for h in found.hits}


def rss_mb() -> float:
    with open("/proc/self/statm", encoding="utf-8") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, default=None, help="tree to search (default: the unpacked sdist)")
    parser.add_argument("--repeat", type=int, default=7, help="runs per pattern; the median is reported")
    args = parser.parse_args()
    root = (args.tree or unpacked_tree()).resolve()
    tree = SourceTree(root, f"v{VERSION}")

    before = rss_mb()
    index = SourceIndex.build(root)
    after = rss_mb()
    size = sum(len(t) for t in index.texts) / 2**20
    print(f"tree {root}: {len(index.paths)} text files, {size:.0f} M characters")
    print(f"index build {index.build_seconds:.1f} s, RSS {before:.0f} -> {after:.0f} MB (+{after - before:.0f} MB)\n")

    header = f"{'pattern':<48} {'options':<34} {'ours ms':>8} {'rg ms':>8} {'ratio':>6} {'lines':>6}  equal"
    print(header)
    print("-" * len(header))
    ratios = []
    all_equal = True
    for pattern, options in PATTERNS:
        ours_ms = statistics.median(ours(tree, index, pattern, options) for _ in range(args.repeat)) * 1000
        rg_runs = [rg(root, pattern, options) for _ in range(args.repeat)]
        rg_ms = statistics.median(t for t, _ in rg_runs) * 1000
        expected = rg_runs[0][1]
        equal = ours_all(index, pattern, options) == expected
        all_equal &= equal
        ratios.append(ours_ms / rg_ms)
        opts = ",".join(f"{k}={v}" for k, v in options.items())
        print(
            f"{pattern:<48} {opts:<34} {ours_ms:8.2f} {rg_ms:8.2f} {ours_ms / rg_ms:6.3f} {len(expected):6d}  {equal}"
        )
    print(f"\nmedian ratio ours/rg: {statistics.median(ratios):.3f} (target <= 0.5); match sets all equal: {all_equal}")
    print(f"RSS with the warm index: {rss_mb():.0f} MB")
    return 0 if all_equal and statistics.median(ratios) <= 0.5 else 1


if __name__ == "__main__":
    sys.exit(main())
