"""The three files a model's size and shape come from, read from the Hugging Face hub or a local directory.

    config.json                     architecture (required)
    model.safetensors.index.json    metadata.total_size: exact weight bytes (optional)
    /api/models/{repo}              safetensors.parameters: exact parameter count per dtype (optional)

The two files go through `huggingface_hub`, so they follow the ecosystem's conventions:
the token saved by `hf auth login` (or HF_TOKEN), HF_ENDPOINT, HF_HOME and its hub cache
(a config vLLM or transformers already downloaded answers here too, and one read here is
there for them), HF_HUB_OFFLINE. The API answer is not a file of the repo, so it is kept
in a small diskcache under <cache>/hub, used when the hub is down or HF_HUB_OFFLINE is
set. That request goes first and tells whether the hub answers: when it does not, the
files are read from the local cache only, with a note, instead of each waiting out its own
timeout; when it refuses the repo (gated, no token), files already in the local cache
still answer, with a note. The token goes into the Authorization header only; it is
never logged, cached or put in a message.

    InvalidModelRefError (InvalidInputError)   neither a repo id nor a directory
    ModelNotFoundError (NotFoundError)         the hub or directory has no config.json, or refuses a gated repo
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

import httpx
from pydantic import BaseModel, ConfigDict

from vllm_quant_mcp.knowledge.bounded import read_bounded
from vllm_quant_mcp.knowledge.echo import clip, redact
from vllm_quant_mcp.knowledge.errors import InvalidInputError, NotFoundError, UnavailableError
from vllm_quant_mcp.knowledge.healing import DiskCache
from vllm_quant_mcp.knowledge.settings import settings

__all__ = [
    "CONFIG",
    "DEFAULT_ENDPOINT",
    "INDEX",
    "MAX_MODEL_FILE_BYTES",
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
_REPO_ID = re.compile(r"^[A-Za-z0-9][\w.-]{0,95}/[A-Za-z0-9][\w.-]{0,95}$")
# The largest safetensors index (a ~1T-parameter MoE) is ~10 MB; a config.json a few KB. Read by bytes, not stat.
MAX_MODEL_FILE_BYTES = 64_000_000
_EXPLICIT_HINT = "or pass the model as explicit figures (params_b, layers, kv_heads, head_dim)"
ApiAnswer = Literal["answered", "refused", "unreachable", "offline"]


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
    return bool(_REPO_ID.fullmatch(text)) and ".." not in text  # fullmatch: `$` also matches before a final newline


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
    if not config.exists():
        raise ModelNotFoundError(f"{directory} has no {CONFIG}; point at the folder that holds the model's config.")
    index = directory / INDEX
    return ModelFiles(
        ref=str(directory),
        origin="directory",
        config=_load_json(_model_file(config), str(config)),
        index=_load_json(_model_file(index), str(index)) if index.exists() else None,
    )


def _model_file(path: Path) -> str:
    """A model file as text, at most MAX_MODEL_FILE_BYTES read (a FIFO or device named config.json is refused)."""
    data = read_bounded(path, MAX_MODEL_FILE_BYTES, f"point at a model folder whose {path.name} is a JSON file")
    return data.decode("utf-8", errors="replace")


class HubClient:
    """Reads model files from one hub endpoint: files through the Hugging Face cache, the API through ours."""

    def __init__(
        self,
        endpoint: str = DEFAULT_ENDPOINT,
        token: str | None = None,
        cache_dir: Path | None = None,
        offline: bool = False,
        timeout: httpx.Timeout = TIMEOUT,
        hf_cache: Path | None = None,
    ) -> None:
        self.endpoint = endpoint.rstrip("/")
        self._token = token
        self.cache_dir = cache_dir or settings().state_dir / "hub"
        self.hf_cache = hf_cache  # None: huggingface_hub's own (HF_HUB_CACHE, else HF_HOME/hub)
        self.offline = offline
        self.timeout = timeout

    @classmethod
    def from_env(
        cls, environ: Mapping[str, str] = os.environ, cache_dir: Path | None = None, hf_cache: Path | None = None
    ) -> HubClient:
        """HF_ENDPOINT, HF_TOKEN and HF_HUB_OFFLINE from `environ`; with no HF_TOKEN, huggingface_hub finds the
        token `hf auth login` saved (HF_TOKEN_PATH, else HF_HOME/token)."""
        return cls(
            endpoint=environ.get("HF_ENDPOINT") or DEFAULT_ENDPOINT,
            token=environ.get("HF_TOKEN") or None,
            cache_dir=cache_dir,
            offline=environ.get("HF_HUB_OFFLINE", "").lower() in ("1", "true", "yes", "on"),
            hf_cache=hf_cache,
        )

    def __repr__(self) -> str:
        token = "set" if self._token else "unset"
        return f"HubClient(endpoint={redact(self.endpoint)!r}, offline={self.offline}, token={token})"

    def model_files(self, repo: str) -> ModelFiles:
        """config.json (required), the safetensors index and the API's parameter counts (both optional)."""
        if not is_repo_id(repo):
            raise InvalidModelRefError(
                f"{clip(repo)} is not a Hugging Face repo id (org/name) nor an existing directory; "
                f"give e.g. meta-llama/Llama-3.1-70B, a local model folder, {_EXPLICIT_HINT}."
            )
        notes: list[str] = []
        origins: set[str] = set()
        api, answer = self._api(repo, notes, origins)
        local_only = self.offline or answer == "unreachable"
        config = self._file(repo, CONFIG, True, local_only, origins)
        assert config is not None
        index = self._file(repo, INDEX, False, local_only, origins)
        if answer == "refused":
            origins.discard("hub")
            notes.append(
                f"The hub refused {repo} (gated or private, and no token it accepts); its files came from the local "
                "Hugging Face cache."
            )
        return ModelFiles(
            ref=repo,
            origin="cache" if "hub" not in origins else "hub",
            config=_load_json(config, f"{repo}/{CONFIG}"),
            index=_load_json(index, f"{repo}/{INDEX}") if index else None,
            api=_load_json(api, f"{self.endpoint}/api/models/{repo}") if api else None,
            notes=notes,
        )

    # -- the repo's files, through huggingface_hub and its cache ----------------------------------------------

    def _file(self, repo: str, name: str, required: bool, local_only: bool, origins: set[str]) -> str | None:
        from huggingface_hub import hf_hub_download
        from huggingface_hub.errors import (
            EntryNotFoundError,
            GatedRepoError,
            HfHubHTTPError,
            LocalEntryNotFoundError,
            RepositoryNotFoundError,
        )
        from huggingface_hub.utils.tqdm import disable_progress_bars

        disable_progress_bars()  # stderr belongs to the CLI's progress and the MCP stdio logs
        try:
            path = hf_hub_download(
                repo,
                name,
                endpoint=self.endpoint,
                token=self._token,
                cache_dir=self.hf_cache,
                local_files_only=local_only,
                etag_timeout=self.timeout.connect or 5.0,
            )
        except LocalEntryNotFoundError as exc:
            if not required:
                return None
            if self.offline:
                raise HubUnavailableError(
                    f"HF_HUB_OFFLINE is set and {name} of {repo} is not in the Hugging Face cache; unset it to "
                    f"fetch it, {_EXPLICIT_HINT}."
                ) from exc
            raise HubUnavailableError(
                f"The hub ({redact(self.endpoint)}) did not answer for {repo} and nothing is cached; check the "
                f"network or HF_ENDPOINT, {_EXPLICIT_HINT}."
            ) from exc
        except (GatedRepoError, RepositoryNotFoundError) as exc:  # nothing cached, or the library would have used it
            if not required:
                return None
            if isinstance(exc, GatedRepoError):
                raise ModelNotFoundError(
                    f"The hub refused {repo} (HTTP {exc.response.status_code}): the repo is gated or private; "
                    f"accept its licence, then run `hf auth login` or set HF_TOKEN, {_EXPLICIT_HINT}."
                ) from exc
            raise ModelNotFoundError(
                f"No model {clip(repo)} on the hub; check the spelling (org/name, case matters) or log in "
                f"(`hf auth login` or HF_TOKEN) for a private repo, {_EXPLICIT_HINT}."
            ) from exc
        except EntryNotFoundError as exc:
            if required:
                raise ModelNotFoundError(
                    f"{repo} has no {name} on the hub; check the repo id, or point at a local model folder, "
                    f"{_EXPLICIT_HINT}."
                ) from exc
            return None
        except HfHubHTTPError as exc:
            if required:
                raise HubUnavailableError(
                    f"The hub answered HTTP {exc.response.status_code} for {name} of {repo}; retry later, "
                    f"{_EXPLICIT_HINT}."
                ) from exc
            return None
        origins.add("cache" if local_only else "hub")
        return _model_file(Path(str(path)))

    # -- the API answer, through our cache ------------------------------------------------------------------

    def _api(self, repo: str, notes: list[str], origins: set[str]) -> tuple[str | None, ApiAnswer]:
        """The API's JSON for the repo (None when there is none) and how the hub answered."""
        from huggingface_hub import get_token

        key = f"{self.endpoint}/api/models/{repo}"
        with DiskCache(self.cache_dir) as cache:  # a damaged database is moved aside and started afresh
            cached: tuple[float, str | None] | None = cache.get(key)
            notes.extend(cache.drain_notes())
            if self.offline:
                return (cached[1] if cached else None), "offline"
            token = self._token or get_token()  # HF_TOKEN, else the token `hf auth login` saved
            headers = {"User-Agent": "vllm-quant-mcp", **({"Authorization": f"Bearer {token}"} if token else {})}
            try:
                with httpx.Client(timeout=self.timeout, follow_redirects=True, headers=headers) as client:
                    response = client.get(key)
            except httpx.HTTPError as exc:
                fetched = f" (parameter counts as fetched {_day(cached[0])})" if cached and cached[1] else ""
                notes.append(
                    f"The hub ({redact(self.endpoint)}) did not answer ({exc.__class__.__name__}); the model's files "
                    f"came from the local Hugging Face cache{fetched}."
                )
                return (cached[1] if cached else None), "unreachable"
            if response.status_code in (401, 403):
                return None, "refused"
            origins.add("hub")
            if response.status_code not in (200, 404):
                return (cached[1] if cached else None), "answered"
            body = response.text if response.status_code == 200 else None
            cache.set(key, (time.time(), body))
            return body, "answered"


def _day(stamp: float) -> str:
    return time.strftime("%Y-%m-%d", time.gmtime(stamp))
