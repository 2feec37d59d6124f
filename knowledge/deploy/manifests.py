"""The `vllm serve` invocations of Kubernetes manifests and docker-compose files, with their variables expanded.

Kubernetes: containers (any workload, multi-document YAML) with their command, args and
env; `$(VAR)` in command, args and env values is replaced from the container's env, as
the kubelet does. Compose: services with `command`/`entrypoint` (a string split the way
compose splits it, or a list) and `environment` (a map or a list); `${VAR:-default}` is
read with the service's environment as the known variables (compose itself fills it from
the shell or `.env` when it starts, which the file cannot show, so a note says which
value was assumed). A container that runs `sh -c '<script>'` is read as a script.
"""

from __future__ import annotations

import shlex
from functools import cache
from typing import TYPE_CHECKING, Any

from vllm_quant_mcp.knowledge.echo import clip

from .expand import Budget, Expanded, expand_kubernetes, expand_template
from .invocation import (
    IMAGE,
    MAX_LINE_CHARS,
    DeployFileError,
    Invocation,
    image_invocation,
    image_tag,
    program_index,
    record_expansion,
)
from .shell import shell_invocations

if TYPE_CHECKING:
    import yaml

__all__ = ["compose_invocations", "kubernetes_invocations", "yaml_documents"]

_SHELLS = frozenset({"sh", "bash", "/bin/sh", "/bin/bash", "/usr/bin/env"})


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


def yaml_documents(text: str, filename: str) -> list[Any]:
    import yaml

    try:
        return [d for d in yaml.load_all(text, Loader=_line_loader()) if d is not None]  # a SafeLoader subclass
    except yaml.YAMLError as exc:
        raise DeployFileError(f"{filename} is not valid YAML: {exc}") from exc
    except RecursionError as exc:
        raise DeployFileError(
            f"{filename} nests lists or mappings too deeply to read; no deployment file does."
        ) from exc


# -- Kubernetes ------------------------------------------------------------------------------------------


def kubernetes_invocations(doc: Any, budget: Budget) -> list[Invocation]:
    if not isinstance(doc, dict):
        return []
    metadata = doc.get("metadata")
    name = metadata.get("name", "?") if isinstance(metadata, dict) else "?"
    owner = f"{_scalar(doc.get('kind', '?'), 'kind')}/{_scalar(name, 'metadata.name')}"
    return [inv for container in _containers(doc, budget) for inv in _container(owner, container, budget)]


def _containers(node: Any, budget: Budget, seen: set[int] | None = None) -> list[dict[str, Any]]:
    """Container specs anywhere in a document, each mapping and list walked once.

    YAML aliases make the document a graph: `*a` repeats a node without copying it, so a
    few lines can reference one node a billion times ("billion laughs"). Walking each
    node object once keeps the walk to the size of the text; a list of containers under
    many workloads is still that many containers to read, so each is charged to the budget.
    """
    seen = set() if seen is None else seen
    if id(node) in seen or not isinstance(node, dict | list):
        return []
    seen.add(id(node))
    found: list[dict[str, Any]] = []
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("containers", "initContainers") and isinstance(value, list):
                containers = [c for c in value if isinstance(c, dict)]
                budget.found_containers(len(containers))
                found += containers
            else:
                found += _containers(value, budget, seen)
    else:
        for item in node:
            found += _containers(item, budget, seen)
    return found


def _container(owner: str, c: dict[str, Any], budget: Budget) -> list[Invocation]:
    where, line = (
        f"{owner} container {_scalar(c.get('name', '?'), f'{owner} container name')}",
        int(c.get("__line__", 1)),
    )
    env: dict[str, str] = {}
    expansions: list[Expanded] = []
    for item in _list(c.get("env"), f"{where} env"):
        if isinstance(item, dict) and "name" in item:
            name = _scalar(item["name"], f"{where} env")
            if "value" not in item:
                env[name] = "<valueFrom>"
                continue
            expanded = expand_kubernetes(_scalar(item["value"], f"{where} env {name}"), env, budget)
            env[name] = expanded.text
            expansions.append(expanded)
    image = _scalar(c.get("image") or "", f"{where} image")
    words = {key: _strings(c.get(key), f"{where} {key}") for key in ("command", "args")}
    shell = _shell_script(words["command"] + words["args"])
    if shell is None:  # the kubelet expands $(VAR) in command and args; a shell script expands its own
        for key, given in words.items():
            done = [expand_kubernetes(w, env, budget) for w in given]
            words[key] = [e.text for e in done]
            expansions += done
    found = _run(where, line, image, words["command"], words["args"], env, budget)
    for inv in found:
        record_expansion(inv, expansions, [])
        if any(e.used or e.defaults or any(not u.startswith("$(") for u in e.unresolved) for e in expansions):
            inv.notes.append(
                "Kubernetes expands $(VAR) in command, args and env, not ${VAR} or $VAR: unless a template tool "
                "fills those in before the manifest is applied, vLLM receives them as written."
            )
    return found


