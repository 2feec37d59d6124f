"""The checks `render_serve_cmd` runs before it writes anything: names, values, the GPU, the gates.

Every flag and value is looked up in the registry of the tag; a miss is an error that
names the nearest names there and the tags where the name does exist, so the caller
can fix the tag or the flag. What vLLM accepts but does worse (a Marlin fallback, a
deprecated flag) is a warning, never a silent change; the one change made on the
caller's behalf (fp8 on a BF16 checkpoint, which the tag's loader redirects) says why and
where. Each warning opens with its basis: [source] for the tag's code, [curated] for the
knowledge base, which only ever warns.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from vllm_quant_mcp.knowledge.errors import InvalidInputError
from vllm_quant_mcp.knowledge.facts.fact import CitationRef, cite
from vllm_quant_mcp.knowledge.facts.kinds import Gpu
from vllm_quant_mcp.knowledge.facts.knowledge_base import KnowledgeBase
from vllm_quant_mcp.knowledge.names import nearest
from vllm_quant_mcp.knowledge.registry.across import release_spans, tags_having, tags_where
from vllm_quant_mcp.knowledge.registry.model import CliFlag, QuantizationMethod, Registry
from vllm_quant_mcp.knowledge.support.architecture import architecture_judgement
from vllm_quant_mcp.knowledge.support.curated import dissent, kv_fact
from vllm_quant_mcp.knowledge.support.deployment import kv_for_deployment
from vllm_quant_mcp.knowledge.support.evaluate import load_refusals, method_support
from vllm_quant_mcp.knowledge.support.formats import classify, method_family
from vllm_quant_mcp.knowledge.support.judgement import Judgement
from vllm_quant_mcp.knowledge.support.kernels import kernel_judgements, kernel_support
from vllm_quant_mcp.knowledge.support.loading import (
    LoadVerdict,
    check_attention_options,
    check_quantization_config,
    read_checkpoint,
    resolve_load,
    unquantized,
)
from vllm_quant_mcp.knowledge.support.model_input import ModelArchitectures
from vllm_quant_mcp.knowledge.support.shape import AttentionShape
from vllm_quant_mcp.tools.context import ToolContext

__all__ = [
    "InvalidServeArgsError",
    "Notes",
    "check_architecture",
    "check_attention",
    "check_gpu",
    "check_kv_on_gpu",
    "check_load",
    "check_refusals",
    "fp8_redirect",
    "lookup_flag",
    "lookup_value",
]

_UNQUANTIZED = {"bf16": "bf16", "bfloat16": "bf16", "fp16": "fp16", "float16": "fp16", "half": "fp16"}
T = TypeVar("T")


class InvalidServeArgsError(InvalidInputError):
    """An argument names something the tag lacks, or two arguments contradict; the message says the fix."""


@dataclass
class Notes:
    """Warnings and citations gathered while checking, without repeats."""

    warnings: list[str] = field(default_factory=list)
    citations: dict[str, CitationRef] = field(default_factory=dict)
    judgements: list[Judgement] = field(default_factory=list)

    def judge(self, judgement: Judgement) -> None:
        self.judgements.append(judgement)

    def warn(self, text: str, citations: Iterable[CitationRef] = ()) -> None:
        if text not in self.warnings:
            self.warnings.append(text)
        for c in citations:
            self.citations.setdefault(c.url, c)


MAX_LISTED = 30


def _elsewhere(ctx: ToolContext, tags: list[str]) -> str:
    if not tags:
        return "no bundled release has it"
    return f"it exists at {release_spans(ctx.store.known_tags(), tags)} ({len(tags)} releases)"


def lookup_flag(ctx: ToolContext, registry: Registry, written: str) -> tuple[CliFlag, bool]:
    """The tag's entry for a flag spelling (name, alias or --no- form) and whether it negates; else an error."""
    found = registry.find_flag(written)
    if found is not None:
        return found
    near = nearest(written, (f.name for f in registry.cli_flags))
    tags = tags_having(ctx.store, [("cli_flags", written)])[("cli_flags", written)]
    hint = f" Nearest flags at {registry.tag}: {', '.join(near)}." if near else ""
    raise InvalidServeArgsError(
        f"`{written}` is not a `vllm serve` flag at {registry.tag}; {_elsewhere(ctx, tags)}.{hint} "
        "Drop it, or pick a tag that defines it."
    )


def lookup_value(
    ctx: ToolContext,
    registry: Registry,
    what: str,
    value: str,
    entries: Callable[[Registry], list[T]],
    name: Callable[[T], str],
    extra: str = "",
) -> T:
    """The registry entry named `value` among `entries` at the tag; else an error with the nearest and where it is."""
    found = next((e for e in entries(registry) if name(e) == value), None)
    if found is not None:
        return found
    valid = [name(e) for e in entries(registry)]
    near = nearest(value, valid, cutoff=0.5)
    tags = tags_where(ctx.store, lambda r: any(name(e) == value for e in entries(r)))
    if not valid:
        listing = f"; {registry.tag} lists none"
    elif len(valid) <= MAX_LISTED:
        listing = f"; valid at {registry.tag}: {', '.join(valid)}"
    else:  # env vars and flags run to hundreds: name the count and how to look, not every name
        listing = f"; {registry.tag} has {len(valid)} (get_registry with kind and contains narrows them)"
    hint = f" Nearest: {', '.join(near)}." if near else ""
    raise InvalidServeArgsError(
        f"{what} `{value}` is not defined at {registry.tag} ({_elsewhere(ctx, tags)}){listing}.{hint}{extra}"
    )


