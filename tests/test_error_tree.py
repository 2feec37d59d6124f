"""Everything the package raises on purpose sits in one tree, under one of the four kinds the edges act on."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

from vllm_quant_mcp.knowledge.errors import (
    InternalError,
    InvalidInputError,
    NotFoundError,
    UnavailableError,
    VllmQuantMcpError,
)

KINDS = (InvalidInputError, NotFoundError, UnavailableError, InternalError)


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


@pytest.mark.parametrize("cls", _exception_classes(), ids=lambda c: f"{c.__module__}.{c.__qualname__}")
def test_every_exception_class_descends_from_exactly_one_kind(cls: type[BaseException]) -> None:
    if cls is VllmQuantMcpError or cls in KINDS:
        return
    assert sum(issubclass(cls, kind) for kind in KINDS) == 1, [k.__name__ for k in KINDS if issubclass(cls, k)]
