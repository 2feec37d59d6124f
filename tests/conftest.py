"""Suite-wide set-up: the support package on the path, a repeatable hypothesis profile, the `release` marker.

`pytest -m "not release"` is the fast loop: it skips every test that reads a real vLLM
release (downloaded once into the test cache, then unpacked and parsed), which is most
of the suite's time on a cold machine.
"""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import settings

sys.path.insert(0, str(Path(__file__).parent))

from support import releases

# The Hugging Face cache and token of whoever runs the tests stay out of them (and the tests out of that cache):
# set before huggingface_hub is imported, inherited by every CLI and server subprocess.
os.environ["HF_HOME"] = tempfile.mkdtemp(prefix="vllm-quant-mcp-tests-hf-")
atexit.register(shutil.rmtree, os.environ["HF_HOME"], True)
for _name in ("HF_TOKEN", "HF_HUB_CACHE", "HF_TOKEN_PATH", "HF_HUB_OFFLINE", "HF_ENDPOINT"):
    os.environ.pop(_name, None)
# No test reaches the real hub: a verdict that reads a repo id without a stand-in hub meets a closed port on
# loopback and says what it assumed (tests that need a hub start tests/support/hubserver.py and name it).
os.environ["HF_ENDPOINT"] = "http://127.0.0.1:9"

# CI and a contributor see the same examples: derandomized, no per-example deadline on a loaded machine.
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("dev", deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

RELEASE_FIXTURES = {"tree", "index", "cache_with_tree", "cache_with_trees"}
RELEASE_FUNCTIONS = {id(getattr(releases, name)) for name in releases.__all__}


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "release: reads real vLLM releases from the test cache (slow when cold)")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test that reads a real release: its module imports the release helpers, or it asks for a tree."""
    for item in items:
        module = getattr(item, "module", None)
        uses_helpers = module is not None and any(id(v) in RELEASE_FUNCTIONS for v in vars(module).values())
        if uses_helpers or RELEASE_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.release)


@pytest.fixture
def anyio_backend() -> str:
    """Async tests run on asyncio, as the MCP SDK's stdio and HTTP clients do."""
    return "asyncio"