def _cited(j: Judgement) -> str:
    """A judgement as one line: its verdict text, its basis, and the first deciding line or citation."""
    where = j.evidence[-1].permalink if j.evidence else (j.citations[0] if j.citations else "")
    return f"[{j.basis}] {j.why}" + (f" ({where})" if where else "")


def check_gpu(
    registry: Registry,
    gpu: Gpu,
    method: QuantizationMethod,
    shape: AttentionShape,
    notes: Notes,
    moe_backend: str = "auto",
    linear_backend: str = "auto",
) -> None:
    """Refuse what the source says vLLM refuses on this GPU; warn where it decides at run time or runs slower.

    The refusal comes from the tag (min capability, the ROCm list, an online method's raise); the
    native-or-fallback note is the GPU table's (curated) and only ever warns.
    """
    loads = method_support(registry, method.name, gpu, moe=shape.moe).model_copy(update={"model": shape.describe()})
    notes.judge(loads)
    if loads.verdict == "no":
        raise InvalidServeArgsError(
            f"{_cited(loads)} Pick a method this GPU runs (pick_format lists them for a model)."
        )
    if loads.verdict == "conditional":
        notes.warn(_cited(loads))
    judged = kernel_judgements(
        registry, method.name, gpu, moe=True, moe_backend=moe_backend, linear_backend=linear_backend
    )
    for kernel in judged:
        notes.judge(kernel)
        moe = kernel.subject.startswith("MoE")
        if (moe_backend if moe else linear_backend) != "auto" and kernel.verdict == "no":
            model, flag = ("A MoE model", "--moe-backend") if moe else ("The model", "--linear-backend")
            notes.warn(f"{_cited(kernel)} {model} fails to load with this {flag} on {gpu.id}.")
    derived = kernel_support(registry, method.name, gpu, linear_backend)  # the source's pick: native/fallback
    if derived is not None:
        if derived[0] in ("fallback", "emulated"):
            notes.warn(f"[source] {derived[1]}.")
        return
    family = method_family(method.name, None, gpu)
    if family is None:
        notes.warn(
            f"[curated] Whether {gpu.id} runs {method.name} on its tensor cores depends on the scheme inside the "
            "checkpoint."
        )
        return
    support, evidence = classify(method.name, family, gpu)
    if support == "unsupported":
        notes.warn(f"[curated] {'; '.join(evidence)}.")
    elif support == "fallback":
        notes.warn(
            f"[curated] {gpu.id} has no {family} tensor cores: vLLM serves {method.name} through a weight-only or "
            f"emulated path (works, slower). Evidence: {'; '.join(evidence)}."
        )


def check_refusals(registry: Registry, method: str, notes: Notes) -> None:
    """Checkpoint properties the method refuses at load at this tag: the server would not start with them."""
    for refusal in load_refusals(registry, method):
        notes.warn(
            f"[source] At {registry.tag}, --quantization {method} refuses a checkpoint where `{refusal.property}` "
            f"holds, and vLLM fails to start: {refusal.message} ({refusal.provenance.permalink})"
        )


def check_kv_on_gpu(
    ctx: ToolContext, kb: KnowledgeBase, registry: Registry, kv: str, gpu: Gpu, shape: AttentionShape, notes: Notes
) -> None:
    """Which attention backend takes `kv` for this model on the GPU (source), else the curated limits (a warning)."""
    judged = kv_for_deployment(kb, registry, kv, gpu, shape, ctx.registry)
    if judged is not None:
        notes.judge(judged)
        if judged.basis in ("source", "observed") and judged.verdict == "no":
            raise InvalidServeArgsError(
                f"{_cited(judged)} Judged for {judged.model}. Use auto or a dtype this GPU supports."
            )
        if judged.verdict != "yes":
            qualifier = (
                "" if judged.basis != "curated" else f" The source at {registry.tag} was not derived for this GPU."
            )
            notes.warn(_cited(judged) + qualifier)
        disputed = dissent(kb, judged)
        if disputed is not None:
            notes.warn(
                f"{_cited(disputed)} vLLM's backend selection accepts it ({judged.via}); the knowledge base records "
                "a failure past selection."
            )
    fact = kv_fact(kb, kv, registry.tag)
    if fact is not None and fact.needs_scales:
        notes.warn(
            f"[curated] --kv-cache-dtype {kv} wants calibrated scales in the checkpoint (knowledge base {fact.id}); "
            "without them vLLM uses scale 1.0.",
            [cite(c) for c in fact.citations],
        )


