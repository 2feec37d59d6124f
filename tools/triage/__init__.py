"""`triage`: an error message, log line or symptom to the site that printed it, its guard, and the way out."""

from __future__ import annotations

from vllm_quant_mcp.tools.spec import ToolSpec

from .models import TriageQuery, TriageResult

SPEC = ToolSpec(
    name="triage",
    title="Triage a vLLM error or symptom",
    description=(
        "The raise/log sites printing a pasted vLLM error or log line: guard, which input trips it, the way out, "
        "releases spanned; then curated pain points and gates (also for a symptom)."
    ),
    query=TriageQuery,
    result=TriageResult,
    cli="triage",
    cli_help="the source line behind a vLLM error or log line, its guard and the way out",
)
