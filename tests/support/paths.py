"""Where the checkout and its neighbours are, for tests that read files the package does not ship."""

from __future__ import annotations

from pathlib import Path

__all__ = ["FIXTURES", "REPO", "SHARED"]

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures"
SHARED = REPO.parent / "shared"
