"""`triage` for people: each matching site with its guard and way out, then the curated facts, then notes."""

from __future__ import annotations

from .models import SiteMatch, TriageResult

__all__ = ["render"]


def render(result: TriageResult) -> str:
    lines = [f"triage at {result.tag} ({result.reading})"]
    for site in result.sites:
        lines += _site(site)
    for near in result.nearest:
        lines.append(f"  nearest ({near.similarity}): {near.message}  {near.provenance.path}:{near.provenance.line}")
    for fact in result.curated:
        lines.append(f"  [curated {fact.kind}] {fact.id}: {fact.says}")
        lines.append(f"    do: {fact.action}")
        lines.append(f"    matched: {'; '.join(fact.why)}; cites {', '.join(c.label for c in fact.citations)}")
    lines += [f"  assumed: {a}" for a in result.assumed]
    lines += [f"  note: {n}" for n in result.notes]
    return "\n".join(lines)


def _site(site: SiteMatch) -> list[str]:
    where = f"{site.provenance.path}:{site.provenance.line}"
    lines = [f"  [{site.match}] {site.kind} {site.raises} at {site.tag} {where} in {site.function or 'module'}"]
    lines.append(f"    message: {site.message}")
    if site.filled:
        lines.append(f"    filled: {', '.join(f'{k} = {v}' for k, v in site.filled.items())}")
    lines += [f"    guard: {g}" for g in site.guards]
    if site.on_your_gpu:
        lines.append(f"    gpu: {site.on_your_gpu}")
    if site.triggered_by:
        lines.append(f"    your inputs it reads: {', '.join(site.triggered_by)}")
    lines += [f"    avoid: {a}" for a in site.avoid]
    span = f"{site.first_seen} .. {site.last_seen}" + (f", gone in {site.gone_in}" if site.gone_in else ", still there")
    lines.append(f"    releases: {span}" + (f" (reworded: {site.reworded_as})" if site.reworded_as else ""))
    lines += [f"    moved {m}" for m in site.moved]
    lines.append(f"    {site.provenance.permalink}")
    return lines
