"""Strict edges, over a real MCP stdio session and the installed CLI: bounded, ASCII tags; a maxLength on every
string argument; errors that quote a short prefix; URL credentials in no answer, error, log or stored record.

Each test is named after the threat it blocks. The services are real: a git smart-HTTP server and
closed loopback ports, reached through URLs that carry `user:SECRET@`.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.types import LoggingMessageNotificationParams, TextContent
from support.cli import run_cli
from support.githttp import GitHttpServer
from support.loopback import closed_port
from support.mcp_session import SERVER_EXE, stdio_session
from support.releases import release_tree

from vllm_quant_mcp.knowledge.errors import UnsafeInputError
from vllm_quant_mcp.knowledge.registry.store import Store
from vllm_quant_mcp.knowledge.sources.git import check_remote
from vllm_quant_mcp.knowledge.tags import InvalidTagError

pytestmark = pytest.mark.anyio

ARABIC_INDIC = "\u0663.\u0662.\u0661"  # 3.2.1 in Arabic-Indic digits, which `\d` matches
HUGE_TAG = "v" + "9" * 100_000
SECRET = "SECRET-d41d8cd9"


def _text(result: Any) -> str:
    return " ".join(c.text for c in result.content if isinstance(c, TextContent))


def _files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*")) if root.exists() else []


# -- tags --------------------------------------------------------------------------------------------------


def test_an_arabic_indic_tag_is_refused_before_any_file_or_lock_is_created(tmp_path: Path) -> None:
    store = Store(tmp_path / "cache")
    with pytest.raises(InvalidTagError, match=r"expected the form v0\.32\.0"):
        store.ensure_tree(ARABIC_INDIC)
    with pytest.raises(InvalidTagError, match=r"expected the form v0\.32\.0"):
        store.load_registry(ARABIC_INDIC)
    with pytest.raises(InvalidTagError, match=r"expected the form v0\.32\.0"), store.lock(ARABIC_INDIC):
        pass
    assert _files(tmp_path / "cache") == []


def test_an_arabic_indic_tag_on_the_cli_is_refused_and_creates_no_file_in_the_cache(tmp_path: Path) -> None:
    done = run_cli("grep", "Fp8Config", "--tag", ARABIC_INDIC, cache=tmp_path)
    assert done.returncode == 2 and "not a vLLM release tag" in done.stderr
    assert [f for f in _files(tmp_path) if "\u0663" in f] == []


def test_a_100kb_tag_on_the_cli_is_refused_with_a_short_error(tmp_path: Path) -> None:
    done = run_cli("registry", "--tag", HUGE_TAG, cache=tmp_path)
    assert done.returncode == 2
    assert "32 characters" in done.stderr and len(done.stderr) < 800  # the usage line and the error, no echo


async def test_a_100kb_tag_over_mcp_is_refused_by_the_schema_and_the_error_is_short(tmp_path: Path) -> None:
    async with stdio_session(tmp_path) as session:
        for tool in ("get_registry", "grep_vllm_source", "diff_tags"):
            arguments = {"tag": HUGE_TAG, "pattern": "x"} if tool == "grep_vllm_source" else {"tag": HUGE_TAG}
            if tool == "diff_tags":
                arguments = {"from_tag": HUGE_TAG, "to_tag": "v0.32.0"}
            result = await session.call_tool(tool, arguments)
            assert result.is_error, tool
            assert "32 characters" in _text(result) and len(_text(result)) < 400, tool
    assert [f for f in _files(tmp_path) if "999" in f] == []


def _strings_without_bound(schema: Any, where: str) -> list[str]:
    """Every string in an input schema (properties, items, map keys and values, definitions) lacking maxLength."""
    if not isinstance(schema, dict):
        return []
    types = schema.get("type")
    missing = (
        [where]
        if (types == "string" or (isinstance(types, list) and "string" in types))
        and ("maxLength" not in schema and "enum" not in schema)
        else []
    )
    for key in ("items", "additionalProperties", "propertyNames"):
        missing += _strings_without_bound(schema.get(key), f"{where}.{key}")
    for key in ("properties", "$defs"):
        for name, sub in (schema.get(key) or {}).items():
            missing += _strings_without_bound(sub, f"{where}.{name}")
    return missing


async def test_every_string_argument_a_client_reads_has_a_max_length(tmp_path: Path) -> None:
    async with stdio_session(tmp_path) as session:
        tools = (await session.list_tools()).tools
    assert tools
    unbounded = [m for t in tools for m in _strings_without_bound(t.input_schema, t.name)]
    assert unbounded == []
    tags = {
        t.name: t.input_schema["properties"]["tag"]["maxLength"] for t in tools if "tag" in t.input_schema["properties"]
    }
    assert set(tags.values()) == {32} and len(tags) >= 8


# -- credentials in URLs -------------------------------------------------------------------------------------


def _secret_env(port: int) -> dict[str, str]:
    return {
        "VLLM_QUANT_MCP_INDEX_URL": f"http://user:{SECRET}@127.0.0.1:{port}/simple",
        "VLLM_QUANT_MCP_REMOTE": f"http://user:{SECRET}@127.0.0.1:{port}/vllm.git",
        "VLLM_QUANT_MCP_GITHUB_API": f"http://user:{SECRET}@127.0.0.1:{port}",
    }


@pytest.mark.filterwarnings("ignore:The logging capability is deprecated")
async def test_credentials_in_the_index_remote_and_github_urls_reach_no_mcp_client_or_server_log(
    tmp_path: Path,
) -> None:
    messages: list[str] = []

    async def on_log(params: LoggingMessageNotificationParams) -> None:
        messages.append(json.dumps(params.data))

    errlog = tmp_path / "server-stderr.txt"
    params = StdioServerParameters(
        command=SERVER_EXE,
        args=["serve"],
        env={
            "VLLM_QUANT_MCP_CACHE_DIR": str(tmp_path / "cache"),
            "PATH": os.environ["PATH"],
            **_secret_env(closed_port()),
        },
    )
    texts = []
    with open(errlog, "w", encoding="utf-8") as err:
        async with (
            stdio_client(params, errlog=err) as (read, write),
            ClientSession(read, write, logging_callback=on_log) as session,
        ):
            await session.initialize()
            await session.set_logging_level("debug")  # every progress message too
            for tool, arguments in (
                ("grep_vllm_source", {"pattern": "Fp8Config", "tag": "v0.32.0"}),
                ("read_vllm_source", {"path": "vllm/envs.py", "tag": "v0.32.0"}),
                ("lookup_issue", {"number": 38652}),
                ("search_issues", {"query": "fp8 kv"}),
            ):
                result = await session.call_tool(tool, arguments)
                texts.append(_text(result) + json.dumps(result.structured_content))
    seen = "\n".join([*texts, *messages, errlog.read_text(encoding="utf-8")])
    assert "unreachable" in seen or "could not" in seen  # the calls did reach the failing URLs
    assert "***@127.0.0.1" in seen
    assert SECRET not in seen
    assert not any(
        SECRET in p.read_text(encoding="utf-8", errors="replace") for p in (tmp_path / "cache").rglob("*.json")
    )


def test_credentials_in_the_index_remote_and_github_urls_reach_no_cli_output(tmp_path: Path) -> None:
    env = _secret_env(closed_port())
    remote = env["VLLM_QUANT_MCP_REMOTE"]
    runs = [
        run_cli("grep", "Fp8Config", "--tag", "v0.32.0", cache=tmp_path, **env),
        run_cli("refresh", "--tag", "v0.32.0", cache=tmp_path, **env),
        run_cli("issue", "38652", cache=tmp_path, **env),
        run_cli("refresh", "--tag", "v0.32.0", "--source", "git", "--remote", remote, cache=tmp_path),
    ]
    assert [r.returncode for r in runs[:2]] == [3, 3]
    seen = "\n".join(r.stdout + r.stderr for r in runs)
    assert "***@127.0.0.1" in seen
    assert SECRET not in seen


@pytest.fixture(scope="module")
def served_repo() -> Iterator[Path]:
    """A bare repository whose tag v0.6.3 holds the real 0.6.3 tree, under a folder GitHttpServer serves."""
    root = Path(tempfile.mkdtemp(prefix="served-"))
    work = root / "work"
    shutil.copytree(release_tree("0.6.3").root, work)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main"]
    subprocess.run([*git, "init", "-q", str(work)], check=True)
    subprocess.run([*git, "-C", str(work), "add", "-A"], check=True)
    subprocess.run([*git, "-C", str(work), "commit", "-qm", "0.6.3"], check=True)
    subprocess.run([*git, "-C", str(work), "tag", "v0.6.3"], check=True)
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(root / "served" / "vllm.git")], check=True)
    yield root / "served"
    shutil.rmtree(root, ignore_errors=True)


def test_a_remote_with_credentials_is_never_stored_in_the_registry_or_tree_record(
    tmp_path: Path, served_repo: Path
) -> None:
    with GitHttpServer(served_repo) as server:
        remote = server.base_url.replace("http://", f"http://user:{SECRET}@") + "/vllm.git"
        done = run_cli("refresh", "--tag", "v0.6.3", "--source", "git", "--remote", remote, "--json", cache=tmp_path)
    assert done.returncode == 0, done.stderr
    stored = [p for p in tmp_path.rglob("*") if p.is_file() and p.suffix in (".json", "") and "vllm.git" not in p.parts]
    registry = json.loads((tmp_path / "registries" / "v0.6.3.json").read_text(encoding="utf-8"))
    assert registry["source"]["origin"].startswith("http://***@127.0.0.1:")
    assert SECRET not in done.stdout + done.stderr
    assert not any(
        SECRET in p.read_text(encoding="utf-8", errors="replace") for p in stored if p.stat().st_size < 10**7
    )


# -- git remotes -----------------------------------------------------------------------------------------


def test_an_ipv6_remote_is_accepted_and_transport_helpers_are_still_refused() -> None:
    assert check_remote("https://[::1]:8080/x.git") == "https://[::1]:8080/x.git"
    assert check_remote("ssh://git@[2001:db8::1]:22/vllm.git") == "ssh://git@[2001:db8::1]:22/vllm.git"
    for helper in ("ext::sh -c touch% /tmp/pwned", "fd::3", "fd::3,4", "EXT::sh", "https::evil", "ext:sh"):
        with pytest.raises(UnsafeInputError, match="transport helper"):
            check_remote(helper)
