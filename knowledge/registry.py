"""The registry of one vLLM release: every name agents otherwise answer from memory.

This is the contract scripts rely on (`vllm-quant-mcp registry --tag T --json`).
Bump SCHEMA_VERSION on any change that renames or removes a field; adding an
optional field keeps the version.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "KINDS",
    "SCHEMA_VERSION",
    "AnyEntry",
    "BackendEntry",
    "Backends",
    "CliFlag",
    "Entry",
    "EnvVar",
    "Kind",
    "KvCacheDtype",
    "OnlineQuantEntry",
    "PlatformQuantization",
    "Provenance",
    "QuantizationMethod",
    "Registry",
    "SourceInfo",
]

SCHEMA_VERSION = 1

Kind = Literal[
    "quantization_methods",
    "kv_cache_dtypes",
    "online_quantization",
    "backends",
    "cli_flags",
    "env_vars",
    "platforms",
]
KINDS: tuple[Kind, ...] = (
    "quantization_methods",
    "kv_cache_dtypes",
    "online_quantization",
    "backends",
    "cli_flags",
    "env_vars",
    "platforms",
)


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Provenance(_Model):
    """Where in the tree at the tag a fact was read."""

    path: str = Field(description="Path relative to the repository root, e.g. vllm/config/cache.py.")
    line: int = Field(ge=1, description="1-based line of the definition.")
    permalink: str = Field(description="Link to that line at the tag.")


class Entry(_Model):
    name: str
    provenance: Provenance


class QuantizationMethod(Entry):
    config_class: str | None = Field(description="Config class the name resolves to; aliases share one.")
    config_path: str | None = Field(default=None, description="File that defines config_class.")
    min_capability: int | None = Field(description="Literal get_min_capability() value (e.g. 89 = SM 8.9).")
    deprecated: bool = Field(description="Listed in DEPRECATED_QUANTIZATION_METHODS at this tag.")
    accepted_by_cli: bool = Field(
        default=True,
        description="False for keys get_quantization_config resolves that --quantization rejects.",
    )


class KvCacheDtype(Entry):
    pass


class OnlineQuantEntry(Entry):
    kind: Literal["shorthand", "config_key"]


class BackendEntry(Entry):
    pass


class Backends(_Model):
    linear: list[BackendEntry] = []
    moe: list[BackendEntry] = []
    attention: list[BackendEntry] = []


class CliFlag(Entry):
    """One `vllm serve` engine flag, e.g. --kv-cache-dtype."""

    field: str | None = Field(default=None, description="EngineArgs field the flag sets.")
    choices: list[str] | None = Field(default=None, description="Literal choices, where the source states them.")
    negation: str | None = Field(default=None, description="The --no- form of a boolean flag, if any.")
    deprecated: bool = False
    aliases: list[str] = []


class EnvVar(Entry):
    default: str | None = Field(default=None, description="The literal default as written in vllm/envs.py.")


class PlatformQuantization(Entry):
    """`name` is the platform class (CudaPlatform, RocmPlatform...)."""

    methods: list[str]


# Any one entry, typed by kind, so serialising a mixed list keeps each kind's own fields.
AnyEntry = QuantizationMethod | CliFlag | EnvVar | PlatformQuantization | OnlineQuantEntry | Entry


class SourceInfo(_Model):
    kind: Literal["git", "pypi", "wheel", "dir"]
    origin: str = Field(description="Remote URL, index URL of the file, or directory the tree came from.")
    commit: str | None = None
    sha256: str | None = None


class Registry(_Model):
    schema_version: int = SCHEMA_VERSION
    extractor_version: str = Field(description="Changes whenever an extractor or query changes.")
    tag: str
    source: SourceInfo
    quantization_methods: list[QuantizationMethod] = []
    kv_cache_dtypes: list[KvCacheDtype] = []
    online_quantization: list[OnlineQuantEntry] = []
    backends: Backends = Backends()
    cli_flags: list[CliFlag] = []
    env_vars: list[EnvVar] = []
    platforms: list[PlatformQuantization] = []
    notes: dict[str, str] = Field(
        default={},
        description="Per kind, why it is empty or what else to know (e.g. plugins may add KV dtypes).",
    )
