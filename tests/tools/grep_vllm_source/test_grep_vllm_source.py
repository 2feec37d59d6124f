from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import regex
from pydantic import ValidationError

from vllm_quant_mcp.knowledge.search.grep import InvalidPatternError, PatternTimeoutError
from vllm_quant_mcp.knowledge.search.index import SearchIndex
from vllm_quant_mcp.knowledge.search.loading import index_for
from vllm_quant_mcp.knowledge.sources.tree import SourceTree
from vllm_quant_mcp.tools.grep_vllm_source.models import GrepQuery
from vllm_quant_mcp.tools.grep_vllm_source.tool import grep_tree

QUANT_INIT = "vllm/model_executor/layers/quantization/__init__.py"


def brute_force(root: Path, pattern: str, flags: int = 0, prefix: str = "") -> set[tuple[str, int]]:
    """Every (path, line) whose line matches, by scanning every line of every file."""
    compiled = regex.compile(pattern, flags)
    found = set()
    for file in root.rglob("*"):
        rel = file.relative_to(root).as_posix()
        if not file.is_file() or not rel.startswith(prefix):
            continue
        lines = file.read_text(encoding="utf-8", errors="replace").split("\n")
        if lines[-1] == "":
            lines.pop()
        found |= {(rel, n) for n, line in enumerate(lines, 1) if compiled.search(line)}
    return found


def grep(tree: SourceTree, index: SearchIndex, **kwargs: object) -> set[tuple[str, int]]:
    result = grep_tree(tree, index, GrepQuery(max_results=500, **kwargs))  # type: ignore[arg-type]
    assert not result.truncated
    return {(m.path, m.line) for m in result.matches}


def test_grep_finds_the_quantization_methods_literal_definition(tree: SourceTree, index: SearchIndex) -> None:
    lines = (tree.root / QUANT_INIT).read_text(encoding="utf-8").split("\n")
    line = next(n for n, text in enumerate(lines, 1) if text.startswith("QuantizationMethods = Literal"))
    result = grep_tree(tree, index, GrepQuery(pattern="QuantizationMethods = Literal"))
    assert [(m.path, m.line) for m in result.matches] == [(QUANT_INIT, line)]
    assert result.tag == "v0.32.0"
    assert result.matches[0].text == lines[line - 1]
    assert result.matches[0].permalink == f"https://github.com/vllm-project/vllm/blob/v0.32.0/{QUANT_INIT}#L{line}"


@pytest.mark.parametrize(
    ("pattern", "flags"),
    [
        (r"def get_min_capability", 0),
        (r"VLLM_USE_[A-Z_]+", 0),
        (r"class \w+Config\(QuantizationConfig\)", 0),
        (r"nvfp4", regex.IGNORECASE),
        (r"(fp8|int8)_(e4m3|quant)", 0),
        (r"^\s*return \d+$", 0),
        (r"kv_cache_dtype\s*==\s*\"fp8", 0),
        (r"(?<=self\.)quant_config\b", 0),
        (r"\bis_device_capability\(\d+\)", 0),
        (r"[Mm]arlin\w*\s+=", 0),
    ],
)
def test_grep_match_set_equals_a_brute_force_scan_of_every_line(
    tree: SourceTree, index: SearchIndex, pattern: str, flags: int
) -> None:
    expected = brute_force(tree.root, pattern, flags)
    assert expected, "pattern should match something in 0.32.0"
    found = grep_tree(tree, index, GrepQuery(pattern=pattern, ignore_case=bool(flags), max_results=1))
    assert found.total_matches == len(expected)
    assert grep(tree, index, pattern=pattern, ignore_case=bool(flags)) == expected if len(expected) <= 500 else True


def test_grep_path_glob_keeps_only_files_below_the_directory(tree: SourceTree, index: SearchIndex) -> None:
    expected = brute_force(tree.root, "get_min_capability", prefix="vllm/model_executor/layers/quantization/")
    found = grep(tree, index, pattern="get_min_capability", path_glob="vllm/model_executor/layers/quantization/**")
    assert found == expected


def test_grep_fixed_string_matches_regex_characters_literally(tree: SourceTree, index: SearchIndex) -> None:
    expected = brute_force(tree.root, regex.escape("get_min_capability(cls)"))
    assert expected
    assert grep(tree, index, pattern="get_min_capability(cls)", fixed_string=True) == expected


def test_grep_context_returns_the_neighbouring_lines(tree: SourceTree, index: SearchIndex) -> None:
    lines = (tree.root / QUANT_INIT).read_text(encoding="utf-8").split("\n")
    line = next(n for n, text in enumerate(lines, 1) if text.startswith("QuantizationMethods = Literal"))
    match = grep_tree(tree, index, GrepQuery(pattern="QuantizationMethods = Literal", context=3)).matches[0]
    assert match.before == lines[line - 4 : line - 1]
    assert match.after == lines[line : line + 3]


def test_grep_caps_results_and_says_it_cut_them(tree: SourceTree, index: SearchIndex) -> None:
    result = grep_tree(tree, index, GrepQuery(pattern="^import ", max_results=5))
    assert len(result.matches) == 5
    assert result.truncated
    assert result.total_matches == len(brute_force(tree.root, "^import "))
    assert result.hint is not None and "path_glob" in result.hint


def test_grep_invalid_regex_names_the_problem_and_suggests_fixed_string(tree: SourceTree, index: SearchIndex) -> None:
    with pytest.raises(InvalidPatternError, match=r"fixed_string=true") as info:
        grep_tree(tree, index, GrepQuery(pattern="get_min_capability("))
    assert "get_min_capability(" in str(info.value)


