"""What vLLM does with *this* checkpoint and *this* `--quantization` at a tag: loads, redirected, refused.

A pure function over the registry's `load_resolution` (derived from the source by
knowledge/extract/loading/), so it answers offline. The checkpoint is described by what vLLM reads
from it: the `quant_method` of its `quantization_config` (config.json, or hf_quant_config.json,
which vLLM folds into it), or none (a BF16/FP16 model). Where the checkpoint is not known the
caller gets no verdict: guessing the checkpoint would be a guess about the answer.

`--quantization-config` is checked here too, against the tag's QuantizationConfigArgs: unknown
keys and names as vLLM's validators refuse them, `targets` beside `linear`/`moe`, and an explicit
`activation`, which the online dispatch refuses while building the first layer.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from vllm_quant_mcp.knowledge.bounded import read_bounded
from vllm_quant_mcp.knowledge.errors import InvalidInputError
from vllm_quant_mcp.knowledge.names import nearest
from vllm_quant_mcp.knowledge.registry.loading import LoadStep, OnlineArgs, Raise
from vllm_quant_mcp.knowledge.registry.model import Registry
from vllm_quant_mcp.knowledge.support.config_replay import Deployment
from vllm_quant_mcp.knowledge.support.load_verdict import Checkpoint, LoadVerdict, cite, raised_verdict
from vllm_quant_mcp.knowledge.support.quantized_load import mismatch, replayed_load

__all__ = [
    "Checkpoint",
    "LoadVerdict",
    "check_attention_options",
    "check_quantization_config",
    "platform_of",
    "read_checkpoint",
    "resolve_load",
    "unquantized",
]

_UNQUANTIZED = {"bf16", "bfloat16", "fp16", "float16", "half", "fp32", "float32"}
_CONFIG_LIMIT = 4 * 1024 * 1024


_PLATFORMS = {"nvidia": "cuda", "amd": "rocm", "cpu": "cpu"}


def platform_of(vendor: str | None) -> str | None:
    """The `current_platform` a GPU vendor means (nvidia -> cuda): what the override probes ask."""
    return _PLATFORMS.get(vendor or "")


def unquantized(checkpoint_dtype: str | None) -> Checkpoint | None:
    """A checkpoint said to be BF16/FP16 (`--checkpoint-dtype`): no quantization config in it."""
    if checkpoint_dtype is None or checkpoint_dtype.strip().lower() not in _UNQUANTIZED:
        return None
    return Checkpoint(quant_method=None, source=f"checkpoint dtype {checkpoint_dtype.strip()}")


def read_checkpoint(folder: Path) -> Checkpoint | None:
    """A local checkpoint folder's quantization, read as vLLM reads it; None where the folder has no config.json."""
    config = folder / "config.json"
    if not folder.is_dir() or not config.is_file():
        return None
    fix = "point the model at a Hugging Face checkpoint folder with a config.json"
    try:
        data = json.loads(read_bounded(config, _CONFIG_LIMIT, fix))
    except ValueError as exc:
        raise InvalidInputError(f"{config} is not valid JSON ({exc}); {fix}.") from exc
    if not isinstance(data, dict):
        raise InvalidInputError(f"{config} holds {type(data).__name__}, not a JSON object; {fix}.")
    inner = data.get("text_config")
    text: dict[str, Any] = inner if isinstance(inner, dict) else {}
    quant = data.get("quantization_config") or text.get("quantization_config") or data.get("compression_config")
    kind = str(data["model_type"]) if isinstance(data.get("model_type"), str) else None
    hf_quant = folder / "hf_quant_config.json"
    if not isinstance(quant, dict) and hf_quant.is_file():
        # vLLM's get_config folds hf_quant_config.json into quantization_config (ModelOpt checkpoints).
        held = json.loads(read_bounded(hf_quant, _CONFIG_LIMIT, fix))
        producer = held.get("producer", {}) if isinstance(held, dict) else {}
        name = producer.get("name") if isinstance(producer, dict) else None
        given = held if isinstance(held, dict) else None
        return Checkpoint(
            quant_method=str(name or "modelopt"), source=str(hf_quant), quantization_config=given, model_type=kind
        )
    method = quant.get("quant_method") if isinstance(quant, dict) else None
    return Checkpoint(
        quant_method=str(method) if method else None,
        source=str(config),
        quantization_config=quant if isinstance(quant, dict) and method else None,
        model_type=kind,
    )