# -- compose ---------------------------------------------------------------------------------------------


def compose_invocations(doc: Any, budget: Budget) -> list[Invocation]:
    services = doc.get("services") if isinstance(doc, dict) else None
    if not isinstance(services, dict):
        return []
    found = []
    for name, service in services.items():
        if name == "__line__" or not isinstance(service, dict):
            continue
        from_env: list[Expanded] = []
        env = _compose_env(service.get("environment"), f"service {name} environment", from_env, budget)
        expansions: list[Expanded] = []
        entry = _compose_words(service.get("entrypoint"), f"service {name} entrypoint", env, expansions, budget)
        command = _compose_words(service.get("command"), f"service {name} command", env, expansions, budget)
        line = int(service.get("__line__", 1))
        image = _scalar(service.get("image") or "", f"service {name} image")
        for inv in _run(f"service {name}", line, image, entry, command, env, budget):
            record_expansion(inv, [*from_env, *expansions], [])
            if any(e.used for e in expansions):
                inv.notes.append(
                    "compose fills ${VAR} from the shell or .env when it starts, not from the service's "
                    "environment; the values of its environment block were assumed."
                )
            found.append(inv)
    return found


def _compose_env(value: Any, what: str, expansions: list[Expanded], budget: Budget) -> dict[str, str]:
    """The service's environment, each value interpolated (from nothing the file shows: defaults only)."""
    if isinstance(value, dict):
        given = {str(k): "" if v is None else _scalar(v, f"{what} {k}") for k, v in value.items() if k != "__line__"}
    else:
        given = dict(_scalar(item, what).partition("=")[::2] for item in _list(value, what))
    env = {}
    for name, text in given.items():
        expanded = expand_template(text, {}, budget)
        expansions.append(expanded)
        env[name] = expanded.text
    return env


def _compose_words(value: Any, what: str, env: dict[str, str], expansions: list[Expanded], budget: Budget) -> list[str]:
    """A compose command or entrypoint, interpolated (`$$` is a literal `$`), then split as compose splits it."""
    if value is None:
        return []
    items = [value] if isinstance(value, str) else _strings(value, what)
    out: list[str] = []
    for item in items:
        expanded = expand_template(item, dict(env), budget)
        expansions.append(expanded)
        text = expanded.text
        if not isinstance(value, str):
            out.append(text)
            continue
        if len(text) > MAX_LINE_CHARS:
            raise DeployFileError(f"The {what} is {len(text):,} characters; the audit reads up to {MAX_LINE_CHARS:,}.")
        try:
            out += shlex.split(text)
        except ValueError as exc:
            raise DeployFileError(
                f"The {what} {clip(value)} cannot be split into words ({exc}); close its quotes."
            ) from exc
    return out


# -- shared ----------------------------------------------------------------------------------------------


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


def _strings(value: Any, what: str) -> list[str]:
    if value is None:
        return []
    return [_scalar(v, what) for v in (value if isinstance(value, list) else [value])]


def _shell_script(words: list[str]) -> str | None:
    if words[:1] and words[0] in _SHELLS and "-c" in words[:3]:
        at = words.index("-c") + 1
        return words[at] if at < len(words) else ""
    return None


def _run(
    where: str, line: int, image: str, command: list[str], args: list[str], env: dict[str, str], budget: Budget
) -> list[Invocation]:
    """A container's command + args: `vllm serve`, a shell running a script, or the vLLM image's entrypoint."""
    words = [*command, *args]
    script = _shell_script(words)
    if script is not None:
        found = shell_invocations(script, line - 1, env, budget)
        for inv in found:
            inv.where = f"{where} ({inv.where} of its script)"
        return _pinned(found, image)
    at = program_index(words)
    if at is not None:
        budget.found_invocation()
        inv = Invocation(where=where, line=line, command=shlex.join(words[at:]), env=env)
        return _pinned([inv], image)
    if not command and IMAGE.match(image):
        budget.found_invocation()
        return [image_invocation(where, line, image, args, env)]
    return []


def _pinned(found: list[Invocation], image: str) -> list[Invocation]:
    tag, note = image_tag(image) if IMAGE.match(image) else (None, None)
    for inv in found:
        if tag and inv.pinned_tag is None:
            inv.image, inv.pinned_tag, inv.pinned_by = image, tag, f"image {image}"
            inv.notes += [note] if note else []
    return found
