"""The registry of one vLLM release: every name agents otherwise answer from memory.

This is the contract scripts rely on (`vllm-quant-mcp registry --tag T --json`).
Bump SCHEMA_VERSION on any change that renames or removes a field; adding an
optional field keeps the version.

The fields of `Registry` that carry an `Extractor` marker are the registry's kinds, and
this is the only place they are listed: derivation, diffs, the `kind` choices of the
tools and the CLI all read them from here (knowledge/registry/kinds.py).
"""

from __future__ import annotations

from functools import cached_property
from typing import Annotated, Literal, NamedTuple

from pydantic import Field

from vllm_quant_mcp.knowledge.sources.base import SourceInfo
from vllm_quant_mcp.knowledge.sources.tree import Provenance

from .cuda_archs import CudaArchs
from .entry import Entry, Frozen
from .kernels import KernelList, KernelSupport
from .loading import LoadResolution
from .matrix import AttentionSupport, LoadRefusal, OnlineRefusal

__all__ = [
    "SCHEMA_VERSION",
    "ArchitectureResolution",
    "Architectures",
    "BackendEntry",
    "Backends",
    "BuildPin",
    "BuildPins",
    "CliFlag",
    "Entry",
    "EnvVar",
    "Extractor",
    "KnownArchitecture",
    "KvCacheDtype",
    "MessageSite",
    "MessageStyle",
    "OnlineQuantEntry",
    "PlatformQuantization",
    "Provenance",
    "QuantizationMethod",
    "Registry",
    "RemovedArchitecture",
    "SourceInfo",
    "stated_default",
]

SCHEMA_VERSION = 1


class Extractor(NamedTuple):
    """Marks a Registry field as a kind: `function` in knowledge.extract.`module` derives it from a tree."""

    module: str
    function: str


class QuantizationMethod(Entry):
    config_class: str | None = Field(description="Config class the name resolves to; aliases share one.")
    config_path: str | None = Field(default=None, description="File that defines config_class.")
    min_capability: int | None = Field(description="Literal get_min_capability() value (e.g. 89 = SM 8.9).")
    min_capability_provenance: Provenance | None = Field(
        default=None, description="The `return N` line of get_min_capability (maybe in a base class)."
    )
    deprecated: bool = Field(description="Listed in DEPRECATED_QUANTIZATION_METHODS at this tag.")
    accepted_by_cli: bool = Field(
        default=True,
        description="False for keys get_quantization_config resolves that --quantization rejects.",
    )


class KvCacheDtype(Entry):
    pass


class OnlineQuantEntry(Entry):
    kind: Literal["shorthand", "config_key"]
    quantizes: list[Literal["linear", "moe"]] | None = Field(
        default=None, description="Shorthands: the layers it quantizes; the rest stay in the checkpoint dtype."
    )
    weight_keys: dict[str, str] = Field(default={}, description="Shorthands: layer -> the weight QuantKey it names.")
    refusals: list[OnlineRefusal] = Field(default=[], description="Shorthands: where its method classes raise.")


class BackendEntry(Entry):
    pass


class Backends(Frozen):
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
    default: bool | int | float | str | None = Field(
        default=None,
        description="The default as the source writes it (a config field followed to its literal); None also when "
        "default_expression says it is not a literal, or no line states one.",
    )
    default_provenance: Provenance | None = Field(
        default=None, description="The line that states the default (None: the source states none)."
    )
    default_expression: str | None = Field(
        default=None,
        description="A default that is not a scalar literal, as written (a default_factory, a call, a list): not "
        "evaluated, not guessed.",
    )

    def default_text(self) -> str | None:
        """`0.92 (vllm/config/cache.py:215)`, `not a literal: ... (path:line)`; None when no line states one."""
        where = self.default_provenance
        return stated_default(self.default, f"{where.path}:{where.line}" if where else None, self.default_expression)


def stated_default(value: object, where: str | None, expression: str | None) -> str | None:
    """A flag's default as the tools print it, from its three fields (a listing may hold them as plain JSON)."""
    if where is None:
        return None
    return f"{f'not a literal: {expression}' if expression is not None else repr(value)} ({where})"


class EnvVar(Entry):
    default: str | None = Field(default=None, description="The literal default as written in vllm/envs.py.")
    removed_in: str | None = Field(default=None, description="deprecated_env: the release vLLM says removes it.")
    deprecation: str | None = Field(
        default=None, description="deprecated_env: vLLM's own message, naming the replacement where it does."
    )
    deprecation_provenance: Provenance | None = Field(default=None, description="The line of that message.")


class PlatformQuantization(Entry):
    """`name` is the platform class (CudaPlatform, RocmPlatform...)."""

    methods: list[str]


MessageStyle = Literal["plain", "f-string", "percent", "format", "unfilled"]


class MessageSite(Entry):
    """A `raise` or log call; `name` is its message as the source writes it (a second site saying the same adds #2)."""

    kind: Literal["raise", "log"]
    raises: str = Field(description="The exception class raised, or the log level.")
    style: MessageStyle = Field(
        description="How the placeholders are filled: unfilled is `ValueError('... %s', x)`, printed as a tuple."
    )
    function: str | None = Field(description="Class.method (or function) holding the site.")
    guards: list[str] = Field(description="The enclosing conditions that must hold, innermost first, as written.")
    guard_line: int | None = Field(description="Line of the innermost condition.")
    raised_on: list[str] | None = Field(
        description="GPUs (capability) on which every GPU condition holds; None when no condition reduces on a GPU."
    )
    spared_on: list[str] = Field(description="GPUs on which a GPU condition fails, so the site is not reached.")


