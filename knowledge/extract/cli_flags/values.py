"""The values the `vllm serve` flag walker computes with, and the Flag record it produces.

The walk evaluates only what decides a flag: strings (names, with where they were written),
the kwargs dicts `get_kwargs` returns and the edits made to them. Anything else evaluates to
None, so an unknown shape never becomes a made-up flag.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from vllm_quant_mcp.knowledge.extract.cli_flags.defaults import Default
from vllm_quant_mcp.knowledge.extract.engine import FieldDef

__all__ = ["ChoicesOf", "ConfigKwargs", "FieldKwargs", "Flag", "Str"]


@dataclass(frozen=True)
class Str:
    """A string value with the place that wrote it (the flag's provenance when it names one)."""

    value: str
    path: str
    line: int


@dataclass
class FieldKwargs:
    """`get_kwargs(Config)["field"]`: argparse kwargs derived from a field, plus edits made to them."""

    definition: FieldDef | None
    overrides: dict[str, object] = field(default_factory=dict)

    def copy(self) -> FieldKwargs:
        return FieldKwargs(self.definition, dict(self.overrides))


@dataclass
class ConfigKwargs:
    """`get_kwargs(Config)`: one FieldKwargs per dataclass field, created on first use."""

    fields: dict[str, FieldDef]
    made: dict[str, FieldKwargs] = field(default_factory=dict)

    def get(self, key: str) -> FieldKwargs:
        if key not in self.made:
            self.made[key] = FieldKwargs(self.fields.get(key))
        return self.made[key]


@dataclass(frozen=True)
class ChoicesOf:
    """`kw["choices"]`, so that `.remove(x)` can edit the choices of `kw`."""

    kwargs: FieldKwargs


@dataclass(frozen=True)
class Flag:
    name: Str
    aliases: list[str]
    dest: str
    choices: list[str] | None
    boolean: bool
    deprecated: bool
    default: Default | None = None
