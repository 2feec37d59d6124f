"""Machine-checkable claims a curated fact makes about vLLM source, and their evaluation.

A claim is written in the data files as a one-key mapping, e.g.
`{method_present: {name: bitsandbytes, present: false, since: v0.28.0, boundary: true}}`.
Each claim names a scope: one tag (`at`), or every known tag from `since` (up to,
not including, `until`). `boundary: true` also requires the release just before
`since` to show the opposite, which is what "added in" / "removed in" means.

Evaluation is a pure function of the registries (tag -> Registry): a claim is
confirmed when every tag in scope agrees, contradicted when any disagrees, and
not_checkable when a registry it needs is missing or the registry cannot tell
(an empty kind, a capability that is not a literal).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag, field_validator, model_validator

from vllm_quant_mcp.knowledge.errors import InternalError
from vllm_quant_mcp.knowledge.registry.model import Entry, Registry
from vllm_quant_mcp.knowledge.sources.tree import REPOSITORY_URL
from vllm_quant_mcp.knowledge.tags import normalize_tag, tag_key

__all__ = [
    "PREDICATE_KINDS",
    "Outcome",
    "Predicate",
    "RegistryEvidence",
    "Scope",
    "Status",
    "describe",
    "evaluate",
]

Status = Literal["confirmed", "contradicted", "not_checkable"]
CountKind = Literal["quantization_methods", "kv_cache_dtypes", "online_quantization", "cli_flags", "env_vars"]
BackendKind = Literal["linear", "moe", "attention"]

# The file that lists each kind, named when a claim of absence has no entry to point at.
_DEFINING_FILE: dict[str, str] = {
    "quantization_methods": "vllm/model_executor/layers/quantization/__init__.py",
    "kv_cache_dtypes": "vllm/config/cache.py",
    "online_quantization": "vllm/config/quantization.py",
    "cli_flags": "vllm/engine/arg_utils.py",
    "env_vars": "vllm/envs.py",
    "load_refusals": "vllm/model_executor/model_loader/weight_utils.py",
    "backends": "vllm/config/kernel.py",
}


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Scope(_Strict):
    """Which tags a claim is about."""

    at: str | None = None
    since: str | None = None
    until: str | None = Field(default=None, description="First tag the claim no longer covers (exclusive).")
    boundary: bool = Field(default=False, description="The release just before `since` shows the opposite.")

    @field_validator("at", "since", "until")
    @classmethod
    def _tag(cls, value: str | None) -> str | None:
        return None if value is None else normalize_tag(value)

    @model_validator(mode="after")
    def _one_anchor(self) -> Scope:
        if (self.at is None) == (self.since is None):
            raise ValueError("a claim needs exactly one of `at` (one tag) or `since` (a range); got both or neither")
        if self.at is not None and (self.until is not None or self.boundary):
            raise ValueError("`until` and `boundary` only make sense with `since`, not with `at`")
        if self.since and self.until and tag_key(self.until) <= tag_key(self.since):
            raise ValueError(f"`until` {self.until} must come after `since` {self.since}")
        return self


class NamePresence(Scope):
    name: str
    present: bool = True


class MethodDeprecated(Scope):
    name: str
    deprecated: bool = True


class MinCapability(Scope):
    method: str
    value: int = Field(ge=0)


class MethodConfigClass(Scope):
    name: str
    config_class: str


class EnvVarDefault(Scope):
    name: str
    default: str | None


class FlagChoice(Scope):
    flag: str
    value: str
    present: bool = True


class BackendPresence(Scope):
    kind: BackendKind
    name: str
    present: bool = True


class LoadOutcome(Scope):
    """What `vllm serve` does at load for a method, as the derived load_refusals say: a refusal the load path
    reaches, or a redirect to another method before its config is built."""

    method: str
    outcome: Literal["refused", "redirected"]
    redirect_to: str | None = None
    present: bool = True


class Count(_Strict):
    kind: CountKind
    value: int = Field(ge=0)
    at: str

    @field_validator("at")
    @classmethod
    def _tag(cls, value: str) -> str:
        return normalize_tag(value)


class _Claim(_Strict):
    @property
    def key(self) -> str:
        return next(iter(type(self).model_fields))

    @property
    def args(self) -> BaseModel:
        value: BaseModel = getattr(self, self.key)
        return value


class MethodPresentClaim(_Claim):
    method_present: NamePresence


class KvDtypePresentClaim(_Claim):
    kv_dtype_present: NamePresence


class EnvVarPresentClaim(_Claim):
    env_var_present: NamePresence


class CliFlagPresentClaim(_Claim):
    cli_flag_present: NamePresence


class OnlinePresentClaim(_Claim):
    online_present: NamePresence


class BackendPresentClaim(_Claim):
    backend_present: BackendPresence


class MethodDeprecatedClaim(_Claim):
    method_deprecated: MethodDeprecated


class MinCapabilityClaim(_Claim):
    min_capability: MinCapability


class MethodConfigClassClaim(_Claim):
    method_config_class: MethodConfigClass


class EnvVarDefaultClaim(_Claim):
    env_var_default: EnvVarDefault


class CliFlagChoiceClaim(_Claim):
    cli_flag_choice: FlagChoice


class LoadOutcomeClaim(_Claim):
    load_outcome: LoadOutcome


class CountClaim(_Claim):
    count: Count


_CLAIMS: tuple[type[_Claim], ...] = (
    MethodPresentClaim,
    KvDtypePresentClaim,
    EnvVarPresentClaim,
    CliFlagPresentClaim,
    OnlinePresentClaim,
    BackendPresentClaim,
    MethodDeprecatedClaim,
    MinCapabilityClaim,
    MethodConfigClassClaim,
    EnvVarDefaultClaim,
    CliFlagChoiceClaim,
    LoadOutcomeClaim,
    CountClaim,
)
PREDICATE_KINDS: tuple[str, ...] = tuple(next(iter(c.model_fields)) for c in _CLAIMS)


def _claim_key(value: Any) -> str | None:
    if isinstance(value, _Claim):
        return value.key
    if isinstance(value, dict) and len(value) == 1:
        key = next(iter(value))
        return key if key in PREDICATE_KINDS else None
    return None


Predicate = Annotated[
    Annotated[MethodPresentClaim, Tag("method_present")]
    | Annotated[KvDtypePresentClaim, Tag("kv_dtype_present")]
    | Annotated[EnvVarPresentClaim, Tag("env_var_present")]
    | Annotated[CliFlagPresentClaim, Tag("cli_flag_present")]
    | Annotated[OnlinePresentClaim, Tag("online_present")]
    | Annotated[BackendPresentClaim, Tag("backend_present")]
    | Annotated[MethodDeprecatedClaim, Tag("method_deprecated")]
    | Annotated[MinCapabilityClaim, Tag("min_capability")]
    | Annotated[MethodConfigClassClaim, Tag("method_config_class")]
    | Annotated[EnvVarDefaultClaim, Tag("env_var_default")]
    | Annotated[CliFlagChoiceClaim, Tag("cli_flag_choice")]
    | Annotated[LoadOutcomeClaim, Tag("load_outcome")]
    | Annotated[CountClaim, Tag("count")],
    Discriminator(
        _claim_key,
        custom_error_type="unknown_predicate",
        custom_error_message=f"a predicate is a one-key mapping whose key is one of {', '.join(PREDICATE_KINDS)}",
    ),
]


class RegistryEvidence(_Strict):
    """What one tag's registry showed for a claim."""

    tag: str
    path: str | None = None
    line: int | None = None
    permalink: str | None = None
    observed: str = Field(description="What the registry holds here, e.g. 'present', 'absent', 'min_capability=75'.")


