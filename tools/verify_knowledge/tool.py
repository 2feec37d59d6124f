"""`verify_knowledge`: every machine-checkable claim of the knowledge base, run against the registries.

Two kinds of claim: the facts' predicates (a name present since a tag, a min capability) and
the KV dtypes' platform and SM limits, held against the support matrix derived from the source; and the
observations of the real wheel, each reported where the source's selection disagrees with what ran.
"""

from __future__ import annotations

from vllm_quant_mcp.knowledge.facts.verify import VerifyReport, verify, with_results
from vllm_quant_mcp.knowledge.support.claims import kv_limit_claims
from vllm_quant_mcp.knowledge.support.observed import observation_claims
from vllm_quant_mcp.knowledge.tags import tag_key
from vllm_quant_mcp.tools.context import ToolContext

from .models import VerifyQuery

__all__ = ["verify_knowledge"]


def verify_knowledge(ctx: ToolContext, query: VerifyQuery) -> VerifyReport:
    """Every claim checked against every known registry; with `tags`, only the claims that speak of them.

    A "since v0.28.0" claim needs every release from there on (and the one before), so the
    registries are always all loaded (~0.1 s); `tags` narrows what is reported, not what is read.
    """
    tags = query.tags
    known = sorted(ctx.store.known_tags(), key=tag_key)
    kb = ctx.knowledge
    registries = {tag: ctx.registry(tag) for tag in known}
    claims = [*kv_limit_claims(kb, registries), *observation_claims(kb, registries)]
    report = with_results(verify(kb, registries, known), claims)
    if not tags:
        return report
    wanted = {ctx.registry(t).tag for t in tags}  # an unknown tag raises, naming the nearest ones
    kept = [r for r in report.results if any(e.tag in wanted for e in r.evidence)]
    return with_results(report.model_copy(update={"tags": sorted(wanted, key=tag_key), "results": []}), kept)
