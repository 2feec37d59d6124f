"""Responses kept on disk for revalidation and for answering when GitHub cannot be asked.

An entry is the decoded JSON, its ETag, the next-page URL and when GitHub last
confirmed it. Every key starts with the scope: the API base URL and who we are to
it (`anon`, or the first 16 hex digits of the token's sha256, never the token), so
two endpoints, or two tokens that see different things, never answer for each
other from one cache folder. A rate-limit pause is kept here too, per scope and
per rate-limit resource (`core`, `search`, ...), so a second process (or the next
tool call) does not knock on GitHub before the reset, and a spent search quota
does not stop issue lookups.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from ..healing import DiskCache

__all__ = ["CachedResponse", "ResponseCache", "scope_of"]


class CachedResponse(BaseModel):
    data: Any
    etag: str | None
    next_url: str | None
    confirmed_at: float
    ttl: float

    def age(self, now: float) -> float:
        return max(0.0, now - self.confirmed_at)

    def is_fresh(self, now: float) -> bool:
        return self.age(now) < self.ttl


def scope_of(api_url: str, token: str | None) -> str:
    """`<api url>|<token id>`: what a cached answer and a rate limit belong to; the token itself never appears."""
    who = "anon" if token is None else "token-" + hashlib.sha256(token.encode("utf-8")).hexdigest()[:16]
    return f"{api_url}|{who}"


class ResponseCache:
    def __init__(self, directory: Path, scope: str) -> None:
        self.directory = directory
        self.scope = scope
        self._cache = DiskCache(directory)  # a damaged database is moved aside and started afresh

    def get(self, key: str) -> CachedResponse | None:
        raw = self._cache.get(f"{self.scope}|{key}")
        if not isinstance(raw, str):
            return None
        try:
            return CachedResponse.model_validate_json(raw)
        except ValueError:
            return None

    def put(self, key: str, entry: CachedResponse) -> None:
        self._cache.set(f"{self.scope}|{key}", entry.model_dump_json())

    def pause_until(self, resource: str) -> float | None:
        value = self._cache.get(f"{self.scope}|pause|{resource}")
        return float(value) if isinstance(value, int | float) else None

    def pause(self, resource: str, until: float, seconds: float) -> None:
        self._cache.set(f"{self.scope}|pause|{resource}", until, expire=max(seconds, 1.0))

    def drain_notes(self) -> tuple[str, ...]:
        """Said once: that the cache was damaged and started afresh (for the next answer's notes)."""
        return self._cache.drain_notes()

    def close(self) -> None:
        self._cache.close()
