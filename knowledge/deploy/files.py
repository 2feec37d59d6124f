"""Where a deployment file starts vLLM: the `vllm serve` invocations and the env they see, read without running it.

Three kinds of file are read: shell scripts (`export VAR=...`, backslash continuations,
`docker run vllm/vllm-openai:TAG ...`), Kubernetes manifests (containers' command, args
and env, in any workload, multi-document YAML) and docker-compose files (`command:` as a
string or a list, `environment:` as a map or a list). The vLLM image's entrypoint is
`vllm serve`, so a container of that image with only args serves them. A pinned release
(an image tag, or `pip install vllm==X`) is reported so the caller can audit the upgrade
from it. Pure: text in, invocations out.
"""

from __future__ import annotations

import re
import shlex
from functools import cache
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, Field

from vllm_quant_mcp.knowledge.errors import InvalidInputError
from vllm_quant_mcp.knowledge.tags import InvalidTagError, normalize_tag

if TYPE_CHECKING:
    import yaml

__all__ = ["MAX_FILE_BYTES", "DeployFileError", "FileKind", "Invocation", "detect_kind", "find_invocations"]

MAX_FILE_BYTES = 1_000_000  # a deployment file is a few KB; the cap bounds what a pasted text can cost
FileKind = Literal["shell", "k8s", "compose"]
_IMAGE = re.compile(r"^(?:[\w.:-]+/)?vllm/vllm-openai(?::(?P<tag>[\w.-]+))?(?:@sha256:\w+)?$")
_IMAGE_RELEASE = re.compile(r"^(?P<release>v?\d+\.\d+\.\d+(?:\.\d+)?(?:\.?post\d+|rc\d+)?)(?P<variant>.*)$")
_PIP_PIN = re.compile(r"\bvllm==(?P<version>\d+\.\d+\.\d+(?:\.post\d+|rc\d+)?)")
_ASSIGNMENT = re.compile(r"^(?P<name>[A-Za-z_][A-Za-z0-9_]*)=(?P<value>.*)$")
_OPERATORS = frozenset({"|", "||", "&", "&&", ";", ";;", ">", ">>", "<", ">&", "<&", "&>", "(", ")"})
_WRAPPERS = frozenset({"exec", "nohup", "time", "env", "command"})
_SHELLS = frozenset({"sh", "bash", "/bin/sh", "/bin/bash", "/usr/bin/env"})


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
    notes: list[str] = []


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
        f"Cannot tell what {filename!r} is: expected a shell script (.sh or a #! line), a Kubernetes manifest "
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
    if kind == "shell":
        return kind, _shell(text, 0, {})
    documents = _yaml_documents(text, filename)
    if kind == "k8s":
        return kind, [inv for doc in documents for inv in _k8s(doc)]
    return kind, [inv for doc in documents for inv in _compose(doc)]


# -- shell -----------------------------------------------------------------------------------------------


def _logical_lines(text: str) -> list[tuple[int, str]]:
    """Lines with backslash continuations joined, each with the number of its first physical line."""
    out: list[tuple[int, str]] = []
    pending: list[str] = []
    start = 0
    for number, line in enumerate(text.splitlines(), 1):
        if not pending:
            start = number
        if line.endswith("\\") and not line.endswith("\\\\"):
            pending.append(line[:-1])
            continue
        pending.append(line)
        out.append((start, " ".join(pending)))
        pending = []
    if pending:
        out.append((start, " ".join(pending)))
    return out


def _words(line: str) -> list[str] | None:
    lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    lexer.commenters = "#"
    try:
        return list(lexer)
    except ValueError:
        return None


def _shell(text: str, offset: int, inherited: dict[str, str]) -> list[Invocation]:
    """Invocations in a script; `offset` shifts line numbers for scripts embedded in YAML."""
    env = dict(inherited)
    assigned: dict[str, str] = {}  # plain `NAME=value` lines: the shell keeps them until an `export NAME`
    unexported: set[str] = set()
    pin = _pip_pin(text)
    found: list[Invocation] = []
    for number, line in _logical_lines(text):
        words = _words(line)
        if not words:
            continue
        if words[0] == "export":
            for word in words[1:]:
                if (m := _ASSIGNMENT.match(word)) is not None:
                    env[m["name"]] = m["value"]
                    unexported.discard(m["name"])
                elif word in assigned:
                    env[word] = assigned[word]
                    unexported.discard(word)
            continue
        if all(_ASSIGNMENT.match(w) for w in words):
            for word in words:
                name, _, value = word.partition("=")
                if name in env:  # assigning an exported variable changes what the process sees
                    env[name] = value
                else:
                    assigned[name] = value
                    if name.startswith("VLLM_"):
                        unexported.add(name)
            continue
        for segment in _segments(words):
            inv = _shell_invocation(segment, number + offset, env, pin)
            if inv is not None:
                missing = sorted(n for n in unexported if n not in inv.env)
                if missing:
                    inv.notes.append(
                        f"{', '.join(missing)} assigned without `export`: the vLLM process does not see "
                        f"{'it' if len(missing) == 1 else 'them'}."
                    )
                found.append(inv)
    return found


