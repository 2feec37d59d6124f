"""`render_serve_cmd` for people: the command, then each flag's permalink, warnings and citations as comments."""

from __future__ import annotations

from vllm_quant_mcp.knowledge.support.architecture import ANY_GPU

from .models import RenderResult

__all__ = ["render"]


def render(result: RenderResult) -> str:
    body = result.output if isinstance(result.output, str) else "\n".join(result.output)
    lines = [body, f"# vLLM {result.tag}:"]
    lines += [
        f"#   {f.flag}  {f.provenance.permalink}" + (f"  default {f.default}" if f.default else "")
        for f in result.flags
    ]
    for model in dict.fromkeys(j.model for j in result.judgements if j.model):
        lines.append(f"# model: {model}")
    for j in result.judgements:
        via = f" via {j.via}" if j.via else ""
        gpu = f" on {j.gpu}" if j.gpu != ANY_GPU else ""  # an architecture is judged for every GPU at once
        lines.append(f"# {j.subject}{gpu}: {j.verdict}{via} [{j.basis}]: {j.why}")
    lines += [f"# warning: {w}" for w in result.warnings]
    lines += [f"# cite: {c.label} {c.url}" for c in result.citations]
    return "\n".join(lines)
