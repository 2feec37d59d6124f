"""Every tool's answer on the README's examples, as text and as JSON, printed so two checkouts can be compared.

Run: `python scripts/readme_answers.py OUT.json [--code DIR]`, once on this checkout and once with `--code`
naming another checkout's top folder (its server/, tools/, knowledge/ are imported instead of this one's),
then `cmp` the two files (the age of a cached GitHub reply masked): a refactor that must not change an
answer leaves them byte-identical.

Each README line (`vllm-quant-mcp <tool command> ...`) runs in a subprocess on a fresh cache that holds the
real v0.32.0 tree, with the model hub and GitHub served by the tests' stand-ins on 127.0.0.1 (the threads of
issue 38652 as tests/support/issue_world.py spells it, no git history) and nothing else reachable.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from support.cli import cli_env  # noqa: E402
from support.githubapi import GitHubApi, issue_json  # noqa: E402
from support.hubserver import HubServer  # noqa: E402
from support.issue_world import REPO, cross_ref  # noqa: E402
from support.releases import install_release_tree  # noqa: E402
from test_readme import _cli_lines  # noqa: E402

TOOL_COMMANDS = {"tags", "registry", "diff", "grep", "symbol", "pick", "render", "gates", "audit", "issue", "verify"}
# What `audit deploy.yaml` reads: a Kubernetes manifest with one vLLM container, a removed method and a KV flag.
DEPLOY_YAML = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: llama}
spec:
  template:
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.27.1
          command: ["vllm", "serve", "meta-llama/Llama-3.1-70B-Instruct"]
          args: ["--quantization", "bitsandbytes", "--kv-cache-dtype", "fp8_e5m2", "-tp", "2"]
          env:
            - {name: VLLM_ATTENTION_BACKEND, value: FLASHINFER}
"""
# The one clock reading in an answer: how old the cached GitHub reply was when the JSON call read it.
_AGE = re.compile(r'"age_seconds": \d+')
_MAIN = "import sys; from vllm_quant_mcp.server.entry import main; sys.argv[0] = 'vllm-quant-mcp'; sys.exit(main())"


def shim(code: Path, into: Path) -> Path:
    """A folder on sys.path whose `vllm_quant_mcp` package is `code`'s three folders (ahead of the editable one)."""
    package = into / "vllm_quant_mcp"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("", encoding="utf-8")
    for name in ("server", "tools", "knowledge"):
        (package / name).symlink_to(code / name)
    return into


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--code", type=Path, help="another checkout whose package to run (default: this one)")
    args = parser.parse_args()
    lines = [argv for argv in _cli_lines() if argv[0] in TOOL_COMMANDS]
    answers: dict[str, dict[str, object]] = {}
    with tempfile.TemporaryDirectory() as tmp, HubServer() as hub, GitHubApi() as api:
        work = Path(tmp)
        cache = work / "cache"
        install_release_tree(cache, "0.32.0")
        (work / "deploy.yaml").write_text(DEPLOY_YAML, encoding="utf-8")
        api.issues[38652] = issue_json(REPO, 38652, title="FP8 KV cache with MLA garbles multi-turn output")
        api.timelines[38652] = [cross_ref(1007, "Fixes #38652 on the 0.19 branch", "2026-04-01T00:00:00Z", "open")]
        extra = {"HF_ENDPOINT": hub.endpoint, "VLLM_QUANT_MCP_GITHUB_API": api.base_url}
        env = cli_env(cache, **extra)
        if args.code is not None:
            env["PYTHONPATH"] = str(shim(args.code.resolve(), work / "shim"))
        for argv in lines:
            for variant in (argv, [*argv, "--json"] if "--json" not in argv and "--format" not in argv else None):
                if variant is None:
                    continue
                done = subprocess.run(
                    [sys.executable, "-c", _MAIN, *variant],
                    capture_output=True,
                    text=True,
                    env=env,
                    cwd=work,
                    timeout=300,
                )
                stdout = _AGE.sub('"age_seconds": N', done.stdout)
                answers[shlex.join(variant)] = {"exit": done.returncode, "stdout": stdout, "stderr": done.stderr}
    args.out.write_text(json.dumps(answers, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"{len(answers)} answers -> {args.out}", file=sys.stderr)


if __name__ == "__main__":
    os.environ.pop("VLLM_QUANT_MCP_TAG", None)
    main()
