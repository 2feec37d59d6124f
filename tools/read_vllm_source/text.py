"""`read_vllm_source` for people: numbered lines, the permalink, and where the next page starts."""

from __future__ import annotations

from .models import ReadResult

__all__ = ["render"]


def render(result: ReadResult) -> str:
    width = len(str(result.end_line))
    body = [f"{result.start_line + i:>{width}}  {line}" for i, line in enumerate(result.text.splitlines())]
    tail = f"{result.permalink}"
    if result.next_start_line:
        tail += f"\n(more from line {result.next_start_line}: pass it as start_line)"
    return "\n".join([*([f"note: {result.note}"] if result.note else []), *body, tail])
