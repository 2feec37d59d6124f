"""What the server and CLI tests share: a cache holding the real v0.32.0 tree, prepared once per test module."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.releases import install_release_tree


@pytest.fixture(scope="module")
def cache_with_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    cache = tmp_path_factory.mktemp("cache")
    install_release_tree(cache, "0.32.0")
    return cache
