"""What `vllm serve` does with a checkpoint and a `--quantization` value at load, as the tag's source reads.

One `LoadPath` per `--quantization` value: the outcome of `get_quant_config`
(model_loader/weight_utils.py) on a checkpoint without a quantization config (a BF16/FP16
model), which is the only case the source decides without the checkpoint's contents. A
checkpoint with a config goes to `<Config>.from_config` with it, which the resolver in
knowledge/support/loading.py judges from the names (`_verify_quantization`'s mismatch raise).
`OnlineArgs` holds what `--quantization-config` is validated against: the fields of
`QuantizationConfigArgs` and `QuantSpec`, the names a spec may use, and the raises its
validators and the online methods' dispatch perform.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from vllm_quant_mcp.knowledge.sources.tree import Provenance

from .entry import Frozen

__all__ = [
    "AttentionArgs",
    "ConfigGuard",
    "ConfigReplay",
    "LoadOutcome",
    "LoadPath",
    "LoadResolution",
    "LoadStep",
    "OnlineArgs",
    "PackageNeed",
    "Raise",
    "Term",
]

LoadOutcome = Literal["loads", "redirected", "refused", "conditional"]


class Raise(Frozen):
    """A raise of vLLM: its exception type and message as the source writes them, and where."""

    error: str
    message: str
    provenance: Provenance


class LoadStep(Frozen):
    """One step of get_quant_config for this input: the branch taken, or the line that ends it."""

    outcome: LoadOutcome
    loads_as: str | None = Field(default=None, description="The config class built, or the shorthand redirected to.")
    why: str
    provenance: Provenance
    raised: Raise | None = None


class Term(Frozen):
    """A value `from_config`/`__init__` compute from the checkpoint's quantization_config, reduced to a tree.

    `op` says what: `config` (the dict itself), `get` (args[0].get(value[0]) trying each key of `value` in
    turn, args[1] the default; no default: absent), `has` (value in args[0]), `const`, `keys` (a dict
    literal's keys), `seq` (a tuple/list of args), `cmp` (value: the comparison), `and`/`or`/`not`, `if`
    (args: condition, then, else), `isinstance` (value: type names), `len`, `str`, `upper`, `lower`,
    `startswith`/`endswith` (value: the prefix), `items`, `truthy`, `dict_keys` (printed as Python prints
    `d.keys()`), `user` (the --quantization given), `model_type`
    (config.json's, args[0] the default), `platform` (value: `is_cuda`... and where), and `unknown`
    (value: the code and line a run-time value decides)."""

    op: str
    value: Any = None
    args: list[Term] = []


class ConfigGuard(Frozen):
    """A raise of from_config or the constructor: taken when `when` holds for the checkpoint's dict."""

    when: Term
    raised: Raise
    fills: dict[str, Term] = Field(default={}, description="An f-string field of the message -> its value.")


class ConfigReplay(Frozen):
    """`<Config>.from_config(quantization_config)` and the constructor it calls, as guards over the dict."""

    config_class: str
    provenance: Provenance
    guards: list[ConfigGuard] = []
    scheme: dict[str, Term] = Field(default={}, description="Constructor parameters read from the dict.")
    override: Term | None = Field(
        default=None, description="override_quantization_method's result (a method name, or None)."
    )


class PackageNeed(Frozen):
    """A package the method imports at load, with the version the source asks for (`pip install X>=V`)."""

    requirement: str
    provenance: Provenance


class LoadPath(Frozen):
    """`--quantization <name>` at load; provenance is where the name resolves to its config class.

    Not an `Entry`: the paths ride in `registry --json` and the resolver, not in the `kind` choices of
    get_registry and diff, whose listing every agent session pays for."""

    name: str
    provenance: Provenance

    config_class: str | None
    config_files: list[str] | None = Field(
        default=None, description="get_config_filenames(): files get_quant_config looks for; None if unread."
    )
    unquantized: LoadStep = Field(description="On a checkpoint without a quantization config (BF16/FP16).")
    unquantized_with_config: LoadStep | None = Field(
        default=None, description="The same with --quantization-config given (online shorthands only)."
    )
    needs: list[PackageNeed] = []
    from_config: ConfigReplay | None = Field(
        default=None, description="What from_config and the constructor refuse in a checkpoint's config."
    )


class OnlineArgs(Frozen):
    """`--quantization-config` at the tag: QuantizationConfigArgs, its validators, and the online dispatch."""

    fields: list[str] = Field(description="QuantizationConfigArgs fields (linear, moe, ignore, targets...).")
    spec_fields: list[str] = Field(description="QuantSpec fields (weight, activation).")
    key_names: list[str] = Field(description="QUANT_KEY_NAMES: the names a spec's weight/activation may use.")
    dispatch: dict[str, dict[str, str]] = Field(
        default={}, description="Per layer kind: the weight name -> the online method class the dispatch builds."
    )
    provenance: Provenance
    unknown_name: Raise | None = Field(default=None, description="A spec name outside QUANT_KEY_NAMES is refused.")
    targets_exclusive: Raise | None = Field(default=None, description="targets with linear/moe is refused.")
    activation_refused: Raise | None = Field(
        default=None, description="The online dispatch refuses any explicit activation while building the layer."
    )
    config_needs_online: Raise | None = Field(
        default=None, description="resolve_quantization_config: a config with a non-online --quantization."
    )


class AttentionArgs(Frozen):
    """`--attention-config` at the tag: AttentionConfig's fields, with the values a Literal annotation allows."""

    fields: list[str]
    choices: dict[str, list[str]] = Field(default={}, description="Field -> its Literal values, as strings.")
    backend_fields: list[str] = Field(default=[], description="Fields typed AttentionBackendEnum: backend names.")
    provenance: Provenance


class LoadResolution(Frozen):
    paths: list[LoadPath] = []
    mismatch: Raise | None = Field(
        default=None, description="_verify_quantization: the checkpoint's method differs from --quantization."
    )
    overrides: list[str] = Field(
        default=[], description="Methods whose override_quantization_method may switch a checkpoint's method."
    )
    overrides_provenance: Provenance | None = None
    online: OnlineArgs | None = None
    attention: AttentionArgs | None = Field(default=None, description="What --attention-config is checked against.")

    def path(self, method: str) -> LoadPath | None:
        return next((p for p in self.paths if p.name == method), None)
