"""`pick_format` for people: ranked options with support and memory, what was excluded and why."""

from __future__ import annotations

from .models import PickFormatResult

__all__ = ["render"]


def render(result: PickFormatResult) -> str:
    lines = [f"{result.model.source} on {result.num_gpus} x {result.gpu.name} at {result.tag}"]
    for o in result.options:
        mem = o.memory
        lines.append(
            f"  {o.rank}. --quantization {o.quantization.name} --kv-cache-dtype {o.kv_cache_dtype.name}"
            f"  [{o.support}]  {mem.weights_gb_per_gpu:.1f} GB/GPU weights, {mem.tokens_fit or '?'} tokens fit"
        )
        lines += [f"       caveat: {c.text}" for c in o.caveats]
    lines += [f"  excluded {e.quantization}: {e.reason}" for e in result.excluded]
    lines += [f"  note: {n}" for n in result.notes]
    return "\n".join(lines)