def resolve_load(
    registry: Registry,
    quantization: str | None,
    checkpoint: Checkpoint,
    quantization_config: dict[str, Any] | None = None,
    platform: str | None = None,
) -> LoadVerdict | None:
    """The tag's answer for this checkpoint and --quantization; None where the registry holds no load path.

    `platform` ('cuda', 'rocm', 'cpu', 'xpu'): where vLLM runs, for the override probes that ask; None leaves
    them open (the answer then says what CUDA would do)."""
    resolution = registry.load_resolution
    tag = registry.tag
    if checkpoint.quant_method is not None:
        return _quantized(registry, quantization, checkpoint, platform)
    if quantization is None:
        return None
    path = resolution.path(quantization)
    if path is None:
        return None
    subject = f"--quantization {quantization} on a checkpoint without a quantization config ({checkpoint.source})"
    online = resolution.online
    needs_online = online.config_needs_online if online is not None else None
    if quantization_config is not None and path.unquantized_with_config is None and needs_online is not None:
        return raised_verdict(tag, subject, "refused", None, "resolve_quantization_config raises", needs_online)
    step = path.unquantized_with_config if quantization_config is not None else path.unquantized
    step = step or path.unquantized
    verdict = _from_step(tag, subject, step)
    if verdict.outcome == "loads" and path.needs:
        need = path.needs[0]
        verdict = verdict.model_copy(
            update={
                "outcome": "conditional",
                "why": f"{verdict.why}; needs `pip install {need.requirement}` (checked when imported)",
                "evidence": [*verdict.evidence, cite("the import check", need.provenance.path, need.provenance)],
            }
        )
    return verdict


def _quantized(
    registry: Registry, quantization: str | None, checkpoint: Checkpoint, platform: str | None
) -> LoadVerdict | None:
    """A checkpoint with a config: the method it names, unless --quantization names another one."""
    resolution, tag, method = registry.load_resolution, registry.tag, checkpoint.quant_method
    subject = f"--quantization {quantization or '(none)'} on a {method} checkpoint ({checkpoint.source})"
    if checkpoint.quantization_config is not None and any(p.from_config for p in resolution.paths):
        given = Deployment(quantization=quantization, platform=platform, model_type=checkpoint.model_type)
        return replayed_load(registry, checkpoint.quantization_config, str(method), subject, given)
    if quantization is None or quantization == method:
        return LoadVerdict(
            subject=subject,
            tag=tag,
            outcome="loads",
            loads_as=method,
            why=f"the checkpoint's {method} config is read by its from_config",
            assumptions=["the config's own contents (group size, bits, schemes) are not checked here"],
        )
    asked, named = resolution.path(quantization), resolution.path(str(method))
    same = asked is not None and named is not None and asked.config_class == named.config_class
    if same or quantization in resolution.overrides:
        where = resolution.overrides_provenance
        return LoadVerdict(
            subject=subject,
            tag=tag,
            outcome="conditional",
            loads_as=quantization,
            why=f"{quantization}'s override_quantization_method decides whether it takes a {method} checkpoint",
            evidence=[cite("the override list", where.path, where)] if where is not None else [],
        )
    return mismatch(registry, quantization, str(method), subject)


def _from_step(tag: str, subject: str, step: LoadStep) -> LoadVerdict:
    evidence = [cite(step.why, step.provenance.path, step.provenance)]
    if step.raised is not None and step.raised.provenance != step.provenance:
        evidence.append(cite(f"{step.raised.error} raised here", step.raised.provenance.path, step.raised.provenance))
    return LoadVerdict(
        subject=subject,
        tag=tag,
        outcome=step.outcome,
        loads_as=step.loads_as,
        why=step.why,
        raised=step.raised,
        evidence=evidence,
    )