def fp8_redirect(registry: Registry, quantization: str, checkpoint_dtype: str | None, notes: Notes) -> str:
    """The --quantization value to render: where the tag redirects a method on a 16-bit checkpoint, render the target.

    Read from the source (the loader's branch that swaps the method before any config is built),
    so the rendered line is what vLLM would run anyway, minus its deprecation warning.
    """
    redirect = next(
        (r for r in registry.load_refusals if r.outcome == "redirected" and quantization in r.methods), None
    )
    if redirect is None or redirect.redirect_to is None:
        return quantization
    target, where = redirect.redirect_to, redirect.provenance.permalink
    dtype = _UNQUANTIZED.get((checkpoint_dtype or "").strip().lower())
    if dtype is None:
        if checkpoint_dtype is None:
            notes.warn(
                f"[source] At {registry.tag}, --quantization {quantization} on a checkpoint without a quantization "
                f"config is deprecated; redirected to {target} ({redirect.message} {where}). If the checkpoint is "
                f"BF16/FP16, pass checkpoint_dtype='bf16' to render {target} directly."
            )
        return quantization
    if target not in {m.name for m in registry.quantization_methods if m.accepted_by_cli}:
        return quantization
    notes.warn(
        f"[source] --quantization {quantization} was rendered as {target}: the checkpoint is {dtype}, and at "
        f"{registry.tag} {quantization} on an unquantized checkpoint is deprecated; redirected to {target} "
        f"({redirect.message} {where})."
    )
    return target


def _quoted(v: LoadVerdict) -> str:
    """A load verdict as one line: vLLM's own exception and message where it raises, and the deciding line."""
    said = f" vLLM: `{v.raised.error}: {v.raised.message}`" if v.raised is not None else ""
    where = ", ".join(e.permalink for e in v.evidence)
    return f"[{v.basis}] At {v.tag}, {v.subject}: {v.outcome} ({v.why}).{said} ({where})"


def check_load(
    registry: Registry,
    model: str,
    quantization: str | None,
    checkpoint_dtype: str | None,
    quantization_config: dict[str, object] | None,
    notes: Notes,
    local: bool,
    platform: str | None = None,
) -> None:
    """Refuse what the tag's loader refuses for this checkpoint (get_quant_config, _verify_quantization, the
    --quantization-config validators), quoting vLLM; warn where a run-time check decides. The checkpoint is a
    local folder's config.json (read only when `local`: the context may read this machine's disk), or
    `checkpoint_dtype`; with neither, nothing is assumed and nothing is said."""
    if quantization_config is not None:
        refused = check_quantization_config(registry, quantization, quantization_config)
        if refused:
            raise InvalidServeArgsError(" ".join(_quoted(v) for v in refused))
    folder = Path(model).expanduser()
    checkpoint = read_checkpoint(folder) if local and folder.is_dir() else None
    checkpoint = checkpoint or unquantized(checkpoint_dtype)
    if checkpoint is None:
        return
    verdict = resolve_load(registry, quantization, checkpoint, quantization_config, platform)
    if verdict is None or verdict.outcome in ("loads", "redirected"):
        return
    if verdict.outcome == "refused":
        raise InvalidServeArgsError(
            f"{_quoted(verdict)} Serve a checkpoint quantized for it, or an online method (fp8_per_tensor, ...)."
        )
    notes.warn(_quoted(verdict))


def check_attention(registry: Registry, backend: str | None, config: str | None) -> None:
    """`--attention-backend` / `--attention-config` (from extra_args) checked against the tag's backends and
    AttentionConfig: vLLM refuses a name outside AttentionBackendEnum or a field it lacks while parsing."""
    parsed: dict[str, object] | None = None
    if config is not None:
        try:
            value = json.loads(config)
        except ValueError as exc:
            raise InvalidServeArgsError(f"--attention-config is not JSON ({exc}); give an object.") from exc
        if not isinstance(value, dict):
            raise InvalidServeArgsError('--attention-config must be a JSON object, e.g. \'{"backend": "FLASHINFER"}\'.')
        parsed = value
    refused = check_attention_options(registry, backend, parsed)
    if refused:
        raise InvalidServeArgsError(" ".join(_quoted(v) for v in refused))


def check_architecture(
    registry: Registry, read: ModelArchitectures | None, model_impl: str | None, notes: Notes
) -> None:
    """Refuse a model whose config names an architecture vLLM at the tag refuses (removed, or unknown under
    --model-impl vllm), quoting vLLM; warn where the Transformers fallback decides at run time. Nothing is said of
    a model whose config was not read (a repo id without gpu: render stays offline)."""
    if read is None:
        return
    judged = architecture_judgement(registry, read.names or [], model_impl or "auto", read.source)
    notes.judge(judged)
    if judged.verdict == "no":
        raise InvalidServeArgsError(f"{_cited(judged)} Judged for {read.source}.")
    if judged.verdict == "conditional":
        notes.warn(_cited(judged))
