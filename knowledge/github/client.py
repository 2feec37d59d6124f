"""A small GitHub REST client: ETag revalidation, TTLs, pagination and rate limits, in front of a disk cache.

Every GET goes through the cache: a fresh entry answers without the network, a
stale one is revalidated with If-None-Match (a 304 costs no rate limit), and when
GitHub cannot answer (offline, timeout, 5xx, rate limited) the stale entry answers
with its age and a note. Only when there is no entry does a call fail, with
GitHubUnavailableError. Rate limits are honoured, never hammered: one retry, and
only when Retry-After asks for at most two seconds (and the lookup's deadline has
them); otherwise the pause until the reset is remembered (in the cache, so every
process sees it, per API endpoint, token and rate-limit resource) and no request
for that resource is sent before it ends. A lookup passes its Deadline to every
call: each request waits at most what is left of it, and after the first timeout
no call waits on the network again.

    GitHubUnavailableError (UnavailableError)   no answer from GitHub and nothing cached
    GitHubNotFoundError (NotFoundError)         GitHub answered 404/410 for that path

httpx exceptions stop here. The token lives in the client's default headers
only; messages, logs and cache keys carry the path, never a header.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any, Literal
from urllib.parse import urlencode

import httpx

from ..echo import redact
from ..errors import InternalError, InvalidInputError, NotFoundError, UnavailableError
from ..settings import settings
from .cache import CachedResponse, ResponseCache, scope_of
from .deadline import Deadline
from .settings import GitHubSettings

__all__ = ["Fetched", "Freshness", "GitHubClient", "GitHubNotFoundError", "GitHubUnavailableError"]

log = logging.getLogger(__name__)

Freshness = Literal["live", "revalidated", "cached"]
MAX_RETRY_AFTER = 2.0
_ORDER: dict[Freshness, int] = {"live": 0, "revalidated": 1, "cached": 2}


class GitHubUnavailableError(UnavailableError):
    """GitHub did not answer (offline, timeout, 5xx, rate limit) and nothing was cached for the request."""


class GitHubNotFoundError(NotFoundError):
    """GitHub answered that the path does not exist (wrong number, or a deleted or transferred item)."""


@dataclass(frozen=True)
class Fetched:
    """A decoded answer and how current it is: `age` is seconds since GitHub last confirmed it.

    `complete` is False when a paginated answer stopped before its last page (page limit, deadline, an error).
    """

    data: Any
    freshness: Freshness
    age: float = 0.0
    notes: tuple[str, ...] = field(default=())
    complete: bool = True

    @staticmethod
    def combine(parts: list[Fetched], data: Any) -> Fetched:
        """One answer from several pages: as fresh as its stalest page."""
        worst = max(parts, key=lambda p: _ORDER[p.freshness])
        notes = tuple(dict.fromkeys(n for p in parts for n in p.notes))
        complete = all(p.complete for p in parts)
        return Fetched(data, worst.freshness, max(p.age for p in parts), notes, complete)


class _Refused(InternalError):
    """GitHub answered, but not with the data: the note says why, for the cache fallback."""


class GitHubClient:
    def __init__(
        self,
        config: GitHubSettings,
        *,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.config = config
        token = config.token.get_secret_value() if config.token is not None else None
        self.cache = ResponseCache(config.cache_dir, scope_of(config.api_url, token))
        self._clock = clock
        self._sleep = sleep
        headers = {
            "Accept": "application/vnd.github+json",
            "X-GitHub-Api-Version": "2022-11-28",
            "User-Agent": "vllm-quant-mcp",
        }
        if token is not None:
            if not token.isprintable() or token != token.strip() or " " in token:
                raise InvalidInputError(
                    "GITHUB_TOKEN/GH_TOKEN holds whitespace or control characters; set it to the bare token."
                )
            headers["Authorization"] = f"Bearer {token}"
        self._http = httpx.Client(
            base_url=config.api_url, headers=headers, timeout=config.timeout, follow_redirects=True
        )

    def __repr__(self) -> str:
        return f"GitHubClient({redact(self.config.api_url)!r}, token={'set' if self.config.token else 'unset'})"

    def close(self) -> None:
        self._http.close()
        self.cache.close()

    def get(
        self,
        path: str,
        params: dict[str, str | int] | None = None,
        *,
        deadline: Deadline | None = None,
        ttl: float | None = None,
    ) -> Fetched:
        """One GET of `path` (e.g. /repos/o/r/issues/1), answered from cache whenever it may be.

        `ttl` overrides how long the answer is served as is (an immutable compare of a tag and a sha: forever).
        """
        return self._healed(self._get(_key(path, params), deadline, ttl)[0])

    def get_pages(
        self,
        path: str,
        params: dict[str, str | int] | None = None,
        max_pages: int = 10,
        *,
        deadline: Deadline | None = None,
    ) -> Fetched:
        """All pages of a list endpoint (up to max_pages), following Link rel="next".

        A page after the first that cannot be had ends the walk with a note and `complete=False`.
        """
        key: str | None = _key(path, params)
        parts: list[Fetched] = []
        items: list[Any] = []
        while key is not None and len(parts) < max_pages:
            try:
                fetched, key = self._get(key, deadline, None)
            except GitHubUnavailableError as exc:
                if not parts:
                    raise
                note = f"{path}: stopped after {len(parts)} pages: {exc}"
                parts.append(Fetched(None, "live", notes=(note,), complete=False))
                return Fetched.combine(parts, items)
            parts.append(fetched)
            items.extend(fetched.data if isinstance(fetched.data, list) else [])
        if key is not None:
            parts.append(Fetched(None, "live", notes=(f"{path}: stopped after {max_pages} pages.",), complete=False))
        return self._healed(Fetched.combine(parts, items))

    def _healed(self, fetched: Fetched) -> Fetched:
        """The answer with the note of a damaged cache moved aside on the way, if one was."""
        healed = self.cache.drain_notes()
        return replace(fetched, notes=(*healed, *fetched.notes)) if healed else fetched

    def _get(self, key: str, deadline: Deadline | None, ttl: float | None) -> tuple[Fetched, str | None]:
        now = self._clock()
        entry = self.cache.get(key)
        if entry is not None and entry.is_fresh(now):
            return Fetched(entry.data, "cached", entry.age(now)), entry.next_url
        try:
            stop = deadline.stop_reason() if deadline is not None else None
            if stop is not None:
                raise _Refused(stop)
            resource = _resource_of(key)
            pause = self.cache.pause_until(resource)
            if pause is not None and now < pause:
                raise _Refused(f"GitHub rate limit ({resource}): no requests until {_clock_text(pause)}")
            response = self._send(key, entry, deadline)
        except _Refused as refused:
            if entry is None:
                raise GitHubUnavailableError(f"{refused} and no cached answer for {_path_of(key)}.") from None
            note = f"{refused}; answered from the cache ({_age_text(entry.age(now))} old)."
            return Fetched(entry.data, "cached", entry.age(now), (note,)), entry.next_url
        if response.status_code == 304 and entry is not None:
            fresh = entry.model_copy(update={"confirmed_at": now})
            self.cache.put(key, fresh)
            return Fetched(entry.data, "revalidated"), entry.next_url
        data = response.json()
        next_url = _next_link(response, self.config.api_url)
        if ttl is None:
            closed = isinstance(data, dict) and data.get("state") == "closed"
            ttl = self.config.closed_ttl if closed else self.config.open_ttl
        etag = response.headers.get("ETag")
        self.cache.put(key, CachedResponse(data=data, etag=etag, next_url=next_url, confirmed_at=now, ttl=ttl))
        return Fetched(data, "live"), next_url

    def _send(
        self, key: str, entry: CachedResponse | None, deadline: Deadline | None, retried: bool = False
    ) -> httpx.Response:
        """The response with the data or a 304; anything else becomes _Refused (or not-found) with a note."""
        if settings().offline:  # a cached answer, however old, is used instead; without one, unavailable
            raise _Refused(f"offline: GitHub's answer for {_path_of(key)} is not cached")
        headers = {"If-None-Match": entry.etag} if entry is not None and entry.etag else {}
        timeout = self.config.timeout if deadline is None else deadline.timeout(self.config.timeout)
        try:
            response = self._http.get(key, headers=headers, timeout=timeout)
        except httpx.TimeoutException:
            why = f"GitHub did not answer {_path_of(key)} within {timeout:.3g} s"
            if deadline is not None:
                deadline.trip(why)
            raise _Refused(why) from None
        except httpx.HTTPError as exc:
            raise _Refused(f"GitHub unreachable at {redact(self.config.api_url)} ({type(exc).__name__})") from None
        log.debug("GET %s -> %s", _path_of(key), response.status_code)
        status = response.status_code
        if status == 304 and entry is not None:
            return response
        if status == 200:
            try:
                response.json()
            except ValueError:
                raise _Refused(f"GitHub answered {_path_of(key)} with something other than JSON") from None
            return response
        if status in (404, 410):
            raise GitHubNotFoundError(f"GitHub has nothing at {_path_of(key)} (HTTP {status}).")
        wait = self._rate_limit_wait(response)
        if wait is not None:
            room = deadline is None or wait < deadline.remaining()
            if not retried and response.headers.get("Retry-After") is not None and wait <= MAX_RETRY_AFTER and room:
                self._sleep(wait)
                return self._send(key, entry, deadline, retried=True)
            resource = response.headers.get("X-RateLimit-Resource") or _resource_of(key)
            until = self._clock() + wait
            self.cache.pause(resource, until, wait)
            raise _Refused(f"GitHub rate limit (HTTP {status}, {resource}) until {_clock_text(until)}")
        if status == 401:
            raise _Refused("GitHub rejected the token (HTTP 401); check GITHUB_TOKEN/GH_TOKEN or unset it")
        raise _Refused(f"GitHub answered {_path_of(key)} with HTTP {status}")

    def _rate_limit_wait(self, response: httpx.Response) -> float | None:
        """Seconds GitHub asks us to wait, or None when the response is not a rate limit."""
        if response.status_code not in (403, 429):
            return None
        retry_after = response.headers.get("Retry-After")
        if retry_after is not None and retry_after.strip().isdigit():
            return float(retry_after)
        reset = response.headers.get("X-RateLimit-Reset")
        if response.headers.get("X-RateLimit-Remaining") == "0" or response.status_code == 429:
            if reset is not None and reset.strip().isdigit():
                return max(0.0, float(reset) - self._clock())
            return 60.0
        return None


def _resource_of(key: str) -> str:
    """The rate-limit bucket GitHub counts a path against when its reply does not name one."""
    return "search" if key.startswith("/search/") else "core"


def _key(path: str, params: dict[str, str | int] | None) -> str:
    if not path.startswith("/") or "//" in path or "\\" in path:
        raise InternalError(f"GitHub API path {path!r} must start with a single '/'.")
    query = urlencode(sorted((k, str(v)) for k, v in (params or {}).items()))
    return f"{path}?{query}" if query else path


def _path_of(key: str) -> str:
    return key.partition("?")[0]


def _next_link(response: httpx.Response, base_url: str) -> str | None:
    """The next page as a path+query under the base URL; a link elsewhere is not followed (it would get the token)."""
    url = response.links.get("next", {}).get("url")
    if not url or not url.startswith(base_url + "/"):
        return None
    return url[len(base_url) :]


def _clock_text(when: float) -> str:
    return datetime.fromtimestamp(when, UTC).strftime("%H:%M:%S UTC")


def _age_text(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    if seconds < 172800:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.1f} days"