def _segments(words: list[str]) -> list[list[str]]:
    """Simple commands split at shell operators; a redirection drops its target and its fd number (`2>&1`)."""
    out: list[list[str]] = [[]]
    skip = False
    for i, word in enumerate(words):
        following = words[i + 1] if i + 1 < len(words) else ""
        if skip or (word.isdigit() and following[:1] in ("<", ">")):
            skip = False
            continue
        if word in _OPERATORS or word[:1] in ("<", ">"):
            skip = word[:1] in ("<", ">") or word == "&>"
            out.append([])
            continue
        out[-1].append(word)
    return [s for s in out if s]


def _shell_invocation(
    words: list[str], line: int, env: dict[str, str], pin: tuple[str, str] | None
) -> Invocation | None:
    prefix: dict[str, str] = {}
    i = 0
    while i < len(words) and (words[i] in _WRAPPERS or _ASSIGNMENT.match(words[i])):
        if (m := _ASSIGNMENT.match(words[i])) is not None:
            prefix[m["name"]] = m["value"]
        i += 1
    rest = words[i:]
    if not rest:
        return None
    if rest[0] == "docker" and "run" in rest[:3]:
        return _docker_run(rest, line, env)
    if _program_index(rest) != 0:
        return None
    return Invocation(
        where=f"line {line}",
        line=line,
        command=shlex.join(rest),
        env={**env, **prefix},
        pinned_tag=pin[0] if pin else None,
        pinned_by=pin[1] if pin else None,
    )


def _program_index(words: list[str]) -> int | None:
    for i, word in enumerate(words):
        base = word.rsplit("/", 1)[-1]
        if base == "vllm" and words[i + 1 : i + 2] == ["serve"]:
            return i
        if base.startswith("python") and words[i + 1 : i + 3] == ["-m", "vllm.entrypoints.openai.api_server"]:
            return i
    return None


def _docker_run(words: list[str], line: int, env: dict[str, str]) -> Invocation | None:
    """`docker run [options] vllm/vllm-openai:TAG [args]`: the image's entrypoint is `vllm serve`."""
    container_env: dict[str, str] = {}
    for i, word in enumerate(words):
        value = None
        if word in ("-e", "--env") and i + 1 < len(words):
            value = words[i + 1]
        elif word.startswith("--env="):
            value = word[len("--env=") :]
        if value is not None:
            name, eq, given = value.partition("=")
            container_env[name] = given if eq else env.get(name, "")
        if _IMAGE.match(word):
            return _image_invocation(f"line {line}", line, word, words[i + 1 :], container_env)
    return None


def _image_invocation(where: str, line: int, image: str, args: list[str], env: dict[str, str]) -> Invocation:
    tag, note = _image_tag(image)
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


def _image_tag(image: str) -> tuple[str | None, str | None]:
    """The release an image tag pins, as a normalized tag, and a note when it is not exactly one."""
    m = _IMAGE.match(image)
    tag = m["tag"] if m else None
    release = _IMAGE_RELEASE.match(tag) if tag else None
    if tag is None or release is None:
        return None, f"The image {image} is not pinned to a release tag; which vLLM runs is unknown."
    try:
        pinned = normalize_tag(release["release"])
    except InvalidTagError:
        return None, f"The image tag {tag!r} of {image} is not a vLLM release number; which vLLM runs is unknown."
    variant = release["variant"]
    if variant:
        return pinned, f"The image tag {tag!r} is read as release {pinned} (the {variant!r} suffix is a build variant)."
    return pinned, None


def _pip_pin(text: str) -> tuple[str, str] | None:
    m = _PIP_PIN.search(text)
    return (f"v{m['version']}", f"pip pin vllm=={m['version']}") if m else None


# -- YAML ------------------------------------------------------------------------------------------------


@cache
def _line_loader() -> type[yaml.SafeLoader]:
    """Safe loading that records each mapping's first line under the key `__line__`.

    Built on first use: yaml is imported only when a manifest is read, not when the
    server registers the audit tool.
    """
    import yaml

    def mapping_with_line(loader: yaml.SafeLoader, node: yaml.MappingNode) -> dict[Any, Any]:
        mapping = loader.construct_mapping(node, deep=True)
        mapping["__line__"] = node.start_mark.line + 1
        return mapping

    class LineLoader(yaml.SafeLoader):
        pass

    LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, mapping_with_line)
    return LineLoader


def _yaml_documents(text: str, filename: str) -> list[Any]:
    import yaml

    try:
        return [d for d in yaml.load_all(text, Loader=_line_loader()) if d is not None]  # a SafeLoader subclass
    except yaml.YAMLError as exc:
        raise DeployFileError(f"{filename} is not valid YAML: {exc}") from exc
    except RecursionError as exc:
        raise DeployFileError(
            f"{filename} nests lists or mappings too deeply to read; no deployment file does."
        ) from exc


