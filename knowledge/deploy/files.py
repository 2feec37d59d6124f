"""Where a deployment file starts vLLM: the `vllm serve` invocations and the env they see, read without running it.

Three kinds of file are read: shell scripts (knowledge/deploy/shell.py), Kubernetes
manifests and docker-compose files (knowledge/deploy/manifests.py). Variables the file
sets are expanded as the shell, the kubelet or compose would (knowledge/deploy/expand.py);
what the file cannot resolve is kept as written and listed on the invocation, so the
audit reports it as unresolved rather than as a value vLLM rejects. A pinned release
(an image tag, or `pip install vllm==X`) is reported so the caller can audit the upgrade
from it. Pure: text in, invocations out.
"""

from __future__ import annotations

import re
from typing import Literal

from vllm_quant_mcp.knowledge.echo import clip

from .expand import MAX_INVOCATIONS, Budget
from .invocation import MAX_LINE_CHARS, DeployFileError, Invocation
from .manifests import compose_invocations, kubernetes_invocations, yaml_documents
from .shell import shell_invocations

__all__ = [
    "MAX_FILE_BYTES",
    "MAX_INVOCATIONS",
    "DeployFileError",
    "FileKind",
    "Invocation",
    "detect_kind",
    "find_invocations",
]

MAX_FILE_BYTES = 1_000_000  # a deployment file is a few KB; the cap bounds what a pasted text can cost
FileKind = Literal["shell", "k8s", "compose"]


def detect_kind(filename: str, text: str) -> FileKind:
    """The kind of a deployment file, from its name first, then its content."""
    name = filename.rsplit("/", 1)[-1].lower()
    if name.endswith((".sh", ".bash")) or text.startswith("#!"):
        return "shell"
    if "compose" in name and name.endswith((".yml", ".yaml")):
        return "compose"
    if name.endswith((".yml", ".yaml")):
        if re.search(r"^services:\s*$", text, re.M):
            return "compose"
        if re.search(r"^kind:\s*\S", text, re.M):
            return "k8s"
    raise DeployFileError(
        f"Cannot tell what {clip(filename)} is: expected a shell script (.sh or a #! line), a Kubernetes manifest "
        "(YAML with kind:) or a docker-compose file (YAML with services:)."
    )


def find_invocations(text: str, filename: str, kind: FileKind | None = None) -> tuple[FileKind, list[Invocation]]:
    size = len(text.encode("utf-8", errors="replace"))
    if size > MAX_FILE_BYTES:
        raise DeployFileError(
            f"{filename} is {size:,} bytes; the audit reads deployment files up to {MAX_FILE_BYTES:,} bytes (1 MB). "
            "Pass only the script, manifest or compose file that starts vLLM."
        )
    kind = kind or detect_kind(filename, text)
    budget = Budget()
    if kind == "shell":
        found = shell_invocations(text, 0, {}, budget)
    else:
        documents = yaml_documents(text, filename)
        read = kubernetes_invocations if kind == "k8s" else compose_invocations
        found = [inv for doc in documents for inv in read(doc, budget)]
    for inv in found:
        if len(inv.command) > MAX_LINE_CHARS:
            raise DeployFileError(
                f"The command at {inv.where} is {len(inv.command):,} characters; the audit reads commands up to "
                f"{MAX_LINE_CHARS:,}. A `vllm serve` line with its JSON configs is a few KB: shorten it."
            )
    return kind, found