class Outcome(_Strict):
    status: Status
    reason: str
    evidence: list[RegistryEvidence] = []


# --- evaluation -----------------------------------------------------------------------------------


class _NotCheckable(InternalError):
    """The registry of a tag cannot answer the claim (missing, or the kind came back empty)."""


# One tag's observation: the value compared against the claim, plus where it was read.
_Observation = tuple[object, RegistryEvidence]
_Probe = Callable[[Registry], _Observation]


def _entry_evidence(registry: Registry, entry: Entry, observed: str) -> RegistryEvidence:
    p = entry.provenance
    return RegistryEvidence(tag=registry.tag, path=p.path, line=p.line, permalink=p.permalink, observed=observed)


def _absence_evidence(registry: Registry, kind: str, entries: Sequence[Entry], observed: str) -> RegistryEvidence:
    path = entries[0].provenance.path if entries else _DEFINING_FILE[kind]
    link = f"{REPOSITORY_URL}/blob/{registry.tag}/{path}"
    return RegistryEvidence(tag=registry.tag, path=path, permalink=link, observed=observed)


def _entries(registry: Registry, kind: str) -> Sequence[Entry]:
    if kind in ("linear", "moe", "attention"):
        found: Sequence[Entry] = getattr(registry.backends, kind)
        note = registry.notes.get("backends")
    else:
        found = getattr(registry, kind)
        note = registry.notes.get(kind)
    if not found:
        why = f": {note}" if note else ""
        raise _NotCheckable(f"the {registry.tag} registry has no {kind} entries{why}")
    return found


