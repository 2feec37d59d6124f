"""`audit --format`: the report as people, scripts, GitHub Actions and code scanning read it.

    text     the tool's human rendering (tools/audit_deployment/text.py)
    json     the AuditReport with schema_version
    github   workflow commands (`::error file=…,line=…::…`) that GitHub shows on the diff
    sarif    SARIF 2.1.0, for `github/codeql-action/upload-sarif` and other code-scanning UIs

Severity maps the same way in both CI formats: breaks → error, changes and deprecated →
warning, info (unresolved variables included) → notice/note; an invocation the audit
could not read is a warning, since nothing about it was checked. The exit status does
not depend on the format: 1 when the tag rejects something, else 0.
"""

from __future__ import annotations

import json
from importlib.metadata import PackageNotFoundError, version
from pathlib import PurePath
from typing import Literal
from urllib.parse import quote

from vllm_quant_mcp.knowledge.deploy.locate import Span, locate
from vllm_quant_mcp.tools.audit_deployment.models import AuditReport, InvocationAudit
from vllm_quant_mcp.tools.check_gates.models import Finding

__all__ = ["FORMATS", "AuditFormat", "github_annotations", "sarif_log"]

AuditFormat = Literal["text", "json", "github", "sarif"]
FORMATS: tuple[AuditFormat, ...] = ("text", "json", "github", "sarif")
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"

_RULES: dict[str, tuple[str, str, str]] = {
    # id: (SARIF level, short description, full description)
    "breaks": (
        "error",
        "vLLM rejects this at the tag",
        "A flag, value or variable that vLLM at the tag does not accept.",
    ),
    "changes": (
        "warning",
        "Changes meaning at the tag",
        "Still accepted at the tag, but a release crossed changes what it does, or it is gone and silently ignored.",
    ),
    "deprecated": (
        "warning",
        "Deprecated at the tag",
        "Accepted at the tag but deprecated: a later release may drop it.",
    ),
    "unresolved": (
        "note",
        "Value known only at run time",
        "The value comes from a variable the file does not set, so it could not be checked.",
    ),
    "info": ("note", "Worth knowing", "Accepted at the tag; something about it is worth knowing."),
    "unreadable": (
        "warning",
        "Invocation not checked",
        "The `vllm serve` command could not be read, so nothing in it was checked.",
    ),
}
_GITHUB = {"error": "error", "warning": "warning", "note": "notice"}


def _tool_version() -> str:
    try:
        return version("vllm-quant-mcp")
    except PackageNotFoundError:
        return "0+unknown"


def _rule(finding: Finding) -> str:
    if finding.severity == "info" and finding.problem.startswith("Unresolved:"):
        return "unresolved"
    return finding.severity


def _items(report: AuditReport, text: str) -> list[tuple[str, InvocationAudit, Span | None, str, str]]:
    """(rule, invocation, where in the file, title, message) for every finding and every unreadable invocation."""
    items: list[tuple[str, InvocationAudit, Span | None, str, str]] = []
    for inv in report.invocations:
        if inv.error:
            items.append(("unreadable", inv, None, f"{inv.where}: not checked", inv.error))
        for f in inv.findings:
            hint = f" Did you mean: {', '.join(f.suggestions)}?" if f.suggestions else ""
            span = locate(text, inv.line, f.written, f.subject)
            items.append((_rule(f), inv, span, f"{f.written} at {report.tag}", f"{f.problem} {f.action}{hint}"))
    return items


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def github_annotations(report: AuditReport, path: str, text: str) -> str:
    """One workflow command per finding, at the line and columns of its flag, value or variable (else the line of
    its invocation), then the summary as a plain line."""
    lines = []
    for rule, inv, span, title, message in _items(report, text):
        command = _GITHUB[_RULES[rule][0]]
        at = f"line={span.line},col={span.start},endColumn={span.end}" if span else f"line={inv.line}"
        properties = f"file={_escape_property(path)},{at},title={_escape_property(title)}"
        lines.append(f"::{command} {properties}::{_escape_data(message)}")
    lines.append(report.summary)
    return "\n".join(lines)


def _region(inv: InvocationAudit, span: Span | None) -> dict[str, int]:
    if span is None:
        return {"startLine": inv.line}
    return {"startLine": span.line, "startColumn": span.start, "endColumn": span.end}


def sarif_log(report: AuditReport, path: str, text: str) -> str:
    """A SARIF 2.1.0 log with one run: a rule per kind of finding, a result per finding, located by region."""
    ids = list(_RULES)
    rules = [
        {
            "id": rule,
            "name": rule.capitalize(),
            "shortDescription": {"text": short},
            "fullDescription": {"text": full},
            "defaultConfiguration": {"level": level},
        }
        for rule, (level, short, full) in _RULES.items()
    ]
    uri = quote(PurePath(path).as_posix())
    results = [
        {
            "ruleId": rule,
            "ruleIndex": ids.index(rule),
            "level": _RULES[rule][0],
            "message": {"text": f"{title}: {message}"},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": uri},
                        "region": _region(inv, span),
                    },
                    "logicalLocations": [{"name": inv.where}],
                }
            ],
        }
        for rule, inv, span, title, message in _items(report, text)
    ]
    log = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": {"name": "vllm-quant-mcp", "version": _tool_version(), "rules": rules}},
                "results": results,
                "properties": {"tag": report.tag, "fileKind": report.file_kind, "summary": report.summary},
            }
        ],
    }
    return json.dumps(log, indent=2, ensure_ascii=False)
