"""Shared set-up for the end-to-end scenarios: real release trees in one server cache, and a local hub.

Nothing here reaches the network: the trees come from real vLLM sdists already on disk
(tests/releases.py) and the model configs from tests/hubserver.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from support.hubserver import HubServer
from support.releases import install_release_tree


@pytest.fixture(scope="module")
def cache_with_trees(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A server cache holding the real v0.31.0 and v0.32.0 trees, installed the way `refresh --source DIR` does."""
    cache = tmp_path_factory.mktemp("cache")
    for version in ("0.31.0", "0.32.0"):
        install_release_tree(cache, version)
    return cache


@pytest.fixture(scope="session")
def hub() -> Iterator[HubServer]:
    with HubServer() as server:
        yield server
