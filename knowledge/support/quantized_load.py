"""A quantized checkpoint's load, replayed: the override probes of _verify_quantization, then from_config.

vLLM's `_verify_quantization` asks every method's `override_quantization_method` (the others first, then
the `overrides` list in its order) whether it takes this checkpoint; the first answer that is not None
becomes the method, else the checkpoint's own `quant_method` stays and a different `--quantization` is
refused. get_quant_config then calls that method's `from_config` with the dict. Both are replayed from
the registry's derived terms (knowledge/support/config_replay.py), so the answer is offline and exact
where the dict decides; where a platform check decides and the platform is not known, the answer is
conditional and says what CUDA would do.
"""

from __future__ import annotations

from typing import Any

from vllm_quant_mcp.knowledge.registry.loading import LoadPath
from vllm_quant_mcp.knowledge.registry.model import Registry
from vllm_quant_mcp.knowledge.support.config_replay import Deployment, evaluate, replay
from vllm_quant_mcp.knowledge.support.load_verdict import LoadVerdict, cite, raised_verdict

__all__ = ["mismatch", "replayed_load"]


def replayed_load(
    registry: Registry, config: dict[str, Any], method: str, subject: str, given: Deployment
) -> LoadVerdict | None:
    """As _verify_quantization then get_quant_config go; None where the registry has no replay for the method."""
    resolution, tag = registry.load_resolution, registry.tag
    overrides = [p for n in resolution.overrides if (p := resolution.path(n)) is not None]
    probed = [p for p in resolution.paths if p.name not in resolution.overrides] + overrides
    chosen, switched = method, ""
    for path in probed:
        if path.from_config is None or path.from_config.override is None:
            continue
        answer = evaluate(path.from_config.override, config, given)
        if isinstance(answer, str):
            chosen, switched = answer, f"{path.name}'s override_quantization_method takes it as {answer}; "
            break
        if answer is not None:
            why = str(getattr(answer, "why", "its result"))
            return _undecided_override(registry, path, why, config, method, subject, given)
    quantization = given.quantization
    if not switched and quantization is not None and quantization != method:
        return mismatch(registry, quantization, method, subject)
    target = resolution.path(chosen)
    if target is None or target.from_config is None:
        return None
    replayed, cls = replay(target.from_config, config, given), target.from_config.config_class
    if replayed.outcome == "refused" and replayed.raised is not None:
        refused = raised_verdict(tag, subject, "refused", None, f"{switched}{cls}.from_config raises", replayed.raised)
        return refused.model_copy(update={"scheme": replayed.scheme})
    if replayed.outcome == "conditional" and replayed.guard is not None:
        where = replayed.guard.raised.provenance
        return LoadVerdict(
            subject=subject,
            tag=tag,
            outcome="conditional",
            loads_as=chosen,
            why=f"{switched}{cls}.from_config may raise at {where.path}:{where.line}: {replayed.undecided} decides",
            evidence=[cite(f"{replayed.guard.raised.error} raised here", where.path, where)],
            scheme=replayed.scheme,
        )
    at = target.from_config.provenance
    return LoadVerdict(
        subject=subject,
        tag=tag,
        outcome="loads",
        loads_as=chosen,
        why=f"{switched}{cls}.from_config and its constructor take this quantization_config",
        evidence=[cite(f"{cls}.from_config", at.path, at)],
        scheme=replayed.scheme,
        assumptions=["calls outside vLLM's own Python (torch, enum constructors, other packages) do not raise"]
        + ([f"on {given.platform}"] if given.platform else []),
    )


def _undecided_override(
    registry: Registry,
    probe: LoadPath,
    why: str,
    config: dict[str, Any],
    method: str,
    subject: str,
    given: Deployment,
) -> LoadVerdict:
    """An override probe a run-time value decides: conditional, saying what CUDA would do where the platform
    is what is open, else what the checkpoint's own method does with the config if it is not switched."""
    on_cuda = None
    if given.platform is None:
        on_cuda = replayed_load(registry, config, method, subject, given.model_copy(update={"platform": "cuda"}))
    if on_cuda is not None:
        said = f"{on_cuda.raised.error}: {on_cuda.raised.message}" if on_cuda.raised else on_cuda.why
        left = f"; on CUDA: {on_cuda.outcome}{f' as {on_cuda.loads_as}' if on_cuda.loads_as else ''} ({said})"
    else:
        left = ""
        own = registry.load_resolution.path(method)
        if own is not None and own.from_config is not None:
            replayed = replay(own.from_config, config, given)
            cls = own.from_config.config_class
            left = {
                "refused": f"; left as {method}, {cls}.from_config raises "
                + (f"{replayed.raised.error}: {replayed.raised.message}" if replayed.raised else ""),
                "loads": f"; left as {method}, {cls}.from_config takes it",
                "conditional": f"; left as {method}, {cls}.from_config depends on {replayed.undecided}",
            }[replayed.outcome]
    assert probe.from_config is not None
    at = probe.from_config.provenance
    return LoadVerdict(
        subject=subject,
        tag=registry.tag,
        outcome="conditional",
        why=f"{probe.name}'s override_quantization_method may switch this {method} checkpoint: {why} decides{left}",
        evidence=[cite("the override probe's class", at.path, at)],
        scheme=on_cuda.scheme if on_cuda is not None else {},
    )


def mismatch(registry: Registry, quantization: str, method: str, subject: str) -> LoadVerdict | None:
    """_verify_quantization's refusal of a --quantization other than the checkpoint's method, filled in."""
    raised = registry.load_resolution.mismatch
    if raised is None:
        return None
    said = raised.message.replace("{quant_method}", method).replace("{self.quantization}", quantization)
    return raised_verdict(
        registry.tag,
        subject,
        "refused",
        None,
        "_verify_quantization raises",
        raised.model_copy(update={"message": said}),
    )
