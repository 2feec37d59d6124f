"""Every PR/issue the reference document cites is represented in the data, and none of its prose is copied."""

from __future__ import annotations

import re
from importlib import resources

import pytest
from support.paths import SHARED

from vllm_quant_mcp.knowledge.facts.knowledge_base import FILES, load_knowledge

REFERENCE = SHARED / "reference" / "vllm-quantization-skill.md"
RUN = 8  # words in a row that count as a copied sentence


@pytest.fixture(scope="module")
def reference() -> str:
    if not REFERENCE.is_file():
        pytest.skip(f"reference document not found at {REFERENCE} (it sits in ../shared beside the clone)")
    return REFERENCE.read_text(encoding="utf-8")


def _words(text: str) -> list[str]:
    """Lower-case words with links dropped: a shared citation URL is not copied prose."""
    return re.findall(r"[a-z0-9_.+-]+", re.sub(r"https?://\S+", " ", text).lower())


def _runs(words: list[str]) -> set[tuple[str, ...]]:
    return {tuple(words[i : i + RUN]) for i in range(len(words) - RUN + 1)}


def test_every_pr_and_issue_number_in_the_reference_is_cited_in_the_data(reference: str) -> None:
    numbers = {int(n) for n in re.findall(r"#(\d{4,6})\b", reference)}
    cited = set().union(*(fact.cites() for _, fact in load_knowledge().facts()))
    assert numbers, "no #NNNNN numbers found in the reference; has its format changed?"
    assert sorted(numbers - cited) == []


def test_no_run_of_eight_words_from_the_reference_appears_in_the_data(reference: str) -> None:
    folder = resources.files("vllm_quant_mcp.knowledge.facts.data")
    source = _runs(_words(reference))
    copied = {
        name: sorted(" ".join(run) for run in _runs(_words((folder / name).read_text(encoding="utf-8"))) & source)
        for name in FILES
    }
    assert {name: runs for name, runs in copied.items() if runs} == {}
