"""One place a deployment file starts vLLM, and what an image reference says about the release it runs.

Shared by the shell reader (knowledge/deploy/shell.py) and the YAML readers
(knowledge/deploy/manifests.py): the vLLM image's entrypoint is `vllm serve`, so a
container of that image with only args serves them, and its tag pins a release.
"""

from __future__ import annotations

import re
import shlex

from pydantic import BaseModel, Field

from vllm_quant_mcp.knowledge.echo import clip
from vllm_quant_mcp.knowledge.errors import InvalidInputError
from vllm_quant_mcp.knowledge.tags import InvalidTagError, normalize_tag

from .expand import Expanded

__all__ = [
    "IMAGE",
    "MAX_LINE_CHARS",
    "DeployFileError",
    "Invocation",
    "image_invocation",
    "image_tag",
    "program_index",
    "record_expansion",
]

# shlex builds each word a character at a time (quadratic in a word's length): lines and commands longer than
# this are refused before it reads them. A serve line with its JSON configs is a few KB.
MAX_LINE_CHARS = 65_536
IMAGE = re.compile(r"^(?:[\w.:-]+/)?vllm/vllm-openai(?::(?P<tag>[\w.-]+))?(?:@sha256:\w+)?$")
_IMAGE_RELEASE = re.compile(r"^(?P<release>v?\d+\.\d+\.\d+(?:\.\d+)?(?:\.?post\d+|rc\d+)?)(?P<variant>.*)$")


class DeployFileError(InvalidInputError):
    """The file cannot be read as the kind it claims (bad YAML, unknown kind); the message says which."""


class Invocation(BaseModel):
    """One place the file starts the vLLM server."""

    where: str = Field(description="e.g. 'line 12', 'Deployment/llama container vllm', 'service vllm'.")
    line: int = Field(ge=1, description="1-based line of the file where the invocation (or its container) starts.")
    command: str = Field(description="A `vllm serve ...` line equivalent to what runs, for parse_serve_command.")
    env: dict[str, str] = Field(description="Variables the process sees from the file (exports, container env).")
    image: str | None = Field(default=None, description="The vLLM image reference, when the file runs one.")
    pinned_tag: str | None = Field(default=None, description="vX.Y.Z the file pins (image tag or pip pin).")
    pinned_by: str | None = Field(default=None, description="What pins it, e.g. 'image vllm/vllm-openai:v0.27.1'.")
    unresolved: list[str] = Field(
        default=[], description="References the file does not resolve, kept as written in `command`, e.g. '$QUANT'."
    )
    notes: list[str] = []


def record_expansion(inv: Invocation, expanded: list[Expanded], dropped: list[str]) -> Invocation:
    """Note on the invocation what its expansion could not resolve, dropped, or took as a default."""
    unresolved = dict.fromkeys(inv.unresolved)  # ordered sets: a manifest may hold thousands of references
    notes = dict.fromkeys(inv.notes)
    for item in expanded:
        unresolved.update(dict.fromkeys(u for u in item.unresolved if u not in dropped))
        notes.update(
            dict.fromkeys(
                f"{ref} is not set in the file; audited with its default {clip(value)}." for ref, value in item.defaults
            )
        )
    inv.unresolved, inv.notes = list(unresolved), list(notes)
    for reference in dropped:
        inv.notes.append(
            f"{reference} is not set in the file and may add any number of arguments: what it adds was not checked."
        )
    return inv


def program_index(words: list[str]) -> int | None:
    """Where `vllm serve` (or the API server module) starts among the words, if anywhere."""
    for i, word in enumerate(words):
        base = word.rsplit("/", 1)[-1]
        if base == "vllm" and words[i + 1 : i + 2] == ["serve"]:
            return i
        if base.startswith("python") and words[i + 1 : i + 3] == ["-m", "vllm.entrypoints.openai.api_server"]:
            return i
    return None


def image_invocation(where: str, line: int, image: str, args: list[str], env: dict[str, str]) -> Invocation:
    tag, note = image_tag(image)
    inv = Invocation(
        where=where,
        line=line,
        command=shlex.join(["vllm", "serve", *args]),
        env=env,
        image=image,
        pinned_tag=tag,
        pinned_by=f"image {image}" if tag else None,
    )
    if note:
        inv.notes.append(note)
    return inv


def image_tag(image: str) -> tuple[str | None, str | None]:
    """The release an image tag pins, as a normalized tag, and a note when it is not exactly one."""
    m = IMAGE.match(image)
    tag = m["tag"] if m else None
    release = _IMAGE_RELEASE.match(tag) if tag else None
    if tag is None or release is None:
        return None, f"The image {image} is not pinned to a release tag; which vLLM runs is unknown."
    try:
        pinned = normalize_tag(release["release"])
    except InvalidTagError:
        return None, f"The image tag {clip(tag)} of {image} is not a vLLM release number; which vLLM runs is unknown."
    variant = release["variant"]
    if variant:
        return (
            pinned,
            f"The image tag {clip(tag)} is read as release {pinned} (the {clip(variant)} suffix is a build variant).",
        )
    return pinned, None
