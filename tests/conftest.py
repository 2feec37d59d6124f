from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture
def anyio_backend() -> str:
    """Async tests run on asyncio, as the MCP SDK's stdio and HTTP clients do."""
    return "asyncio"
