"""The linear-time engines answer what the tool's documented dialect (the `regex` module, one line at a time) does,
including on non-ASCII lines where they read classes and case differently."""

from __future__ import annotations

import pytest
import regex

from vllm_quant_mcp.knowledge.search.grep import search
from vllm_quant_mcp.knowledge.search.loading import index_for
from vllm_quant_mcp.knowledge.sources.tree import SourceTree

LINES = [
    "KELVIN = '\u212a'  # the Kelvin sign folds to k",
    "long_s = '\u017f'",
    "caf\u00e9 = 1",
    "\u00e9t\u00e9 = word_\u00e9",
    "x\x1cy = 2  # an information separator, not \\s for regex",
    "  def forward(self, x):",
    "\tdef apply(self):",
    "return self.quant_config",
    "self.quant_config = cfg",
    "aaa bbb aaa",
    "fp8_e4m3 int8 nvfp4",
    "",
    "tail without newline",
]
PATTERNS = [
    ("k", True),
    ("kelvin", True),
    ("S", True),
    (r"\w+ = 1", False),
    (r"\bword_\w\b", False),
    (r"x\sy", False),
    (r"^\s*def ", False),
    (r"(?<=self\.)quant_config\b", False),
    (r"(a+) bbb \1", False),
    ("fp8|int8|nvfp4", False),
    (r"^$", False),
    (r"newline$", False),
    (r"[^a-z ]+", False),
    (r"caf.", False),
    (r"(?i:CAF\u00c9)", False),
    (r"\Aaaa", False),
]


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> SourceTree:
    root = tmp_path_factory.mktemp("dialect")
    (root / "a.py").write_text("\n".join(LINES), encoding="utf-8")
    return SourceTree(root, "v0.1.0")


@pytest.mark.parametrize(("pattern", "ignore_case"), PATTERNS)
def test_every_line_matches_exactly_when_the_regex_module_says_it_does(
    tree: SourceTree, pattern: str, ignore_case: bool
) -> None:
    compiled = regex.compile(pattern, regex.IGNORECASE if ignore_case else 0)
    expected = [n for n, line in enumerate(LINES, 1) if compiled.search(line)]
    found = search(index_for(tree), pattern, ignore_case=ignore_case, keep=100)
    assert [h.line for h in found.hits] == expected