def _k8s(doc: Any) -> list[Invocation]:
    if not isinstance(doc, dict):
        return []
    metadata = doc.get("metadata")
    name = metadata.get("name", "?") if isinstance(metadata, dict) else "?"
    owner = f"{_scalar(doc.get('kind', '?'), 'kind')}/{_scalar(name, 'metadata.name')}"
    return [inv for container in _containers(doc) for inv in _container(owner, container)]


def _containers(node: Any, seen: set[int] | None = None) -> list[dict[str, Any]]:
    """Container specs anywhere in a document, each mapping and list walked once.

    YAML aliases make the document a graph: `*a` repeats a node without copying it, so a
    few lines can reference one node a billion times ("billion laughs"). Walking each
    node object once keeps the cost to the size of the text.
    """
    seen = set() if seen is None else seen
    if id(node) in seen or not isinstance(node, dict | list):
        return []
    seen.add(id(node))
    found: list[dict[str, Any]] = []
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("containers", "initContainers") and isinstance(value, list):
                found += [c for c in value if isinstance(c, dict)]
            else:
                found += _containers(value, seen)
    else:
        for item in node:
            found += _containers(item, seen)
    return found


def _container(owner: str, c: dict[str, Any]) -> list[Invocation]:
    where, line = (
        f"{owner} container {_scalar(c.get('name', '?'), f'{owner} container name')}",
        int(c.get("__line__", 1)),
    )
    env = {}
    for item in _list(c.get("env"), f"{where} env"):
        if isinstance(item, dict) and "name" in item:
            name = _scalar(item["name"], f"{where} env")
            env[name] = _scalar(item["value"], f"{where} env {name}") if "value" in item else "<valueFrom>"
    image = _scalar(c.get("image") or "", f"{where} image")
    return _run(
        where,
        line,
        image,
        _strings(c.get("command"), f"{where} command"),
        _strings(c.get("args"), f"{where} args"),
        env,
    )


def _compose(doc: Any) -> list[Invocation]:
    services = doc.get("services") if isinstance(doc, dict) else None
    if not isinstance(services, dict):
        return []
    found = []
    for name, service in services.items():
        if name == "__line__" or not isinstance(service, dict):
            continue
        env = _compose_env(service.get("environment"), f"service {name} environment")
        entry, command = service.get("entrypoint"), service.get("command")
        words_entry = _split(entry, f"service {name} entrypoint")
        words_cmd = _split(command, f"service {name} command")
        line = int(service.get("__line__", 1))
        image = _scalar(service.get("image") or "", f"service {name} image")
        found += _run(f"service {name}", line, image, words_entry, words_cmd, env)
    return found


def _compose_env(value: Any, what: str) -> dict[str, str]:
    if isinstance(value, dict):
        return {str(k): "" if v is None else _scalar(v, f"{what} {k}") for k, v in value.items() if k != "__line__"}
    env = {}
    for item in _list(value, what):
        name, _, given = _scalar(item, what).partition("=")
        env[name] = given
    return env


def _scalar(value: Any, what: str) -> str:
    """A YAML scalar as text; a list or mapping is refused, never stringified (an alias bomb would expand)."""
    if isinstance(value, list | dict):
        raise DeployFileError(f"The {what} is a list or mapping where a plain string belongs; write it as a string.")
    return str(value)


def _list(value: Any, what: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise DeployFileError(f"The {what} is not a list; write one `- name: ...` item per variable.")
    return value


def _split(value: Any, what: str) -> list[str]:
    """A compose command given as one string (split the way compose splits it) or as a list."""
    if not isinstance(value, str):
        return _strings(value, what)
    try:
        return shlex.split(value)
    except ValueError as exc:
        raise DeployFileError(f"The {what} {value!r} cannot be split into words ({exc}); close its quotes.") from exc


def _strings(value: Any, what: str) -> list[str]:
    if value is None:
        return []
    return [_scalar(v, what) for v in (value if isinstance(value, list) else [value])]


def _run(
    where: str, line: int, image: str, command: list[str], args: list[str], env: dict[str, str]
) -> list[Invocation]:
    """A container's command + args: `vllm serve`, a shell running a script, or the vLLM image's entrypoint."""
    words = [*command, *args]
    if words[:1] and words[0] in _SHELLS and "-c" in words[:3]:
        script = words[words.index("-c") + 1] if words.index("-c") + 1 < len(words) else ""
        found = _shell(script, line - 1, env)
        for inv in found:
            inv.where = f"{where} ({inv.where} of its script)"
        return _pinned(found, image)
    at = _program_index(words)
    if at is not None:
        inv = Invocation(where=where, line=line, command=shlex.join(words[at:]), env=env)
        return _pinned([inv], image)
    if not command and _IMAGE.match(image):
        return [_image_invocation(where, line, image, args, env)]
    return []


def _pinned(found: list[Invocation], image: str) -> list[Invocation]:
    tag, note = _image_tag(image) if _IMAGE.match(image) else (None, None)
    for inv in found:
        if tag and inv.pinned_tag is None:
            inv.image, inv.pinned_tag, inv.pinned_by = image, tag, f"image {image}"
            inv.notes += [note] if note else []
    return found
