"""The questions operators ask, answered the way an agent would: a chain of tool calls in one stdio MCP session.

Each scenario feeds values from one answer into the next call, then holds the answers
against what the test reads itself: the bundled registries as JSON, the real release
files as text or with Python's `ast`, the local hub's model config, the upstream git
history it built. The tools are never compared with themselves.
"""

from __future__ import annotations

import ast
import json
import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import git
import pytest
from mcp.client.session import ClientSession
from support.githubapi import GitHubApi, issue_json, pull_json
from support.hubserver import HubServer, llama_70b_config
from support.mcp_session import stdio_session
from support.releases import release_tree

pytestmark = pytest.mark.anyio

REPO_ROOT = Path(__file__).resolve().parents[2]
BUNDLED = REPO_ROOT / "knowledge" / "registry" / "bundled"
DEPLOY = REPO_ROOT / "tests" / "fixtures" / "deploy"
LLAMA_70B = "meta-llama/Llama-3.1-70B-Instruct"
FLASHINFER = "vllm/v1/attention/backends/flashinfer.py"
H200_SM = 90  # Hopper, compute capability 9.0
KV_BYTES = {"auto": 2, "bfloat16": 2, "float16": 2, "fp8": 1, "fp8_e4m3": 1, "fp8_e5m2": 1}  # per stored value


def _tag_key(tag: str) -> tuple[int, ...]:
    return tuple(int(part) for part in tag.removeprefix("v").split("."))


