"""`pick_format` for people: ranked options with support and memory, what was excluded and why."""

from __future__ import annotations

from vllm_quant_mcp.knowledge.support.judgement import Judgement

from .models import PickFormatResult

__all__ = ["render"]


def render(result: PickFormatResult) -> str:
    lines = [f"{result.model.source} on {result.num_gpus} x {result.gpu.name} at {result.tag}"]
    arch = result.architecture
    if arch is not None:  # the class vLLM builds, in a few words when it is native; the why otherwise
        lines.append(
            f"  architecture: {arch.via} [{arch.basis}]"
            if arch.verdict == "yes"
            else f"  architecture: {arch.verdict} [{arch.basis}] {arch.why}"
        )
    for o in result.options:
        mem = o.memory
        lines.append(
            f"  {o.rank}. --quantization {o.quantization.name} --kv-cache-dtype {o.kv_cache_dtype.name}"
            f"  [{o.support}, curated]  {mem.weights_gb_per_gpu:.1f} GB/GPU weights, {mem.tokens_fit or '?'} tokens fit"
        )
        lines.append("       " + "; ".join(_judged(j) for j in o.judgements))
        lines += [f"       caveat [{c.basis or 'memory'}]: {c.text}" for c in o.caveats]
    lines += [
        f"  excluded {e.quantization} / KV {e.kv_cache_dtype} [{e.basis or 'memory'}]: {e.reason}"
        for e in result.excluded
    ]
    lines += [f"  note: {n}" for n in result.notes]
    return "\n".join(lines)


def _judged(j: Judgement) -> str:
    """`loads [source]` or `KV via FLASHINFER [source]`: the verdict in a few words, the detail is in the JSON."""
    what = "KV" if j.subject.startswith("--kv-cache-dtype") else "method"
    verdict = {"yes": "runs", "no": "refused", "conditional": "decided at run time"}[j.verdict]
    via = f" via {j.via}" if j.via else ""
    return f"{what} {verdict}{via} [{j.basis}]"
