"""Whether vLLM at a tag can build the model a config.json names, judged from its model registry.

vLLM resolves `architectures` in `_ModelRegistry.inspect_model_cls` (registry.py): a name its
registry lists loads that class (`yes`); under `--model-impl auto` a name it does not list falls
back to the Transformers backend, which serves it only if the installed transformers (or the
repo's `auto_map`) has a backend-compatible class, a run-time fact (`conditional`, with where it
is decided and the nearest names the registry does know); a removed name, and under
`--model-impl vllm` an unknown one, is refused with vLLM's own message (`no`). Each answer cites
the registry's lines at the tag; a config without `architectures` is judged on nothing and says so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from vllm_quant_mcp.knowledge.names import nearest
from vllm_quant_mcp.knowledge.registry.matrix import Verdict
from vllm_quant_mcp.knowledge.registry.model import (
    ArchitectureResolution,
    Architectures,
    KnownArchitecture,
    Provenance,
    Registry,
)
from vllm_quant_mcp.knowledge.registry.model import RemovedArchitecture as Removed

from .judgement import Evidence, Judgement

__all__ = ["ANY_GPU", "architecture_judgement"]

ANY_GPU = "any"  # the registry's answer does not depend on the GPU
_TRANSFORMERS_TABLES = {"transformers_supported", "transformers_backend", "transformers"}
_FIELD = re.compile(r"\{[^{}]*\}")
# The suffixes vLLM's _normalize_arch swaps (config/model.py's _SUFFIX_TO_DEFAULTS), longest first.
_TASK_SUFFIX = re.compile(
    r"(ForCausalLM|ForConditionalGeneration|ChatModel|LMHeadModel|ForTextEncoding|EmbeddingModel|"
    r"For(?:Sequence|Token|Audio|Image|Video)Classification|ClassificationModel|ForRewardModeling|RewardModel|Model)$"
)


@dataclass(frozen=True)
class _Asked:
    """The subject and tag every answer for one question shares."""

    subject: str
    tag: str
    model: str | None

    def judge(
        self,
        verdict: Verdict,
        why: str,
        via: str | None = None,
        evidence: list[Evidence] | None = None,
        assumptions: list[str] | None = None,
    ) -> Judgement:
        return Judgement(
            subject=self.subject,
            gpu=ANY_GPU,
            tag=self.tag,
            verdict=verdict,
            basis="source",
            via=via,
            why=why,
            evidence=evidence or [],
            assumptions=assumptions or [],
            model=self.model,
        )


def architecture_judgement(
    registry: Registry, architectures: list[str], model_impl: str = "auto", model: str | None = None
) -> Judgement:
    """What `vllm serve` at the registry's tag does with a config naming `architectures` under `--model-impl`
    (`model`: where that config was read, shown with the answer)."""
    table = registry.architectures
    subject = f"architectures {', '.join(architectures)}" if architectures else "architectures (none named)"
    base = _Asked(subject, registry.tag, model)
    if not table.known:
        note = registry.notes.get("architectures", "the registry holds no model architectures")
        return base.judge(verdict="conditional", why=f"Not checked at {registry.tag}: {note}.")
    if not architectures:
        return base.judge(
            verdict="conditional",
            why="The model's config.json names no `architectures`, so nothing was checked against vLLM's registry.",
            assumptions=[
                "config.json has no `architectures`: which class vLLM builds was not judged (vLLM reads them from the "
                "config it loads)."
            ],
        )
    names = {entry.name: entry for entry in table.known}
    known = next((names[a] for a in architectures if a in names), None)
    impl = model_impl.strip().lower() or "auto"
    if impl == "transformers" and table.resolution.transformers is not None:
        return _transformers_asked(base, table, architectures[0], known)
    if known is not None:
        return _native(base, known)
    return _unknown(registry, base, table, architectures, impl)


def _native(base: _Asked, known: KnownArchitecture) -> Judgement:
    through = " (the Transformers backend, as vLLM's registry maps it)" if known.table in _TRANSFORMERS_TABLES else ""
    return base.judge(
        verdict="yes",
        via=f"{known.module}.{known.class_name}",
        why=f"{known.name} is in vLLM's model registry ({known.table}): {known.module}.{known.class_name}{through}.",
        evidence=_lines((f"{known.name} -> ({known.module}, {known.class_name})", known.provenance)),
    )


def _transformers_asked(base: _Asked, table: Architectures, first: str, known: KnownArchitecture | None) -> Judgement:
    resolve = table.resolution.transformers
    assert resolve is not None
    native = f" (vLLM's own class would be {known.module}.{known.class_name})" if known is not None else ""
    return base.judge(
        verdict="conditional",
        via="Transformers backend",
        why=(
            f"--model-impl transformers: vLLM builds {first} through the Transformers backend{native}; whether the "
            "installed transformers (or the repo's auto_map) has a backend-compatible class is decided at run time."
        ),
        evidence=_lines(("_try_resolve_transformers: the class must exist and be backend-compatible", resolve)),
    )


def _unknown(registry: Registry, base: _Asked, table: Architectures, architectures: list[str], impl: str) -> Judgement:
    """A name the registry does not list: removed (vLLM's message), converted, the Transformers fallback, or refused."""
    res = table.resolution
    named = ", ".join(architectures)
    gone = {entry.name: entry for entry in table.removed}
    removed = next((gone[a] for a in architectures if a in gone), None)
    fallback = res.fallback if impl == "auto" else None
    tried = _lines(("--model-impl auto: vLLM tries the Transformers backend for a name it does not list", fallback))
    if removed is not None:
        return _removed(base, res, removed, tried)
    base_model = _converted(architectures, {e.name for e in table.known})
    if base_model is not None and res.normalize is not None:
        return base.judge(
            verdict="conditional",
            via=base_model,
            why=(
                f"{named} is not in vLLM's model registry at {registry.tag}, but {base_model} is: vLLM reads a name "
                "with another task's suffix as its base model when the runner and convert options ask for that task."
            ),
            evidence=[*tried, *_lines(("_normalize_arch: the base model of a task suffix", res.normalize))],
        )
    near = sorted({n for a in architectures for n in nearest(a, (e.name for e in table.known), cutoff=0.7)})
    hint = f" Nearest names vLLM knows at {registry.tag}: {', '.join(near)}." if near else ""
    said = _fill(res.unsupported_message, [repr(architectures), f"[{len(table.known)} names]"])
    refusal = _lines(("vLLM refuses a name it does not know", res.unsupported_provenance))
    quoted = f" vLLM: {said!r}" if said else ""
    if fallback is not None and res.transformers is not None:
        return base.judge(
            verdict="conditional",
            via="Transformers backend",
            why=(
                f"{named} is not in vLLM's own model registry at {registry.tag}: under --model-impl auto vLLM falls "
                "back to the Transformers backend, which serves it only if the installed transformers (or the repo's "
                "auto_map, with --trust-remote-code) has a backend-compatible class; otherwise vLLM refuses it."
                f"{quoted}{hint}"
            ),
            evidence=[
                *tried,
                *_lines(("_try_resolve_transformers: the class must exist and be compatible", res.transformers)),
                *refusal,
            ],
        )
    reason = (
        "under --model-impl vllm the Transformers fallback is not tried"
        if impl != "auto"
        else f"{registry.tag} has no Transformers-backend fallback"
    )
    return base.judge(
        verdict="no",
        why=f"{named} is not in vLLM's model registry at {registry.tag}, and {reason}.{quoted}{hint}",
        evidence=refusal,
    )


def _removed(base: _Asked, res: ArchitectureResolution, removed: Removed, tried: list[Evidence]) -> Judgement:
    """A name vLLM lists as removed (or moved to a plugin): refused with its own message."""
    tag = base.tag
    if removed.plugin is not None:
        said = _fill(res.plugin_message, [removed.name, removed.plugin])
        lost = f"{removed.name} is no longer in vLLM's tree at {tag}; vLLM points to a plugin"
        action = f"install the plugin at {removed.plugin}, or serve it with a release that still has it"
        message_at = res.plugin_provenance
    else:
        said = _fill(res.removed_message, [removed.name, removed.last_version or ""])
        lost = f"{removed.name} was supported in vLLM until v{removed.last_version}; {tag} refuses it"
        action = f"serve it with vLLM v{removed.last_version}, or pick a model whose architecture {tag} lists"
        message_at = res.removed_provenance
    listed = f"{removed.name}: {removed.last_version or removed.plugin}"
    return base.judge(
        verdict="no",
        why=f"{lost}.{f' vLLM: {said!r}' if said else ''} Fix: {action}.",
        evidence=[*tried, *_lines((listed, removed.provenance), ("vLLM's message for it", message_at))],
        assumptions=[
            "The Transformers backend, which vLLM tries first under --model-impl auto, does not take it (it serves "
            "only a class the installed transformers has and marks backend-compatible)."
        ]
        if tried
        else [],
    )


def _converted(architectures: list[str], known: set[str]) -> str | None:
    """A known name sharing an architecture's stem under another task suffix (Qwen3ForSequenceClassification ->
    Qwen3ForCausalLM), which _normalize_arch can load converted."""
    for arch in architectures:
        match = _TASK_SUFFIX.search(arch)
        if match is None or match.start() == 0:
            continue
        stem = arch[: match.start()]
        for suffix in ("ForCausalLM", "ForConditionalGeneration", "LMHeadModel", "Model"):
            if stem + suffix in known and stem + suffix != arch:
                return stem + suffix
    return None


def _fill(template: str | None, values: list[str]) -> str | None:
    """vLLM's f-string with its fields filled in order, as the operator would read it."""
    if template is None:
        return None
    fill = iter(values)
    return _FIELD.sub(lambda m: next(fill, m.group(0)), template)


def _lines(*pairs: tuple[str, Provenance | None]) -> list[Evidence]:
    """Evidence for each line the tag has (an older layout may lack one)."""
    return [Evidence(why=why, path=p.path, line=p.line, permalink=p.permalink) for why, p in pairs if p is not None]
