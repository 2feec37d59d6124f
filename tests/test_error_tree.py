"""Everything the package raises on purpose sits in one tree, under one of the four kinds the edges act on.

The one other kind of exception class is a control-flow signal (an interpreted `return`, a budget spent, a
pattern the linear engines refuse): not an error, so outside the tree, and kept where it is defined. It is
caught inside its own package and named by no module outside it, so no caller can meet it.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from pathlib import Path

import pytest

from vllm_quant_mcp.knowledge.errors import (
    InternalError,
    InvalidInputError,
    NotFoundError,
    UnavailableError,
    VllmQuantMcpError,
)

KINDS = (InvalidInputError, NotFoundError, UnavailableError, InternalError)
ROOT = Path(__file__).resolve().parents[1]
SOURCES = [p for top in ("knowledge", "tools", "server") for p in sorted((ROOT / top).rglob("*.py"))]


def _exception_classes() -> list[type[BaseException]]:
    found = []
    for top in ("knowledge", "tools", "server"):
        package = importlib.import_module(f"vllm_quant_mcp.{top}")
        for info in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
            module = importlib.import_module(info.name)
            for _, obj in inspect.getmembers(module, inspect.isclass):
                if issubclass(obj, BaseException) and obj.__module__ == module.__name__:
                    found.append(obj)
    return found


def test_the_walk_finds_the_errors_of_every_layer() -> None:
    modules = {c.__module__.split(".")[1] for c in _exception_classes()}
    assert modules == {"knowledge", "tools"}  # server/ defines none: it only translates
    assert len(_exception_classes()) > 20


_ERRORS = [c for c in _exception_classes() if issubclass(c, VllmQuantMcpError)]
_SIGNALS = [c for c in _exception_classes() if not issubclass(c, VllmQuantMcpError)]


@pytest.mark.parametrize("cls", _ERRORS, ids=lambda c: f"{c.__module__}.{c.__qualname__}")
def test_every_error_class_descends_from_exactly_one_kind(cls: type[BaseException]) -> None:
    if cls is VllmQuantMcpError or cls in KINDS:
        return
    assert sum(issubclass(cls, kind) for kind in KINDS) == 1, [k.__name__ for k in KINDS if issubclass(cls, k)]


def test_only_the_engine_the_constructor_walk_and_the_search_have_control_flow_signals() -> None:
    assert {c.__module__.rsplit(".", 1)[0] for c in _SIGNALS} == {
        "vllm_quant_mcp.knowledge.extract.engine",
        "vllm_quant_mcp.knowledge.extract.attention",
        "vllm_quant_mcp.knowledge.search",
    }


@pytest.mark.parametrize("cls", _SIGNALS, ids=lambda c: f"{c.__module__}.{c.__qualname__}")
def test_a_control_flow_signal_is_caught_inside_its_package_and_named_nowhere_else(cls: type[BaseException]) -> None:
    home = Path(inspect.getfile(cls)).parent
    name = re.compile(rf"\b{re.escape(cls.__name__)}\b")
    naming = [p for p in SOURCES if name.search(p.read_text(encoding="utf-8"))]
    assert [p for p in naming if home not in p.parents] == []
    caught = re.compile(rf"except\b[^:\n]*\b{re.escape(cls.__name__)}\b|suppress\([^)]*\b{re.escape(cls.__name__)}\b")
    assert any(caught.search(p.read_text(encoding="utf-8")) for p in naming), f"{cls.__name__} is never caught"
