"""The names each registry defines, kind by kind: what "where else does this flag exist" reads across releases.

An audit of a script that pins no tag asks that of every known release at once. Parsing thirty whole
registries for it costs ~2.5 s (80 ms each: the kernel and load walks make them megabytes), where the
names are a few kilobytes a tag. So the bundled registries' names ship beside them as one index,
`bundled/index/names.json`, written with them by scripts/bundle_registries.py; a refreshed tag, whose cached
registry may differ from the bundled one, is read from its registry.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Literal

from vllm_quant_mcp.knowledge.tags import normalize_tag

from .model import Registry

__all__ = ["INDEX_FILE", "NAME_KINDS", "NameKind", "Names", "bundled_names", "names_index", "names_of"]

NameKind = Literal["cli_flags", "quantization_methods", "kv_cache_dtypes", "env_vars"]
NAME_KINDS: tuple[NameKind, ...] = ("cli_flags", "quantization_methods", "kv_cache_dtypes", "env_vars")
INDEX_FILE = "index/names.json"  # beside the registries, outside the folder of tag files
Names = dict[NameKind, frozenset[str]]

_PACKAGE = f"{__package__}.bundled"


def names_of(registry: Registry) -> Names:
    """A flag is named by its name, an alias or its --no- form, as Registry.find_flag reads it."""
    flags = {spelling for f in registry.cli_flags for spelling in (f.name, *f.aliases, f.negation) if spelling}
    return {
        "cli_flags": frozenset(flags),
        "quantization_methods": frozenset(e.name for e in registry.quantization_methods),
        "kv_cache_dtypes": frozenset(e.name for e in registry.kv_cache_dtypes),
        "env_vars": frozenset(e.name for e in registry.env_vars),
    }


def names_index(registries: list[Registry]) -> str:
    """The index file's text for these registries (sorted, so a re-derivation that changes nothing writes the same)."""
    index = {r.tag: {kind: sorted(names) for kind, names in names_of(r).items()} for r in registries}
    return json.dumps(dict(sorted(index.items())), indent=0, sort_keys=True) + "\n"


def bundled_names(tag: str) -> Names | None:
    """The bundled registry's names for `tag`, or None where the index has no entry for it."""
    return _index().get(normalize_tag(tag))


@cache
def _index() -> dict[str, Names]:
    item = resources.files(_PACKAGE).joinpath(*INDEX_FILE.split("/"))
    if not item.is_file():
        return {}
    raw: dict[str, dict[str, list[str]]] = json.loads(item.read_text(encoding="utf-8"))
    return {tag: {kind: frozenset(kinds.get(kind, [])) for kind in NAME_KINDS} for tag, kinds in raw.items()}