@pytest.fixture
def planted(tree: SourceTree, tmp_path: Path) -> SourceTree:
    """vllm/config of 0.32.0 plus a line of 50,000 `a`s, on which backtracking engines blow up."""
    small = tmp_path / "tree"
    shutil.copytree(tree.root / "vllm" / "config", small / "vllm" / "config")
    (small / "vllm" / "planted.py").write_text("x = 1\n" + "a" * 50_000 + "b\n", encoding="utf-8")
    return SourceTree(small, tree.tag)


@pytest.mark.timeout(60)
def test_grep_nested_repetition_runs_in_linear_time_with_the_right_answer(planted: SourceTree) -> None:
    index = index_for(planted)
    nested = grep_tree(planted, index, GrepQuery(pattern="(a+)+$", max_results=500))
    plain = grep_tree(planted, index, GrepQuery(pattern="a$", max_results=500))
    assert [(m.path, m.line) for m in nested.matches] == [(m.path, m.line) for m in plain.matches]
    assert ("vllm/planted.py", 2) not in {(m.path, m.line) for m in nested.matches}


@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    ("pattern", "plain"), [("(a|a)*b$", "b$"), ("(a|aa)+c", "ac"), ("(?:a*)*c", "c"), ("(a?){25}a{25}c", "a{25}c")]
)
def test_grep_overlapping_alternations_run_in_linear_time_with_the_right_answer(
    planted: SourceTree, pattern: str, plain: str
) -> None:
    """Each pattern backtracks exponentially on the planted line of 50,000 `a`s in a backtracking engine."""
    index = index_for(planted)
    found = grep_tree(planted, index, GrepQuery(pattern=pattern, max_results=500))
    same = grep_tree(planted, index, GrepQuery(pattern=plain, max_results=500))
    assert [(m.path, m.line) for m in found.matches] == [(m.path, m.line) for m in same.matches]
    assert (pattern != "(a|a)*b$") or ("vllm/planted.py", 2) in {(m.path, m.line) for m in found.matches}


@pytest.mark.timeout(60)
def test_grep_a_huge_alternation_is_one_automaton_with_the_right_answer(planted: SourceTree) -> None:
    words = [f"zz{i:03d}" for i in range(150)] + ["aab"]
    pattern = "(?:" + "|".join(words) + ")"
    assert len(pattern) <= 1000
    found = grep_tree(planted, index_for(planted), GrepQuery(pattern=pattern))
    assert [(m.path, m.line) for m in found.matches] == [("vllm/planted.py", 2)]


@pytest.mark.timeout(60)
def test_grep_catastrophic_pattern_only_regex_can_run_raises_instead_of_hanging(planted: SourceTree) -> None:
    with pytest.raises(PatternTimeoutError, match=r"\(a\+\)\+\(\?=c\)"):
        grep_tree(planted, index_for(planted), GrepQuery(pattern="(a+)+(?=c)", path_glob="vllm/planted.py"))


def test_grep_catastrophic_line_after_a_page_of_hits_answers_that_page_as_a_lower_bound(planted: SourceTree) -> None:
    found = grep_tree(planted, index_for(planted), GrepQuery(pattern="(a+)+(?=c)", max_results=5))
    assert len(found.matches) == 5 and not found.counted_all


@pytest.mark.parametrize(
    "bad",
    [
        {"pattern": ""},
        {"pattern": "x" * 1001},
        {"pattern": "x", "context": 11},
        {"pattern": "x", "max_results": 0},
        {"pattern": "x", "max_results": 501},
        {"pattern": "x", "unknown": True},
    ],
)
def test_grep_query_rejects_out_of_bounds_input(bad: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        GrepQuery(**bad)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("pattern", "fixed", "message"),
    [("a\x00b", True, "NUL"), ("def\nclass", False, "one line"), (r"foo\nbar", False, "one line")],
)
def test_grep_query_refuses_patterns_that_could_never_match_one_line(pattern: str, fixed: bool, message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        GrepQuery(pattern=pattern, fixed_string=fixed)


def test_grep_query_accepts_a_literal_backslash_n_as_fixed_text() -> None:
    assert GrepQuery(pattern=r'"\n".join', fixed_string=True).pattern == r'"\n".join'


def test_grep_hit_deep_in_a_minified_asset_line_is_clipped_around_the_match_saying_so(tmp_path: Path) -> None:
    small = tmp_path / "tree"
    (small / "vllm" / "assets").mkdir(parents=True)
    (small / "vllm" / "__init__.py").write_text("", encoding="utf-8")
    line = "var a=1;" * 150_000 + "quantizeNvfp4()" + "var b=2;" * 40_000  # 1.5 MB on one line, as a bundle is
    (small / "vllm" / "assets" / "app.min.js").write_text(line + "\n", encoding="utf-8")
    planted = SourceTree(small, "v0.32.0")
    (match,) = grep_tree(planted, index_for(planted), GrepQuery(pattern="quantizeNvfp4", fixed_string=True)).matches
    assert len(match.text) < 1_200 and "quantizeNvfp4()" in match.text
    begin = 1_200_000 - (1_000 - len("quantizeNvfp4")) // 2  # the window of 1,000 characters centred on the match
    assert match.text.startswith(f"[clipped: {begin} characters before, match at 1200000]")
    assert match.text.endswith(f"[{len(line) - begin - 1_000} more characters]")
