"""`/matrix/<tag>` on a real `serve --transport http` process, read by real Chromium and a real MCP client.

The cell the page shows is held against what the `pick_format` tool answers over MCP from the same
server; the diff page against the two single-tag pages. A screenshot of each page is kept in
`test-artefacts/matrix/` at the repository root (VLLM_QUANT_MCP_TEST_ARTEFACTS moves it). Where
Chromium is missing the browser tests skip locally with how to install it, and fail in CI
(`.ci/run` installs it first).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from support.chromium import CHROMIUM, INSTALL_HINT, Browser, Tab, chromium
from support.cli import run_cli
from support.http_server import HttpServer, http_server, http_session

pytestmark = pytest.mark.anyio
TOKEN = "matrix-token-51c2"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
ARTEFACTS = Path(os.environ.get("VLLM_QUANT_MCP_TEST_ARTEFACTS", Path(__file__).parents[2] / "test-artefacts"))
DENSE_70B = {"params_b": 70.6, "layers": 80, "kv_heads": 8, "head_dim": 128}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpServer]:
    with http_server(tmp_path_factory.mktemp("cache"), "--token", TOKEN) as running:
        yield running


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if shutil.which(CHROMIUM) is None:
        if os.environ.get("CI"):
            pytest.fail(f"CI must run the browser tests: {INSTALL_HINT}")
        pytest.skip(INSTALL_HINT)
    with chromium() as running:
        yield running


def base(server: HttpServer) -> str:
    return f"http://127.0.0.1:{server.port}"


def cell_text(tab: Tab, table: str, kv: str, gpu: str) -> dict[str, str]:
    """What the browser shows in a cell, by what it is about (not by position)."""
    script = f"""(() => {{
      const td = [...document.querySelectorAll('#{table} tr[data-kv="{kv}"] td')]
        .find(c => c.dataset.gpus.split(' ').includes('{gpu}'));
      const label = td.querySelector('.label'), was = td.querySelector('del');
      return {{label: label.innerText, verdict: td.dataset.verdict, basis: td.dataset.basis,
               colour: getComputedStyle(td).backgroundColor, changed: td.classList.contains('changed'),
               before: was ? was.innerText : '', title: td.title}};
    }})()"""
    return dict(tab.eval(script))


def test_the_page_asks_for_the_token_mcp_asks_for(server: HttpServer) -> None:
    assert httpx.get(f"{base(server)}/matrix/v0.32.0", timeout=60).status_code == 401
    page = httpx.get(f"{base(server)}/matrix/v0.32.0", headers=AUTH, timeout=60)
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "public" in page.headers["cache-control"]


def test_an_unknown_tag_is_a_404_naming_the_nearest_and_a_bad_path_a_400_saying_the_form(server: HttpServer) -> None:
    missing = httpx.get(f"{base(server)}/matrix/v0.99.0", headers=AUTH, timeout=60)
    assert missing.status_code == 404 and "v0.33.0" in missing.text
    bad = httpx.get(f"{base(server)}/matrix/v0.31.0...v0.32.0...v0.33.0", headers=AUTH, timeout=60)
    assert bad.status_code == 400 and "/matrix/<old>...<new>" in bad.text
    assert httpx.get(f"{base(server)}/matrix/-rf", headers=AUTH, timeout=60).status_code == 400


def test_the_markdown_form_is_what_the_cli_prints(server: HttpServer, tmp_path: Path) -> None:
    served = httpx.get(f"{base(server)}/matrix/v0.31.0...v0.32.0?format=markdown", headers=AUTH, timeout=60)
    printed = run_cli("matrix", "v0.31.0", "v0.32.0", cache=tmp_path)
    assert printed.returncode == 0, printed.stderr
    assert served.text == printed.stdout


async def test_a_cell_in_the_browser_shows_the_backend_the_pick_tool_names(
    server: HttpServer, browser: Browser
) -> None:
    async with http_session(server.url, TOKEN) as session:
        picked = await session.call_tool(
            "pick_format", {"gpu": "h200", "model_figures": DENSE_70B, "num_gpus": 2, "tag": "v0.32.0"}
        )
    assert picked.structured_content is not None
    top = picked.structured_content["options"][0]
    kv = top["kv_cache_dtype"]["name"]
    judged = next(j for j in top["judgements"] if j["subject"] == f"--kv-cache-dtype {kv}")

    tab = browser.tab(AUTH)
    assert tab.open(f"{base(server)}/matrix/v0.32.0") == 200
    shown = cell_text(tab, "attention-dense", kv, "h200")
    assert (shown["label"], shown["verdict"], shown["basis"]) == (judged["via"], judged["verdict"], judged["basis"])
    assert judged["evidence"][-1]["path"] in shown["title"]  # the deciding line, on hover
    assert shown["colour"] != cell_text(tab, "attention-mla", "fp8_e5m2", "h200")["colour"]  # yes and no differ
    assert tab.requests() == [f"{base(server)}/matrix/v0.32.0"]  # nothing fetched beyond the page
    tab.eval(f"document.querySelector('#attention-dense tr[data-kv=\"{kv}\"] td').click()")
    detail = tab.eval("document.getElementById('detail').hidden ? '' : document.getElementById('detail').innerHTML")
    assert judged["evidence"][-1]["permalink"] in detail.replace("&amp;", "&")
    print(tab.screenshot(ARTEFACTS / "matrix" / "v0.32.0.png"))


def test_the_diff_page_in_the_browser_marks_nvfp4_kv_gained_on_hopper(server: HttpServer, browser: Browser) -> None:
    tab = browser.tab(AUTH)
    tab.open(f"{base(server)}/matrix/v0.31.0")
    before = cell_text(tab, "attention-dense", "nvfp4", "h200")
    tab.open(f"{base(server)}/matrix/v0.32.0")
    after = cell_text(tab, "attention-dense", "nvfp4", "h200")
    assert tab.open(f"{base(server)}/matrix/v0.31.0...v0.32.0") == 200
    diff = cell_text(tab, "attention-dense", "nvfp4", "h200")
    assert (before["verdict"], after["verdict"]) == ("no", "yes")
    assert diff["changed"] and (diff["before"], diff["label"]) == (before["label"], after["label"])
    assert not cell_text(tab, "attention-dense", "auto", "h200")["changed"]
    count = tab.eval("document.querySelectorAll('td.changed').length")
    assert tab.eval("document.querySelector('#changed strong').innerText") == str(count)
    print(tab.screenshot(ARTEFACTS / "matrix" / "v0.31.0...v0.32.0.png"))


def test_the_page_the_cli_writes_opens_from_disk_with_nothing_fetched(browser: Browser, tmp_path: Path) -> None:
    out = tmp_path / "matrix.html"
    done = run_cli("matrix", "v0.32.0", "--format", "html", "-o", str(out), cache=tmp_path / "cache")
    assert done.returncode == 0, done.stderr
    tab = browser.tab()
    tab.open(out.as_uri())
    assert tab.requests() == [out.as_uri()]
    assert tab.eval("document.querySelectorAll('section table').length") == 2
    assert cell_text(tab, "attention-dense", "fp8_e5m2", "h100")["label"]