def check_quantization_config(
    registry: Registry, quantization: str | None, config: dict[str, Any]
) -> list[LoadVerdict]:
    """Refusals of `--quantization-config` at the tag, each quoting the validator or raise of vLLM that refuses."""
    online = registry.load_resolution.online
    if online is None:
        return []
    tag = registry.tag
    found: list[LoadVerdict] = []

    def refuse(why: str, raised: Raise | None = None) -> None:
        found.append(
            LoadVerdict(
                subject=f"--quantization-config {json.dumps(config)[:200]}",
                tag=tag,
                outcome="refused",
                why=why,
                raised=raised,
                evidence=[cite(why, (raised or online).provenance.path, (raised or online).provenance)],
            )
        )

    shorthands = {e.name for e in registry.online_quantization if e.kind == "shorthand"}
    for key, value in config.items():
        if key not in online.fields:
            refuse(f"`{key}` is not a QuantizationConfigArgs field at {tag} (fields: {', '.join(online.fields)})")
        elif key in ("linear", "moe"):
            _check_spec(online, shorthands, key, value, refuse)
    exclusive = online.targets_exclusive
    if exclusive is not None and config.get("targets") is not None and ({"linear", "moe"} & set(config)):
        refuse("QuantizationConfigArgs' validator refuses `targets` beside `linear`/`moe`", exclusive)
    refused = online.activation_refused
    online_names = shorthands | {"online"}
    if refused is not None and (quantization is None or quantization in online_names):
        for key in ("linear", "moe"):
            spec = config.get(key)
            built = online.dispatch.get(key, {}).get(str(spec.get("weight"))) if isinstance(spec, dict) else None
            # Reached only past the validators and the dispatch's own weight lookup: a known weight name.
            if built is not None and isinstance(spec, dict) and spec.get("activation") is not None:
                # vLLM prints the QuantKey object; it is named here as the caller wrote it.
                said = refused.message.replace("{spec.activation}", str(spec["activation"]))
                said = said.replace("{cls.__name__}", built)
                refuse(
                    f"the online dispatch refuses an explicit `{key}.activation` while building the layer (the "
                    "server starts loading, then stops)",
                    refused.model_copy(update={"message": said}),
                )
    return found


def _check_spec(online: OnlineArgs, shorthands: set[str], key: str, value: object, refuse: Any) -> None:
    if isinstance(value, str):
        if value not in shorthands and value not in online.key_names:
            refuse(
                f"`{key}: {value}` names neither an online shorthand nor a QUANT_KEY_NAMES entry", _named(online, value)
            )
        return
    if not isinstance(value, dict):
        return
    for field, name in value.items():
        if field not in online.spec_fields:
            refuse(f"`{key}.{field}` is not a QuantSpec field (fields: {', '.join(online.spec_fields)})")
        elif isinstance(name, str) and name not in online.key_names:
            refuse(f"`{key}.{field}: {name}` is not in QUANT_KEY_NAMES", _named(online, name))


def _named(online: OnlineArgs, name: str) -> Raise | None:
    """_coerce_quant_key's refusal of a name, as vLLM words it (its f-string filled in)."""
    if online.unknown_name is None:
        return None
    said = online.unknown_name.message.replace("{v!r}", repr(name))
    said = said.replace("{sorted(QUANT_KEY_NAMES)}", str(sorted(online.key_names)))
    return online.unknown_name.model_copy(update={"message": said})


def check_attention_options(
    registry: Registry, backend: str | None, config: dict[str, Any] | None
) -> list[LoadVerdict]:
    """`--attention-backend` and `--attention-config` against the tag: its backends (AttentionConfig parses the
    name upper-cased, "auto" meaning none) and AttentionConfig's fields and Literal values."""
    attention = registry.load_resolution.attention
    if attention is None:
        return []
    tag, where = registry.tag, attention.provenance
    names = [b.name for b in registry.backends.attention]
    found: list[LoadVerdict] = []

    def refuse(subject: str, why: str) -> None:
        found.append(
            LoadVerdict(subject=subject, tag=tag, outcome="refused", why=why, evidence=[cite(why, where.path, where)])
        )

    def named(subject: str, value: object) -> None:
        if isinstance(value, str) and value.lower() != "auto" and names and value.upper() not in names:
            near = nearest(value.upper(), names)
            hint = f"; nearest: {', '.join(near)}" if near else f"; AttentionBackendEnum: {', '.join(names)}"
            refuse(subject, f"`{value}` is not an attention backend at {tag}{hint}")

    named(f"--attention-backend {backend}", backend)
    for key, value in (config or {}).items():
        subject = f"--attention-config {key}={value}"
        if key not in attention.fields:
            refuse(subject, f"`{key}` is not an AttentionConfig field at {tag} (fields: {', '.join(attention.fields)})")
        elif key in attention.backend_fields:
            named(subject, value)
        elif key in attention.choices and value is not None and str(value) not in attention.choices[key]:
            refuse(subject, f"AttentionConfig.{key} takes {', '.join(attention.choices[key])} at {tag}")
    return found