@cache
def _bundled(tag: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((BUNDLED / f"{tag}.json").read_text(encoding="utf-8"))
    return data


def _bundled_tags() -> list[str]:
    return sorted((p.stem for p in BUNDLED.glob("v*.json")), key=_tag_key)


def _names(tag: str, kind: str) -> dict[str, dict[str, Any]]:
    return {entry["name"]: entry for entry in _bundled(tag)[kind]}


def _flag_names(tag: str) -> set[str]:
    flags = _bundled(tag)["cli_flags"]
    return (
        {f["name"] for f in flags}
        | {a for f in flags for a in f["aliases"]}
        | {f["negation"] for f in flags if f["negation"]}
    )


async def _call(session: ClientSession, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = await session.call_tool(tool, arguments)
    assert not result.is_error, f"{tool}({arguments}) failed: {result.content}"
    data: dict[str, Any] | None = result.structured_content
    assert data is not None
    return data


def _shell_words(line: str) -> list[str]:
    """The words of a shell line that continues over backslash-newlines."""
    return shlex.split(line.replace("\\\n", " "))


def _file_lines(version: str, path: str) -> list[str]:
    return (release_tree(version).root / path).read_text(encoding="utf-8").splitlines()


def _function_node(version: str, path: str, qualified: str) -> ast.FunctionDef:
    """`Class.method` or `function` of a real release file, found with Python's own parser."""
    *classes, name = qualified.split(".")
    body: list[ast.stmt] = ast.parse((release_tree(version).root / path).read_text(encoding="utf-8")).body
    for cls in classes:
        body = next(n for n in body if isinstance(n, ast.ClassDef) and n.name == cls).body
    return next(n for n in body if isinstance(n, ast.FunctionDef) and n.name == name)


# (a) "quantize Llama-3.1-70B for 2 x H200" -> pick, render, gates


async def test_llama_70b_on_two_h200_picks_a_format_renders_it_and_the_line_passes_the_upgrade_gates(
    cache_with_trees: Path, hub: HubServer
) -> None:
    async with stdio_session(cache_with_trees, env={"HF_ENDPOINT": hub.endpoint}) as session:
        pick = await _call(session, "pick_format", {"gpu": "h200", "model": LLAMA_70B, "num_gpus": 2, "tag": "v0.32.0"})
        top = pick["options"][0]
        rendered = await _call(
            session,
            "render_serve_cmd",
            {
                "model": LLAMA_70B,
                "tag": "v0.32.0",
                "quantization": top["quantization"]["name"],
                "kv_cache_dtype": top["kv_cache_dtype"]["name"],
                "tensor_parallel_size": 2,
                "format": "shell",
            },
        )
        gates = await _call(
            session,
            "check_gates",
            {"from_tag": "v0.27.1", "to_tag": "v0.32.0", "serve_command": rendered["output"]},
        )

    assert any(LLAMA_70B in path for path in hub.requests), "the model's figures come from the hub"
    assert pick["gpu"]["sm"] == H200_SM and pick["tag"] == "v0.32.0"
    methods, kv_dtypes = _names("v0.32.0", "quantization_methods"), _names("v0.32.0", "kv_cache_dtypes")
    quant, kv = top["quantization"], top["kv_cache_dtype"]
    assert quant["provenance"] == methods[quant["name"]]["provenance"]
    assert methods[quant["name"]]["accepted_by_cli"] and methods[quant["name"]]["min_capability"] <= H200_SM
    assert kv["provenance"] == kv_dtypes[kv["name"]]["provenance"]
    assert top["support"] == "native"
    # KV bytes per token on each GPU, from the config the hub served: K and V, every layer, this GPU's KV heads.
    config = llama_70b_config()
    head_dim = config["hidden_size"] // config["num_attention_heads"]
    per_gpu = 2 * config["num_hidden_layers"] * (config["num_key_value_heads"] // 2) * head_dim
    assert top["memory"]["kv_bytes_per_token"] == per_gpu * KV_BYTES[kv["name"]]

    words = _shell_words(rendered["output"])
    assert words == rendered["argv"]
    assert words[:3] == ["vllm", "serve", LLAMA_70B]
    assert words[words.index("--quantization") + 1] == quant["name"]
    assert words[words.index("--kv-cache-dtype") + 1] == kv["name"]
    assert words[words.index("--tensor-parallel-size") + 1] == "2"
    flags = [w for w in words if w.startswith("-")]
    assert set(flags) <= _flag_names("v0.32.0")
    cli = _names("v0.32.0", "cli_flags")
    assert [(u["flag"], u["provenance"]) for u in rendered["flags"]] == [(f, cli[f]["provenance"]) for f in flags]

    assert gates["direction"] == "upgrade"
    expected_path = [t for t in _bundled_tags() if _tag_key("v0.27.1") <= _tag_key(t) <= _tag_key("v0.32.0")]
    assert [h["from_tag"] for h in gates["hops"]] + [gates["hops"][-1]["to_tag"]] == expected_path
    assert [f for f in gates["findings"] if f["severity"] == "breaks"] == []
    for finding in gates["findings"]:
        assert finding["changed_at"] is None or _tag_key("v0.27.1") < _tag_key(finding["changed_at"]) <= _tag_key(
            "v0.32.0"
        )


# (b) "upgrade my v0.27.1 deployment (a given script) to v0.32.0" -> audit, gates, issue lookups


VLLM_REPO = "vllm-project/vllm"
# Upstream history as GitHub would show it: each PR merged between the two releases around it.
# (PR #43529 moved bitsandbytes out of tree; PR #49389 removed --calculate-kv-scales: both ship in v0.28.0.)
UPSTREAM_MERGES = {43529: ("v0.27.1", "v0.28.0"), 49389: ("v0.27.1", "v0.28.0")}


@dataclass(frozen=True)
class Upstream:
    """The local GitHub API and the merge commit of each PR it serves."""

    api: GitHubApi
    merge_commits: dict[int, str]


def _upstream_history(path: Path) -> dict[int, str]:
    """Release tags with each PR of UPSTREAM_MERGES merged between its two releases, up to v0.32.0;
    PR number -> merge commit."""
    repo = git.Repo.init(path)
    with repo.config_writer() as config:
        config.set_value("user", "name", "test")
        config.set_value("user", "email", "test@example.invalid")
    releases = sorted({t for span in UPSTREAM_MERGES.values() for t in span} | {"v0.32.0"}, key=_tag_key)
    merges: dict[int, str] = {}
    for tag in releases:
        for number, (_, lands_in) in UPSTREAM_MERGES.items():
            if lands_in == tag:
                (path / "CHANGES").write_text(f"#{number}\n", encoding="utf-8")
                repo.git.add("--all")
                merges[number] = repo.index.commit(f"Merge pull request #{number}").hexsha
        (path / "CHANGES").write_text(f"{tag}\n", encoding="utf-8")
        repo.git.add("--all")
        repo.index.commit(f"release {tag}")
        repo.create_tag(tag, message=tag)
    return merges


@pytest.fixture
def upstream(tmp_path: Path) -> Iterator[Upstream]:
    """GitHub serving the PRs of UPSTREAM_MERGES as merged; their history is the git remote (VLLM_QUANT_MCP_REMOTE)
    lookup_issue fetches treeless to prove which release holds each merge commit."""
    merges = _upstream_history(tmp_path / "upstream")
    with git.Repo(tmp_path / "upstream").config_writer() as config:
        config.set_value("uploadpack", "allowFilter", "true")  # as GitHub allows partial clones
    with GitHubApi() as api:
        for number, sha in merges.items():
            api.issues[number] = issue_json(
                VLLM_REPO,
                number,
                state="closed",
                html_url=f"https://github.com/{VLLM_REPO}/pull/{number}",
                pull_request={
                    "url": f"{api.base_url}/repos/{VLLM_REPO}/pulls/{number}",
                    "merged_at": "2025-02-03T04:05:06Z",
                },
            )
            api.pulls[number] = pull_json(VLLM_REPO, number, sha)
        yield Upstream(api, merges)


def _pr(label: str) -> int:
    """The PR number of a citation label such as 'PR #49389'; 0 for any other citation."""
    match = re.fullmatch(r"PR #(\d+)", label)
    return int(match.group(1)) if match else 0


def _serve_line(script: str) -> list[str]:
    """The `vllm serve` invocation of the script, read as plain text: its continued lines, up to a pipe."""
    joined = script.replace("\\\n", " ")
    line = next(text for text in joined.splitlines() if " serve " in text and text.lstrip().startswith("exec"))
    words = shlex.split(line.split("2>&1")[0])
    return words[words.index("serve") + 1 :]


def _breaking_at(from_tag: str, to_tag: str, args: list[str]) -> dict[str, str]:
    """What the registries alone say the command loses between the tags: subject -> first release without it."""
    tags = [t for t in _bundled_tags() if _tag_key(from_tag) < _tag_key(t) <= _tag_key(to_tag)]
    value_kinds = {"--quantization": "quantization_methods", "--kv-cache-dtype": "kv_cache_dtypes"}
    subjects: dict[str, tuple[str, str]] = {}  # subject -> (kind, name)
    for i, word in enumerate(args):
        if word in value_kinds:
            subjects[f"{word} {args[i + 1]}"] = (value_kinds[word], args[i + 1])
        elif word.startswith("--"):
            subjects[word] = ("cli_flags", word)
    lost: dict[str, str] = {}
    for subject, (kind, name) in subjects.items():
        assert name in _names(from_tag, kind), f"{subject} should exist at {from_tag}"
        gone = next((t for t in tags if name not in _names(t, kind)), None)
        if gone is not None and name not in _names(to_tag, kind):
            lost[subject] = gone
    return lost


async def test_a_v0_27_script_audited_for_v0_32_names_the_removed_flags_and_their_prs_first_ship_there(
    tmp_path: Path, upstream: Upstream
) -> None:
    script = (DEPLOY / "serve_llama_v0_27.sh").read_text(encoding="utf-8")
    env = {"VLLM_QUANT_MCP_GITHUB_API": upstream.api.base_url, "VLLM_QUANT_MCP_REMOTE": str(tmp_path / "upstream")}
    async with stdio_session(tmp_path / "cache", env=env) as session:
        audit = await _call(
            session, "audit_deployment", {"text": script, "tag": "v0.32.0", "filename": "serve_llama_v0_27.sh"}
        )
        invocation = audit["invocations"][0]
        gates = await _call(
            session,
            "check_gates",
            {"from_tag": invocation["from_tag"], "to_tag": "v0.32.0", "serve_command": invocation["command"]},
        )
        breaking = [f for f in gates["findings"] if f["severity"] == "breaks"]
        cited = sorted({_pr(c["label"]) for f in breaking for c in f["citations"] if _pr(c["label"])})
        lookups = {n: await _call(session, "lookup_issue", {"number": n, "tag": "v0.32.0"}) for n in cited}
        before = await _call(session, "lookup_issue", {"number": cited[0], "tag": invocation["from_tag"]})

    pinned = re.search(r'"vllm==([\d.]+)"', script)
    assert pinned is not None
    assert invocation["from_tag"] == f"v{pinned.group(1)}" == "v0.27.1"
    expected = _breaking_at("v0.27.1", "v0.32.0", _serve_line(script))
    assert expected == {"--quantization bitsandbytes": "v0.28.0", "--calculate-kv-scales": "v0.28.0"}

    assert audit["ok"] is False and invocation["invalid"] is True
    assert audit["invalid_count"] == len(expected)
    assert {f["subject"]: f["changed_at"] for f in invocation["findings"] if f["severity"] == "breaks"} == expected
    assert {f["subject"]: f["changed_at"] for f in breaking} == expected
    for finding in breaking:
        assert finding["action"].strip()
        assert [g["version"] for g in finding["gates"]] == [finding["changed_at"]]
        assert {(e["tag"], e["path"], e["line"]) for e in finding["evidence"]} <= {
            ("v0.27.1", entry["provenance"]["path"], entry["provenance"]["line"])
            for kind in ("cli_flags", "quantization_methods", "kv_cache_dtypes")
            for entry in _bundled("v0.27.1")[kind]
        }

    # The bitsandbytes gate cites the source, not #43529 (no stored thread showed it merged); #49389 is cited.
    assert cited == [49389]
    gate_version = {_pr(c["label"]): f["changed_at"] for f in breaking for c in f["citations"] if _pr(c["label"])}
    for number, lookup in lookups.items():
        assert lookup["kind"] == "pr" and lookup["pull"]["merged"] is True
        assert lookup["pull"]["merge_commit_sha"] == upstream.merge_commits[number]
        assert (lookup["first_release"]["method"], lookup["first_release"]["basis"]) == ("git_ancestry", "proven")
        assert lookup["first_release"]["tag"] == gate_version[number] == UPSTREAM_MERGES[number][1]
        assert lookup["fixed_in_your_release"] == "yes"
    assert before["fixed_in_your_release"] == "no"


# (c) "is `--kv-cache-dtype nvfp4` usable on H200 at v0.31.0 and v0.32.0?" -> registry, grep, knowledge


async def test_nvfp4_kv_on_h200_is_listed_at_both_tags_but_only_v0_32_has_the_fa2_path_for_sm90(
    cache_with_trees: Path, hub: HubServer
) -> None:
    tags = ("v0.31.0", "v0.32.0")
    async with stdio_session(cache_with_trees, env={"HF_ENDPOINT": hub.endpoint}) as session:
        kinds = {
            t: await _call(session, "get_registry", {"kind": "kv_cache_dtypes", "tag": t, "contains": "nvfp4"})
            for t in tags
        }
        greps = {
            t: await _call(
                session,
                "grep_vllm_source",
                {"pattern": "nvfp4_fa2", "tag": t, "path_glob": "vllm/v1/attention/**", "fixed_string": True},
            )
            for t in tags
        }
        gate_fn = await _call(session, "find_symbol", {"name": "_nvfp4_kv_on_fa2", "tag": "v0.32.0"})
        where = gate_fn["definitions"][0]
        gate_src = await _call(
            session,
            "read_vllm_source",
            {"path": where["path"], "tag": "v0.32.0", "start_line": where["line"], "end_line": where["end_line"]},
        )
        old = await _call(
            session, "find_symbol", {"name": "FlashInferBackend.supports_kv_cache_dtype", "tag": "v0.31.0"}
        )
        old_where = old["definitions"][0]
        old_src = await _call(
            session,
            "read_vllm_source",
            {
                "path": old_where["path"],
                "tag": "v0.31.0",
                "start_line": old_where["line"],
                "end_line": old_where["end_line"],
            },
        )
        picks = {
            t: await _call(
                session,
                "pick_format",
                {"gpu": "h200", "model": LLAMA_70B, "num_gpus": 2, "tag": t, "priority": "memory"},
            )
            for t in tags
        }
        gates = await _call(
            session,
            "check_gates",
            {
                "from_tag": "v0.31.0",
                "to_tag": "v0.32.0",
                "serve_command": f"vllm serve {LLAMA_70B} --kv-cache-dtype nvfp4",
                "gpu": "h200",
            },
        )

    for t in tags:
        expected = {n: e["provenance"] for n, e in _names(t, "kv_cache_dtypes").items() if "nvfp4" in n}
        assert "nvfp4" in expected
        assert {e["name"]: e["provenance"] for e in kinds[t]["entries"]} == expected

    def text_hits(version: str) -> list[tuple[str, int]]:
        root = release_tree(version).root
        return sorted(
            (str(p.relative_to(root)), i)
            for p in (root / "vllm/v1/attention").rglob("*.py")
            for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
            if "nvfp4_fa2" in line
        )

    assert greps["v0.31.0"]["matches"] == [] and text_hits("0.31.0") == []
    new_hits = text_hits("0.32.0")
    assert new_hits and {path for path, _ in new_hits} == {FLASHINFER}
    assert sorted((m["path"], m["line"]) for m in greps["v0.32.0"]["matches"]) == new_hits

    # v0.32.0: NVFP4 KV takes FlashInfer's FA2 path on capability families that include SM90.
    node = _function_node("0.32.0", FLASHINFER, "_nvfp4_kv_on_fa2")
    assert (where["path"], where["line"], where["end_line"]) == (FLASHINFER, node.lineno, node.end_lineno)
    assert gate_src["text"] == "\n".join(_file_lines("0.32.0", FLASHINFER)[node.lineno - 1 : node.end_lineno])
    families = [c.value for c in ast.walk(node) if isinstance(c, ast.Constant) and isinstance(c.value, int)]
    assert H200_SM in families
    # v0.31.0: FlashInfer accepts an NVFP4 KV cache on capability family 100 only.
    old_node = _function_node("0.31.0", FLASHINFER, "FlashInferBackend.supports_kv_cache_dtype")
    assert (old_where["path"], old_where["line"]) == (FLASHINFER, old_node.lineno)
    assert "is_device_capability_family(100)" in old_src["text"] and "_nvfp4_kv_on_fa2" not in old_src["text"]

    # What the tools apply follows that source: at v0.31.0 no backend takes NVFP4 KV on SM90 (excluded, from the
    # source); at v0.32.0 FlashInfer does, through the FA2 path read above.
    assert all(o["kv_cache_dtype"]["name"] != "nvfp4" for o in picks["v0.31.0"]["options"])
    refused = [e for e in picks["v0.31.0"]["excluded"] if e["kv_cache_dtype"] == "nvfp4"]
    assert refused and all(e["basis"] == "source" and "No attention backend" in e["reason"] for e in refused)
    offered = [o for o in picks["v0.32.0"]["options"] if o["kv_cache_dtype"]["name"] == "nvfp4"]
    judged = [j for o in offered for j in o["judgements"] if j["subject"] == "--kv-cache-dtype nvfp4"]
    assert judged and {(j["verdict"], j["basis"], j["via"]) for j in judged} == {("yes", "source", "FLASHINFER")}
    assert any(e["path"] == FLASHINFER for j in judged for e in j["evidence"]) or judged[0]["evidence"]
    # check_gates: moving to v0.32.0 with NVFP4 KV breaks nothing; the v0.32.0 gate and registry entry back it.
    (finding,) = [f for f in gates["findings"] if f["subject"] == "--kv-cache-dtype nvfp4" and f["basis"] == "curated"]
    assert finding["severity"] != "breaks"
    assert "v0.32.0" in [g["version"] for g in finding["gates"]]
    nvfp4_at_32 = _names("v0.32.0", "kv_cache_dtypes")["nvfp4"]["provenance"]
    assert ("v0.32.0", "kv_cache_dtypes", nvfp4_at_32["path"], nvfp4_at_32["line"]) in [
        (e["tag"], e["kind"], e["path"], e["line"]) for e in finding["evidence"]
    ]


async def test_pick_format_at_v0_31_does_not_send_nvfp4_kv_on_h200_to_an_fa2_path_the_release_lacks(
    cache_with_trees: Path, hub: HubServer
) -> None:
    async with stdio_session(cache_with_trees, env={"HF_ENDPOINT": hub.endpoint}) as session:
        pick = await _call(
            session,
            "pick_format",
            {"gpu": "h200", "model": LLAMA_70B, "num_gpus": 2, "tag": "v0.31.0", "priority": "memory"},
        )
    reasons = [e["reason"] for e in pick["excluded"] if e["kv_cache_dtype"] == "nvfp4"]
    assert reasons and not any("FA2" in r for r in reasons)


# (d) "where is the FP8 min capability defined at v0.32.0?" -> registry, find_symbol, read


async def test_fp8_min_capability_is_found_and_read_at_the_line_ast_finds_with_the_registry_value(
    cache_with_trees: Path,
) -> None:
    async with stdio_session(cache_with_trees) as session:
        methods = await _call(
            session, "get_registry", {"kind": "quantization_methods", "tag": "v0.32.0", "contains": "fp8"}
        )
        (fp8,) = [e for e in methods["entries"] if e["name"] == "fp8"]
        symbol = await _call(
            session,
            "find_symbol",
            {"name": f"{fp8['details']['config_class']}.get_min_capability", "tag": "v0.32.0"},
        )
        (where,) = symbol["definitions"]
        read = await _call(
            session,
            "read_vllm_source",
            {"path": where["path"], "tag": "v0.32.0", "start_line": where["line"], "end_line": where["end_line"]},
        )

    bundled = _names("v0.32.0", "quantization_methods")["fp8"]
    assert (fp8["details"]["config_class"], where["path"]) == (bundled["config_class"], bundled["config_path"])
    node = _function_node("0.32.0", bundled["config_path"], "Fp8Config.get_min_capability")
    assert (where["line"], where["end_line"]) == (node.lineno, node.end_lineno)
    assert where["permalink"].endswith(f"/blob/v0.32.0/{bundled['config_path']}#L{node.lineno}")
    lines = _file_lines("0.32.0", bundled["config_path"])
    assert read["text"] == "\n".join(lines[node.lineno - 1 : node.end_lineno])
    (returned,) = [n for n in ast.walk(node) if isinstance(n, ast.Return)]
    assert isinstance(returned.value, ast.Constant) and returned.value.value == bundled["min_capability"]
    assert f"return {bundled['min_capability']}" in read["text"]
