"""The releases an upgrade (or downgrade) crosses, and which curated gates on the way concern the caller.

A gate names who it reaches (a flag, a value, an env var, a GPU, a model family).
The caller may tell us some of that (a GPU, a family, a serve command); a gate is
dropped only when everything it names contradicts what the caller told us, so an
unknown dimension never hides a gate.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal

from vllm_quant_mcp.knowledge.deploy.serve_command import ServeCommand
from vllm_quant_mcp.knowledge.facts.kinds import Affected, VersionGate
from vllm_quant_mcp.knowledge.registry.model import Registry
from vllm_quant_mcp.knowledge.tags import UnknownTagError, nearest_tags, normalize_tag, tag_key
from vllm_quant_mcp.tools.context import ToolContext

__all__ = ["Usage", "Walk", "family_matches", "match_gate", "resolve_walk", "usage_of"]

Direction = Literal["upgrade", "downgrade", "same"]
_USAGE_KINDS = frozenset({"flag", "flag_value", "method", "kv_dtype", "env_var", "config_key"})


@dataclass(frozen=True)
class Walk:
    """Tags from from_tag to to_tag in the order travelled, with their registries."""

    tags: list[str]
    registries: dict[str, Registry]
    direction: Direction

    @property
    def start(self) -> Registry:
        return self.registries[self.tags[0]]

    @property
    def end(self) -> Registry:
        return self.registries[self.tags[-1]]

    def hops(self) -> Iterator[tuple[str, str]]:
        yield from zip(self.tags, self.tags[1:], strict=False)

    def crosses(self, version: str, hop: tuple[str, str] | None = None) -> bool:
        """Whether a change released at `version` lies between the two tags (the older one excluded)."""
        a, b = hop or (self.tags[0], self.tags[-1])
        low, high = sorted((tag_key(a), tag_key(b)))
        return low < tag_key(version) <= high

    def gates(self, gates: list[VersionGate], hop: tuple[str, str] | None = None) -> list[VersionGate]:
        """Gates crossed on the whole walk (or one hop), in the order travelled."""
        crossed = sorted((g for g in gates if self.crosses(g.version, hop)), key=lambda g: tag_key(g.version))
        return crossed[::-1] if self.direction == "downgrade" else crossed


def resolve_walk(ctx: ToolContext, from_tag: str, to_tag: str) -> Walk:
    known = sorted(ctx.store.known_tags(), key=tag_key)
    start, end = _known(from_tag, known), _known(to_tag, known)
    low, high = sorted((start, end), key=tag_key)
    tags = [t for t in known if tag_key(low) <= tag_key(t) <= tag_key(high)]
    direction: Direction = "same" if start == end else "upgrade" if start == low else "downgrade"
    if direction == "downgrade":
        tags.reverse()
    return Walk(tags=tags, registries={t: ctx.registry(t) for t in tags}, direction=direction)


def _known(tag: str, known: list[str]) -> str:
    canonical = normalize_tag(tag)
    if canonical not in known:
        raise UnknownTagError(canonical, nearest_tags(canonical, known))
    return canonical


@dataclass(frozen=True)
class Usage:
    """What a serve command and its environment use, in the vocabulary gates name things with."""

    known: bool
    flags: frozenset[str] = frozenset()
    flag_values: frozenset[tuple[str, str]] = frozenset()
    methods: frozenset[str] = frozenset()
    kv_dtypes: frozenset[str] = frozenset()
    env_vars: frozenset[str] = frozenset()
    config_keys: frozenset[str] = frozenset()


def usage_of(command: ServeCommand | None, env: dict[str, str] | None, walk: Walk) -> Usage:
    if command is None and env is None:
        return Usage(known=False)
    flags: set[str] = set()
    values: set[tuple[str, str]] = set()
    keys: set[str] = set()
    for flag in command.flags if command else []:
        found = walk.start.find_flag(flag.option) or walk.end.find_flag(flag.option)
        name = found[0].name if found else flag.option
        flags.add(name)
        if found and found[0].field:
            keys.add(found[0].field)
        keys.update(flag.path)
        keys.update(_json_keys(flag.json_value))
        if flag.value is not None and not flag.path:
            values.add((name, flag.value))
    return Usage(
        known=True,
        flags=frozenset(flags),
        flag_values=frozenset(values),
        methods=frozenset(v for f, v in values if f == "--quantization"),
        kv_dtypes=frozenset(v for f, v in values if f == "--kv-cache-dtype"),
        env_vars=frozenset([*(command.env if command else {}), *(env or {})]),
        config_keys=frozenset(keys),
    )


def _json_keys(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for key, inner in value.items():
            yield str(key)
            yield from _json_keys(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from _json_keys(inner)


def _used(item: Affected, usage: Usage) -> bool:
    if item.kind == "flag":
        return item.name in usage.flags
    if item.kind == "flag_value":
        return any(v == item.name and (item.flag is None or f == item.flag) for f, v in usage.flag_values)
    if item.kind == "method":
        return item.name in usage.methods
    if item.kind == "kv_dtype":
        return item.name in usage.kv_dtypes
    if item.kind == "env_var":
        return item.name in usage.env_vars
    return item.name in usage.config_keys


def family_matches(named: str, given: str) -> bool:
    """'qwen' covers 'Qwen3-Next' and 'deepseek-v3.2' is covered by 'deepseek': either is a prefix of the other."""
    a, b = (" ".join(s.lower().replace("_", "-").split()).replace(" ", "-") for s in (named, given))
    return a.startswith(b) or b.startswith(a)


def match_gate(gate: VersionGate, usage: Usage, gpus: set[str] | None, family: str | None) -> list[str] | None:
    """Why the gate concerns the caller, or None when everything it names contradicts the inputs."""
    used = [f"{a.kind} {a.name} is in the command" for a in gate.affects if a.kind in _USAGE_KINDS and _used(a, usage)]
    if used:
        return used
    named_gpus = [a.name for a in gate.affects if a.kind == "gpu"]
    named_families = [a.name for a in gate.affects if a.kind == "model_family"]
    why: list[str] = []
    if gpus is not None and named_gpus:
        hit = sorted(gpus & set(named_gpus))
        if not hit:
            return None
        why.append(f"gpu {', '.join(hit)}")
    if family is not None and named_families:
        hit = [n for n in named_families if family_matches(n, family)]
        if not hit:
            return None
        why.append(f"model family {', '.join(hit)}")
    if any(a.kind == "dependency" for a in gate.affects):
        return [*why, "affects every deployment (dependency change)"]
    if usage.known and not why and any(a.kind in _USAGE_KINDS for a in gate.affects):
        return None
    return why or ["names nothing the inputs rule out"]
