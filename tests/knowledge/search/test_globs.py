"""path_glob: rg -g semantics, linear time whatever the glob, and a clear error for a malformed one."""

from __future__ import annotations

import pytest

from vllm_quant_mcp.knowledge.search.globs import InvalidGlobError, select

PATHS = [
    "README.md",
    "csrc/quantization/fp8/kernel.cu",
    "tests/quantization/test_fp8.py",
    "vllm/config/cache.py",
    "vllm/config/model.py",
    "vllm/model_executor/layers/quantization/fp8.py",
    "vllm/model_executor/layers/quantization/utils/marlin.py",
]


def chosen(glob: str, paths: list[str] = PATHS) -> list[str]:
    encoded = [p.encode() for p in paths]
    offsets = [sum(len(e) + 1 for e in encoded[:i]) for i in range(len(encoded))]
    return [paths[i] for i in select(paths, b"\n".join(encoded), offsets, glob)]


@pytest.mark.parametrize(
    ("glob", "expected"),
    [
        ("*.py", [p for p in PATHS if p.endswith(".py")]),
        ("vllm/config", ["vllm/config/cache.py", "vllm/config/model.py"]),
        ("vllm/config/", ["vllm/config/cache.py", "vllm/config/model.py"]),
        ("vllm/*/cache.py", ["vllm/config/cache.py"]),
        ("vllm/**/fp8.py", ["vllm/model_executor/layers/quantization/fp8.py"]),
        ("**/quantization/**", [p for p in PATHS if "/quantization/" in p]),
        ("!vllm/**", ["README.md", "csrc/quantization/fp8/kernel.cu", "tests/quantization/test_fp8.py"]),
        ("vllm/config/[c]????.py", ["vllm/config/cache.py"]),
        ("vllm/config/[!c]*", ["vllm/config/model.py"]),
        ("*.cu", ["csrc/quantization/fp8/kernel.cu"]),
        ("vllm/**/**/marlin.py", ["vllm/model_executor/layers/quantization/utils/marlin.py"]),
    ],
)
def test_globs_select_what_rg_g_selects(glob: str, expected: list[str]) -> None:
    assert chosen(glob) == expected


@pytest.mark.timeout(30)
@pytest.mark.parametrize(
    ("glob", "expected"),
    [
        ("**" * 5000 + "X", ["deep/X"]),
        ("*" * 10_000 + "X", ["deep/X"]),
        ("**/" * 3000 + "X", ["deep/X"]),
        ("*a" * 300 + "X", []),
    ],
)
def test_a_glob_of_thousands_of_stars_cannot_stall_a_search(glob: str, expected: list[str]) -> None:
    """`'**' * 6 + 'X'` once took 43 s on one path (exponential backtracking in `re`); now it is one automaton."""
    paths = ["a" * 200 + "/" + "b" * 200 + f"/{i}.py" for i in range(2000)] + ["deep/X"]
    assert chosen(glob, paths) == expected


@pytest.mark.parametrize("glob", ["[z-a]*", "vllm/[9-0].py"])
def test_a_reversed_range_is_an_invalid_glob_error_naming_the_glob(glob: str) -> None:
    with pytest.raises(InvalidGlobError, match=r"reversed range") as caught:
        chosen(glob)
    assert glob in str(caught.value)
