"""CLI process start-up, side by side with the interpreter alone, and what the table layer (rich) costs.

Run: `python benchmarks/bench_cli.py [--rounds N]`.

Each round spawns, in an order that flips every round so machine load hits all alike:
`python -c pass` (the floor any Python CLI pays), `vllm-quant-mcp --version`,
`vllm-quant-mcp tags`, `pick` on explicit figures as a table and as `--json` (the only
difference between the two is rich), and what `serve` does before it answers (imports and
build_server) with rich importable and with rich hidden: the MCP SDK's MCPServer picks
rich's log handler whenever rich is installed, so that pair is rich's cost to `serve`.
Medians and ratios to the floor are printed; nothing here is asserted, timings are for people.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

EXE = str(Path(sys.executable).with_name("vllm-quant-mcp"))
FIGURES = '{"params_b": 70.6, "layers": 80, "kv_heads": 8, "head_dim": 128}'
PICK = [EXE, "pick", "--gpu", "h200", "--model-figures", FIGURES, "--num-gpus", "2", "--tag", "v0.32.0"]
SERVE_START = "import vllm_quant_mcp.server.mcp.app as a, vllm_quant_mcp.server.cli.serve; a.build_server(lambda: None)"
COMMANDS: dict[str, list[str]] = {
    "python -c pass (floor)": [sys.executable, "-c", "pass"],
    "vllm-quant-mcp --version": [EXE, "--version"],
    "vllm-quant-mcp tags": [EXE, "tags"],
    "pick, table (rich)": PICK,
    "pick --json": [*PICK, "--json"],
    "serve start-up, rich importable": [sys.executable, "-c", SERVE_START],
    "serve start-up, rich hidden": [sys.executable, "-c", f"import sys; sys.modules['rich'] = None; {SERVE_START}"],
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    rounds = parser.parse_args().rounds
    times: dict[str, list[float]] = {name: [] for name in COMMANDS}
    with tempfile.TemporaryDirectory() as cache:
        env = {"VLLM_QUANT_MCP_CACHE_DIR": cache, "PATH": "/usr/bin:/bin"}
        for r in range(rounds):
            order = list(COMMANDS.items())
            for name, argv in order if r % 2 == 0 else reversed(order):
                started = time.perf_counter()
                subprocess.run(argv, check=True, capture_output=True, env=env, timeout=120)
                times[name].append(time.perf_counter() - started)
    floor = statistics.median(times["python -c pass (floor)"])
    print(f"{'command':<34} {'median':>9} {'x floor':>8}   ({rounds} rounds, interleaved)")
    for name, values in times.items():
        median = statistics.median(values)
        print(f"{name:<34} {median * 1000:>7.0f} ms {median / floor:>7.1f}x")
    table, plain = statistics.median(times["pick, table (rich)"]), statistics.median(times["pick --json"])
    print(f"rich tables add {(table - plain) * 1000:.0f} ms to pick ({table / plain:.2f}x of --json)")
    with_rich = statistics.median(times["serve start-up, rich importable"])
    without = statistics.median(times["serve start-up, rich hidden"])
    print(f"rich costs serve start-up {(with_rich - without) * 1000:.0f} ms ({with_rich / without:.2f}x)")


if __name__ == "__main__":
    main()
