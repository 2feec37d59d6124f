"""The three files a model's size and shape come from, read from the Hugging Face hub or a local directory.

    config.json                     architecture (required)
    model.safetensors.index.json    metadata.total_size: exact weight bytes (optional)
    /api/models/{repo}              safetensors.parameters: exact parameter count per dtype (optional)

The hub is reached with httpx (HF_ENDPOINT, HF_TOKEN, timeouts) behind a diskcache
under <cache>/hub: a fresh entry (younger than `max_age`) answers without the network,
and when the hub is unreachable any cached entry answers, with a note saying so.
HF_HUB_OFFLINE=1 never touches the network. The token goes into the Authorization
header only; it is never logged, cached or put in a message.

    InvalidModelRefError (InvalidInputError)   neither a repo id nor a directory
    ModelNotFoundError (NotFoundError)         the hub or directory has no config.json
    HubUnavailableError (UnavailableError)     the hub did not answer and nothing is cached
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

import diskcache
import httpx
from pydantic import BaseModel, ConfigDict

from vllm_quant_mcp.knowledge.errors import InvalidInputError, NotFoundError, UnavailableError
from vllm_quant_mcp.knowledge.settings import settings

__all__ = [
    "CONFIG",
    "DEFAULT_ENDPOINT",
    "INDEX",
    "HubClient",
    "HubUnavailableError",
    "InvalidModelRefError",
    "ModelFiles",
    "ModelNotFoundError",
    "is_repo_id",
    "read_local",
]

DEFAULT_ENDPOINT = "https://huggingface.co"
CONFIG = "config.json"
INDEX = "model.safetensors.index.json"
TIMEOUT = httpx.Timeout(10.0, connect=5.0)
MAX_AGE_S = 24 * 3600.0
_REPO_ID = re.compile(r"^[A-Za-z0-9][\w.-]{0,95}/[A-Za-z0-9][\w.-]{0,95}$")
_EXPLICIT_HINT = "or pass the model as explicit figures (params_b, layers, kv_heads, head_dim)"


class InvalidModelRefError(InvalidInputError):
    """Neither a Hugging Face repo id nor a model directory."""


class ModelNotFoundError(NotFoundError):
    """The hub or the directory has no config.json for the model."""


class HubUnavailableError(UnavailableError):
    """The hub did not answer and nothing is cached for the model."""


class ModelFiles(BaseModel):
    """The parsed files of one model and how they were obtained."""

    model_config = ConfigDict(frozen=True)

    ref: str
    origin: Literal["hub", "cache", "directory"]
    config: dict[str, Any]
    index: dict[str, Any] | None = None
    api: dict[str, Any] | None = None
    notes: list[str] = []


def is_repo_id(text: str) -> bool:
    """`org/name` as the hub spells it; never a path escape or a URL."""
    return bool(_REPO_ID.match(text)) and ".." not in text


def _load_json(text: str, where: str) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ModelNotFoundError(f"{where} is not valid JSON ({exc}); check the file or the repo id.") from exc
    if not isinstance(data, dict):
        raise ModelNotFoundError(f"{where} holds a JSON {type(data).__name__}, expected an object.")
    return data


def read_local(directory: Path) -> ModelFiles:
    """A model directory on disk: the same files the hub would serve (no API answer)."""
    config = directory / CONFIG
    if not config.is_file():
        raise ModelNotFoundError(f"{directory} has no {CONFIG}; point at the folder that holds the model's config.")
    index = directory / INDEX
    return ModelFiles(
        ref=str(directory),
        origin="directory",
        config=_load_json(config.read_text(encoding="utf-8"), str(config)),
        index=_load_json(index.read_text(encoding="utf-8"), str(index)) if index.is_file() else None,
    )


class HubClient:
    """Reads model files from one hub endpoint, through a cache."""

    def __init__(
        self,
        endpoint: str = DEFAULT_ENDPOINT,
        token: str | None = None,
        cache_dir: Path | None = None,
        offline: bool = False,
        max_age_s: float = MAX_AGE_S,
        timeout: httpx.Timeout = TIMEOUT,
    ) -> None:
        self.endpoint = endpoint.rstrip("/")
        self._token = token
        self.cache_dir = cache_dir or settings().cache_dir / "hub"
        self.offline = offline
        self.max_age_s = max_age_s
        self.timeout = timeout

    @classmethod
    def from_env(cls, environ: Mapping[str, str] = os.environ, cache_dir: Path | None = None) -> HubClient:
        return cls(
            endpoint=environ.get("HF_ENDPOINT") or DEFAULT_ENDPOINT,
            token=environ.get("HF_TOKEN") or None,
            cache_dir=cache_dir,
            offline=environ.get("HF_HUB_OFFLINE", "").lower() in ("1", "true", "yes"),
        )

    def __repr__(self) -> str:
        return (
            f"HubClient(endpoint={self.endpoint!r}, offline={self.offline}, token={'set' if self._token else 'unset'})"
        )

    def model_files(self, repo: str) -> ModelFiles:
        """config.json (required), the safetensors index and the API's parameter counts (both optional)."""
        if not is_repo_id(repo):
            raise InvalidModelRefError(
                f"{repo!r} is not a Hugging Face repo id (org/name) nor an existing directory; "
                f"give e.g. meta-llama/Llama-3.1-70B, a local model folder, {_EXPLICIT_HINT}."
            )
        notes: list[str] = []
        origins: set[str] = set()
        with diskcache.Cache(str(self.cache_dir)) as cache, self._client() as client:
            fetched = {
                name: self._fetch(cache, client, repo, path, required=name == CONFIG, notes=notes, origins=origins)
                for name, path in (
                    (CONFIG, f"/{repo}/resolve/main/{CONFIG}"),
                    (INDEX, f"/{repo}/resolve/main/{INDEX}"),
                    ("api", f"/api/models/{repo}"),
                )
            }
        config = fetched[CONFIG]
        assert config is not None
        return ModelFiles(
            ref=repo,
            origin="cache" if origins == {"cache"} or "stale" in origins else "hub",
            config=_load_json(config, f"{repo}/{CONFIG}"),
            index=_load_json(index, f"{repo}/{INDEX}") if (index := fetched[INDEX]) else None,
            api=_load_json(api, f"{self.endpoint}/api/models/{repo}") if (api := fetched["api"]) else None,
            notes=notes,
        )

    def _client(self) -> httpx.Client:
        headers = {"User-Agent": "vllm-quant-mcp"}
        if self._token:
            headers["Authorization"] = f"Bearer {self._token}"
        return httpx.Client(timeout=self.timeout, follow_redirects=True, headers=headers)

    def _fetch(
        self,
        cache: diskcache.Cache,
        client: httpx.Client,
        repo: str,
        path: str,
        required: bool,
        notes: list[str],
        origins: set[str],
    ) -> str | None:
        """The body at `path` ("" cached for a 404 of an optional file), fresh cache first, stale cache last."""
        key = f"{self.endpoint}{path}"
        cached: tuple[float, str | None] | None = cache.get(key)
        if cached is not None and (self.offline or time.time() - cached[0] < self.max_age_s):
            origins.add("cache")
            return self._require(cached[1], repo, path, required)
        if self.offline:
            if required:
                raise HubUnavailableError(
                    f"HF_HUB_OFFLINE is set and {repo} is not in the hub cache ({self.cache_dir}); "
                    f"unset it to fetch {path}, {_EXPLICIT_HINT}."
                )
            return None
        try:
            response = client.get(f"{self.endpoint}{path}")
        except httpx.HTTPError as exc:
            if cached is not None:
                origins.add("stale")
                notes.append(
                    f"The hub ({self.endpoint}) did not answer ({exc.__class__.__name__}); "
                    f"{path} came from the cache, fetched {time.strftime('%Y-%m-%d', time.gmtime(cached[0]))}."
                )
                return self._require(cached[1], repo, path, required)
            if not required:
                notes.append(f"The hub did not answer for {path}; figures that need it are estimates.")
                return None
            raise HubUnavailableError(
                f"The hub ({self.endpoint}) did not answer for {repo} ({exc.__class__.__name__}) and nothing is "
                f"cached; check the network or HF_ENDPOINT, {_EXPLICIT_HINT}."
            ) from exc
        origins.add("hub")
        if response.status_code in (401, 403):
            if required:
                raise ModelNotFoundError(
                    f"The hub refused {repo} (HTTP {response.status_code}): the repo is gated or private; "
                    f"accept its licence and set HF_TOKEN, {_EXPLICIT_HINT}."
                )
            return None
        if response.status_code == 404:
            cache.set(key, (time.time(), None))
            return self._require(None, repo, path, required)
        if response.status_code != 200:
            if required:
                raise HubUnavailableError(
                    f"The hub answered HTTP {response.status_code} for {path}; retry later, {_EXPLICIT_HINT}."
                )
            return None
        cache.set(key, (time.time(), response.text))
        return response.text

    @staticmethod
    def _require(body: str | None, repo: str, path: str, required: bool) -> str | None:
        if body is None and required:
            raise ModelNotFoundError(
                f"No model {repo!r} on the hub ({path} not found); check the spelling (org/name, case matters) "
                f"or set HF_TOKEN for a private repo, {_EXPLICIT_HINT}."
            )
        return body