class KnownArchitecture(Entry):
    """An architecture name vLLM's model registry maps to a class: `name` as config.json's `architectures` writes it."""

    module: str = Field(description="As the registry writes it: relative to vllm.model_executor.models, or dotted.")
    class_name: str
    table: str = Field(description="The registry dict it is listed in, e.g. text_generation, transformers_backend.")


class RemovedArchitecture(Entry):
    """A name vLLM refuses with its own message: removed (the last release it names) or moved to a plugin."""

    last_version: str | None = Field(default=None, description="_PREVIOUSLY_SUPPORTED_MODELS: supported until it.")
    plugin: str | None = Field(default=None, description="_OOT_SUPPORTED_MODELS: the plugin vLLM names instead.")


class ArchitectureResolution(Frozen):
    """The lines of `_ModelRegistry` that decide an architecture vLLM does not list, with its messages as written."""

    fallback: Provenance | None = Field(
        default=None, description="inspect_model_cls: the Transformers-backend fallback, taken under model_impl auto."
    )
    transformers: Provenance | None = Field(
        default=None, description="_try_resolve_transformers: whether the Transformers backend can take the class."
    )
    normalize: Provenance | None = Field(
        default=None, description="_normalize_arch: a name with another task's suffix read as its base model."
    )
    removed_message: str | None = Field(default=None, description="_raise_for_unsupported's message for a removal.")
    removed_provenance: Provenance | None = None
    plugin_message: str | None = Field(default=None, description="Its message for a name moved to a plugin.")
    plugin_provenance: Provenance | None = None
    unsupported_message: str | None = Field(default=None, description="Its message for a name it does not know.")
    unsupported_provenance: Provenance | None = None


class Architectures(Frozen):
    """What `config.json`'s `architectures` is checked against (vllm/model_executor/models/registry.py)."""

    known: list[KnownArchitecture] = []
    removed: list[RemovedArchitecture] = []
    resolution: ArchitectureResolution = ArchitectureResolution()


class BuildPin(Frozen):
    """A package a release installs with it: `name` as PyPI spells it, provenance its requirements line."""

    name: str
    provenance: Provenance
    requirement: str = Field(description="The line as written, e.g. humming-kernels[cu13]==0.1.19.")
    platform: str = Field(description="The requirements file: common (every platform), cuda, rocm.")
    marker: str | None = None


class BuildPins(Frozen):
    """Not a kind (the tool listing's budget): read by the kernel judgements, shown with the registry."""

    pins: list[BuildPin] = []
    main_cuda: str | None = Field(
        default=None,
        description="VLLM_MAIN_CUDA_VERSION's default: the CUDA the wheel without a +cu suffix (PyPI's) is built with.",
    )
    main_cuda_provenance: Provenance | None = None


class Registry(Frozen):
    schema_version: int = SCHEMA_VERSION
    extractor_version: str = Field(description="Changes whenever an extractor or query changes.")
    tag: str
    source: SourceInfo
    quantization_methods: Annotated[
        list[QuantizationMethod], Extractor("quantization", "extract_quantization_methods")
    ] = []
    kv_cache_dtypes: Annotated[list[KvCacheDtype], Extractor("kv_cache", "extract_kv_cache_dtypes")] = []
    online_quantization: Annotated[list[OnlineQuantEntry], Extractor("online", "extract_online_quantization")] = []
    backends: Annotated[Backends, Extractor("backends", "extract_backends")] = Backends()
    cli_flags: Annotated[list[CliFlag], Extractor("cli_flags.flags", "extract_cli_flags")] = []
    env_vars: Annotated[list[EnvVar], Extractor("env_vars", "extract_env_vars")] = []
    platforms: Annotated[list[PlatformQuantization], Extractor("platforms", "extract_platforms")] = []
    attention: Annotated[AttentionSupport, Extractor("attention.matrix", "extract_attention")] = AttentionSupport()
    load_refusals: Annotated[list[LoadRefusal], Extractor("refusals", "extract_load_refusals")] = []
    load_resolution: Annotated[LoadResolution, Extractor("loading", "extract_load_resolution")] = LoadResolution()
    message_sites: Annotated[list[MessageSite], Extractor("messages", "extract_message_sites")] = []
    kernels: Annotated[list[KernelList], Extractor("kernels.matrix", "extract_kernel_lists")] = []
    kernel_support: Annotated[KernelSupport, Extractor("kernels.matrix", "extract_kernels")] = KernelSupport()
    build: Annotated[BuildPins, Extractor("build", "extract_build_pins")] = BuildPins()
    architectures: Annotated[Architectures, Extractor("architectures", "extract_architectures")] = Architectures()
    cuda_archs: Annotated[list[CudaArchs], Extractor("cuda_archs", "extract_cuda_archs")] = []
    notes: dict[str, str] = Field(
        default={},
        description="Per kind, why it is empty or what else to know (e.g. plugins may add KV dtypes).",
    )

    def find_flag(self, written: str) -> tuple[CliFlag, bool] | None:
        """The flag a spelling names at this tag (its name, an alias or its --no- form), and whether it negates."""
        return self._flag_spellings.get(written)

    @cached_property
    def _flag_spellings(self) -> dict[str, tuple[CliFlag, bool]]:
        """Every spelling of every flag, the first flag in order winning as a scan would: a command of a thousand
        flags checked across thirty releases asks this 30,000 times, too often to scan 300 flags each time."""
        spellings: dict[str, tuple[CliFlag, bool]] = {}
        for flag in self.cli_flags:
            for spelling in (flag.name, *flag.aliases):
                spellings.setdefault(spelling, (flag, False))
            if flag.negation:
                spellings.setdefault(flag.negation, (flag, True))
        return spellings