def _find(registry: Registry, kind: str, name: str) -> tuple[Sequence[Entry], Entry | None]:
    entries = _entries(registry, kind)
    if kind == "quantization_methods":
        entries = [e for e in entries if getattr(e, "accepted_by_cli", True)]
    return entries, next((e for e in entries if e.name == name), None)


def _presence(kind: str, name: str) -> _Probe:
    def probe(registry: Registry) -> _Observation:
        entries, entry = _find(registry, kind, name)
        if entry is None:
            file_kind = "backends" if kind in ("linear", "moe", "attention") else kind
            return False, _absence_evidence(registry, file_kind, entries, f"{name} absent")
        return True, _entry_evidence(registry, entry, f"{name} present")

    return probe


def _attribute(kind: str, name: str, read: Callable[[Entry], object], label: str) -> _Probe:
    """Probe one attribute of a named entry; an absent entry is a definite observation, not an error."""

    def probe(registry: Registry) -> _Observation:
        entries, entry = _find(registry, kind, name)
        if entry is None:
            return None, _absence_evidence(registry, kind, entries, f"{name} absent")
        value = read(entry)
        return value, _entry_evidence(registry, entry, f"{label}={value}")

    return probe


def _literal_attribute(kind: str, name: str, field: str, what: str) -> _Probe:
    """An entry's attribute, where a present entry whose value the source does not state literally is not
    checkable (rather than a contradiction)."""
    inner = _attribute(kind, name, lambda e: getattr(e, field, None), field)

    def probe(registry: Registry) -> _Observation:
        value, evidence = inner(registry)
        if value is None and evidence.line is not None:
            raise _NotCheckable(f"{name} at {registry.tag} has no literal {what} in the source")
        return value, evidence

    return probe


def _load_outcome(a: LoadOutcome) -> _Probe:
    """Whether the tag's load_refusals hold a reached entry of that outcome for the method; a refusal the
    load path never reaches (a redirect decides first) does not count, which is the call-path rule."""

    def probe(registry: Registry) -> _Observation:
        entries = _entries(registry, "load_refusals")
        found = next(
            (
                r
                for r in registry.load_refusals
                if a.method in r.methods
                and r.outcome == a.outcome
                and r.reached
                and (a.redirect_to is None or r.redirect_to == a.redirect_to)
            ),
            None,
        )
        if found is None:
            return False, _absence_evidence(
                registry, "load_refusals", entries, f"no reached {a.outcome} for {a.method}"
            )
        return True, _entry_evidence(
            registry, found, f"{a.outcome} {a.method}" + (f" to {found.redirect_to}" if found.redirect_to else "")
        )

    return probe


def _count(kind: CountKind) -> _Probe:
    def probe(registry: Registry) -> _Observation:
        entries = _entries(registry, kind)
        if kind == "quantization_methods":
            entries = [e for e in entries if getattr(e, "accepted_by_cli", True)]
        return len(entries), _absence_evidence(registry, kind, entries, f"{len(entries)} {kind}")

    return probe


