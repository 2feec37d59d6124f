"""The curated knowledge base: data files under knowledge/facts/data/, loaded and cross-checked once.

Each kind lives in its own YAML file (a list of facts). Loading validates every fact
against its model and then checks what no single fact can: unique ids, GPU aliases
that resolve to one GPU, format rules that name GPUs the table knows.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from importlib import resources
from typing import Any

import yaml
from pydantic import ValidationError, model_validator

from vllm_quant_mcp.knowledge.echo import clip
from vllm_quant_mcp.knowledge.errors import InternalError, NotFoundError

from .fact import Citation, DocCitation, Fact, IssueCitation, PrCitation, SourceCitation, Strict
from .kinds import (
    DrafterPick,
    FormatRule,
    Gpu,
    KvCacheDtypeFact,
    Method,
    Observation,
    PainPoint,
    PullRequest,
    Recipe,
    VersionGate,
)

__all__ = [
    "FILES",
    "Citation",
    "DocCitation",
    "Fact",
    "IssueCitation",
    "KnowledgeBase",
    "KnowledgeDataError",
    "PrCitation",
    "SourceCitation",
    "UnknownGpuError",
    "load_knowledge",
    "parse_knowledge",
]


class UnknownGpuError(NotFoundError):
    """The GPU text matches no id, alias or SM/gfx architecture of the GPU table."""


class KnowledgeDataError(InternalError):
    """A data file is malformed; the message names the file and the fact."""


class KnowledgeBase(Strict):
    """One field per fact kind, each read from data/<field>.yaml: adding a kind is one field and one file."""

    gpus: list[Gpu]
    format_rules: list[FormatRule]
    methods: list[Method]
    kv_cache_dtypes: list[KvCacheDtypeFact]
    version_gates: list[VersionGate]
    pain_points: list[PainPoint]
    recipes: list[Recipe]
    drafters: list[DrafterPick]
    pull_requests: list[PullRequest]
    observations: list[Observation]

    def facts(self) -> Iterator[tuple[str, Fact]]:
        """Every fact with the name of the kind it belongs to."""
        for kind in FILES.values():
            for fact in getattr(self, kind):
                yield kind, fact

    @model_validator(mode="after")
    def _consistent(self) -> KnowledgeBase:
        seen: dict[str, str] = {}
        for kind, fact in self.facts():
            if fact.id in seen:
                raise ValueError(f"fact id {fact.id!r} is used in both {seen[fact.id]} and {kind}; ids are global")
            seen[fact.id] = kind
        owners: dict[str, str] = {}
        for gpu in self.gpus:
            for alias in [gpu.id, *gpu.aliases]:
                if owners.setdefault(alias, gpu.id) != gpu.id:
                    raise ValueError(f"GPU alias {alias!r} names both {owners[alias]} and {gpu.id}")
        gpu_ids = {g.id for g in self.gpus}
        for rule in self.format_rules:
            unknown = sorted(set(rule.hardware) - gpu_ids)
            if unknown:
                raise ValueError(f"format rule {rule.id} names unknown GPUs {unknown}; known: {sorted(gpu_ids)}")
        _cite_merged_only(self)
        rows = [r.table_row for r in self.format_rules if r.table_row is not None]
        if sorted(rows) != list(range(1, len(rows) + 1)):
            raise ValueError(f"format-table rows must be numbered 1..{len(rows)} without gaps; got {sorted(rows)}")
        return self

    def resolve_gpus(self, text: str) -> list[Gpu]:
        """GPUs a user's spelling names: an id or alias ("H200 SXM") gives one, an arch ("sm90", "gfx942") all."""
        wanted = " ".join(text.lower().split())
        named = [g for g in self.gpus if wanted == g.id or wanted in g.aliases]
        if named:
            return named
        arch = wanted.replace(" ", "").replace("_", "")
        return [
            g for g in self.gpus if (g.sm is not None and arch == f"sm{g.sm}") or (g.gfx is not None and arch == g.gfx)
        ]

    def gpus_named(self, text: str) -> list[Gpu]:
        """resolve_gpus, or UnknownGpuError listing what is known: the one lookup every tool uses."""
        found = self.resolve_gpus(text)
        if not found:
            known = ", ".join(f"{g.id} ({g.name})" for g in self.gpus)
            raise UnknownGpuError(
                f"Unknown GPU {clip(text)}; known GPUs: {known}. Aliases like 'H200 SXM' or "
                "architectures like 'sm90' and 'gfx942' work too."
            )
        return found


def _cite_merged_only(kb: KnowledgeBase) -> None:
    """A claim cites a PR only when pull_requests records it merged; otherwise the source lines are the evidence."""
    states = {pr.number: pr.state for pr in kb.pull_requests}
    for kind, fact in kb.facts():
        if kind == "pull_requests":
            continue
        for c in fact.citations:
            if isinstance(c, PrCitation) and c.repo == "vllm-project/vllm" and states.get(c.number) != "merged":
                state = states.get(c.number, "not recorded in pull_requests.yaml")
                raise ValueError(
                    f"{kind} fact {fact.id} cites PR #{c.number}, whose state is {state}; cite the source lines "
                    "that decide instead ({kind: source, path, symbol, tag}), or record the PR merged with where "
                    "that was seen"
                )


# Data file -> KnowledgeBase field, read off the model.
FILES: dict[str, str] = {f"{field}.yaml": field for field in KnowledgeBase.model_fields}


def parse_knowledge(files: dict[str, str]) -> KnowledgeBase:
    """Build the knowledge base from file name -> YAML text; errors name the file."""
    fields: dict[str, Any] = {}
    for name, field in FILES.items():
        if name not in files:
            raise KnowledgeDataError(f"knowledge data file {name} is missing; expected all of {sorted(FILES)}")
        try:
            data = yaml.safe_load(files[name])
        except yaml.YAMLError as exc:
            raise KnowledgeDataError(f"{name} is not valid YAML: {exc}") from exc
        if not isinstance(data, list):
            raise KnowledgeDataError(f"{name} must hold a YAML list of facts, got {type(data).__name__}")
        fields[field] = data
    try:
        return KnowledgeBase.model_validate(fields)
    except ValidationError as exc:
        raise KnowledgeDataError(f"knowledge data is invalid:\n{exc}") from exc


@cache
def load_knowledge() -> KnowledgeBase:
    """The bundled knowledge base, read from the installed package once per process."""
    folder = resources.files("vllm_quant_mcp.knowledge.facts.data")
    return parse_knowledge({name: (folder / name).read_text(encoding="utf-8") for name in FILES})
