"""The registry's kinds, read off the `Registry` model: the one table behind derivation, diffs and `kind` choices.

A kind is a Registry field marked with an `Extractor`; a field holding a model of lists
(the backends) contributes one dotted kind per list (`backends.moe`), because a MoE
backend renamed is not a linear one. Adding a kind is adding one marked field.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, get_args, get_origin

from pydantic import BaseModel

from vllm_quant_mcp.knowledge.echo import clip
from vllm_quant_mcp.knowledge.errors import InvalidInputError

from .model import Entry, Extractor, Registry

__all__ = ["EXTRACTED_FIELDS", "KIND_NAMES", "RegistryKind", "entries_of", "extractor_of"]


def _extracted() -> dict[str, Extractor]:
    found = {}
    for name, info in Registry.model_fields.items():
        marker = next((m for m in info.metadata if isinstance(m, Extractor)), None)
        if marker is not None:
            found[name] = marker
    return found


def _kind_names(fields: dict[str, Extractor]) -> tuple[str, ...]:
    names: list[str] = []
    for name in fields:
        annotation = Registry.model_fields[name].annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            names += [
                f"{name}.{sub}" for sub, info in annotation.model_fields.items() if _holds_entries(info.annotation)
            ]
        else:
            names.append(name)
    return tuple(names)


def _holds_entries(annotation: object) -> bool:
    """A list of entries (what a kind is), as opposed to a plain value a grouping model also carries."""
    args = get_args(annotation)
    item = args[0] if len(args) == 1 else None  # `X | None` has two: a plain value, not a list
    return get_origin(annotation) is list and isinstance(item, type) and issubclass(item, Entry)


EXTRACTED_FIELDS: dict[str, Extractor] = _extracted()
KIND_NAMES: tuple[str, ...] = _kind_names(EXTRACTED_FIELDS)

if TYPE_CHECKING:
    RegistryKind = str
else:  # a real Literal at run time, so every schema that takes a kind lists the choices
    RegistryKind = Literal[KIND_NAMES]


def extractor_of(field: str) -> Extractor:
    return EXTRACTED_FIELDS[field]


def entries_of(registry: Registry, kind: str) -> list[Entry]:
    """The entries of a kind, including the dotted backend sub-kinds."""
    if kind not in KIND_NAMES:
        raise InvalidInputError(f"unknown registry kind {clip(kind)}; choose one of: {', '.join(KIND_NAMES)}")
    head, _, sub = kind.partition(".")
    value = getattr(registry, head)
    entries: list[Entry] = getattr(value, sub) if sub else value
    return entries