def _plan(claim: _Claim) -> tuple[_Probe, Callable[[object], bool]]:
    """The probe a claim runs on each tag, and the test its observation must pass."""
    a: Any = claim.args
    kinds = {
        "method_present": "quantization_methods",
        "kv_dtype_present": "kv_cache_dtypes",
        "env_var_present": "env_vars",
        "cli_flag_present": "cli_flags",
        "online_present": "online_quantization",
    }
    key = claim.key
    if key in kinds:
        return _presence(kinds[key], a.name), lambda seen: seen == a.present
    if key == "backend_present":
        return _presence(a.kind, a.name), lambda seen: seen == a.present
    if key == "method_deprecated":
        return (
            _attribute("quantization_methods", a.name, lambda e: getattr(e, "deprecated", None), "deprecated"),
            lambda seen: seen == a.deprecated,
        )
    if key == "min_capability":
        return _literal_attribute(
            "quantization_methods", a.method, "min_capability", "min capability"
        ), lambda seen: seen == a.value
    if key == "method_config_class":
        return (
            _attribute("quantization_methods", a.name, lambda e: getattr(e, "config_class", None), "config_class"),
            lambda seen: seen == a.config_class,
        )
    if key == "env_var_default":
        return (
            _attribute("env_vars", a.name, lambda e: getattr(e, "default", None), "default"),
            lambda seen: seen == a.default,
        )
    if key == "cli_flag_choice":
        return _literal_attribute(
            "cli_flags", a.flag, "choices", "choices"
        ), lambda seen: isinstance(seen, list) and (a.value in seen) == a.present
    if key == "load_outcome":
        return _load_outcome(a), lambda seen: seen == a.present
    return _count(a.kind), lambda seen: seen == a.value


def _scope_tags(scope: Scope | Count, known: Sequence[str]) -> list[str]:
    if scope.at is not None:
        return [scope.at]
    assert isinstance(scope, Scope) and scope.since is not None
    low, high = tag_key(scope.since), tag_key(scope.until) if scope.until else None
    return [t for t in known if tag_key(t) >= low and (high is None or tag_key(t) < high)]


def _previous(tag: str, known: Sequence[str]) -> str | None:
    earlier = [t for t in known if tag_key(t) < tag_key(tag)]
    return earlier[-1] if earlier else None


def evaluate(
    predicate: Predicate, registries: Mapping[str, Registry], known_tags: Sequence[str] | None = None
) -> Outcome:
    """Check one claim against the registries.

    `known_tags` is every release tag the caller knows of (default: the registries'
    tags); it decides which tag comes just before `since` for a boundary claim, so a
    gap in the registries makes that claim not_checkable instead of silently weaker.
    """
    known = sorted({*registries, *(known_tags or ())}, key=tag_key)
    probe, holds = _plan(predicate)
    scope: Any = predicate.args
    in_scope = _scope_tags(scope, known)
    if not in_scope:
        return Outcome(
            status="not_checkable", reason=f"no known tag falls in the claim's range ({describe(predicate)})"
        )
    checks: list[tuple[str, bool]] = [(t, True) for t in in_scope]
    if isinstance(scope, Scope) and scope.boundary and scope.since is not None:
        before = _previous(scope.since, known)
        if before is None:
            return Outcome(status="not_checkable", reason=f"no known release before {scope.since} to check the change")
        checks.insert(0, (before, False))

    agree: list[RegistryEvidence] = []
    disagree: list[RegistryEvidence] = []
    unknown: list[str] = []
    for tag, expect in checks:
        registry = registries.get(tag)
        if registry is None:
            unknown.append(f"no registry for {tag}")
            continue
        try:
            seen, evidence = probe(registry)
        except _NotCheckable as exc:
            unknown.append(str(exc))
            continue
        (agree if holds(seen) == expect else disagree).append(evidence)
    if disagree:
        where = ", ".join(e.tag for e in disagree)
        return Outcome(status="contradicted", reason=f"the source disagrees at {where}", evidence=disagree + agree)
    if unknown:
        return Outcome(status="not_checkable", reason="; ".join(unknown), evidence=agree)
    return Outcome(status="confirmed", reason=f"holds at {len(agree)} tag(s)", evidence=agree)


def describe(predicate: Predicate) -> str:
    """A one-line rendering of a claim for reports, e.g. `method_present(name=gguf, present=False, since=v0.23.0)`."""
    fields = predicate.args.model_dump(exclude_defaults=True)
    if isinstance(predicate.args, Scope) and not predicate.args.boundary:
        fields.pop("boundary", None)
    body = ", ".join(f"{k}={v}" for k, v in fields.items())
    return f"{predicate.key}({body})"
