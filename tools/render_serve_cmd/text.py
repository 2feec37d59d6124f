"""`render_serve_cmd` for people: the command, then each flag's permalink, warnings and citations as comments."""

from __future__ import annotations

from .models import RenderResult

__all__ = ["render"]


def render(result: RenderResult) -> str:
    body = result.output if isinstance(result.output, str) else "\n".join(result.output)
    lines = [body, f"# vLLM {result.tag}:"]
    lines += [f"#   {f.flag}  {f.provenance.permalink}" for f in result.flags]
    lines += [f"# warning: {w}" for w in result.warnings]
    lines += [f"# cite: {c.label} {c.url}" for c in result.citations]
    return "\n".join(lines)
