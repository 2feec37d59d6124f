"""Responses kept on disk for revalidation and for answering when GitHub cannot be asked.

An entry is the decoded JSON, its ETag, the next-page URL and when GitHub last
confirmed it. Keys are the request path and query only: headers, and so the
token, never reach a key or a value. A rate-limit pause is kept here too, so a
second process (or the next tool call) does not knock on GitHub before the reset.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import diskcache
from pydantic import BaseModel

__all__ = ["CachedResponse", "ResponseCache"]

_PAUSE_KEY = "rate-limit-pause-until"


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


class ResponseCache:
    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._cache = diskcache.Cache(str(directory))

    def get(self, key: str) -> CachedResponse | None:
        raw = self._cache.get(key)
        if not isinstance(raw, str):
            return None
        try:
            return CachedResponse.model_validate_json(raw)
        except ValueError:
            return None

    def put(self, key: str, entry: CachedResponse) -> None:
        self._cache.set(key, entry.model_dump_json())

    def pause_until(self) -> float | None:
        value = self._cache.get(_PAUSE_KEY)
        return float(value) if isinstance(value, int | float) else None

    def pause(self, until: float, seconds: float) -> None:
        self._cache.set(_PAUSE_KEY, until, expire=max(seconds, 1.0))

    def close(self) -> None:
        self._cache.close()
