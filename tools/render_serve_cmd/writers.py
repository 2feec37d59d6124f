"""One validated command, written five ways: shell, argv, `docker run`, a Kubernetes container, `LLM(...)`.

Each writer takes the same argv (the words after `vllm serve`, model first) and env, so
what was checked is exactly what is written. The vLLM image's entrypoint is `vllm serve`
(docker/Dockerfile, stage vllm-openai), so the docker and Kubernetes forms pass the argv
as container arguments without the program.
"""

from __future__ import annotations

import json
import re
import shlex
from typing import Any

import yaml

from .models import FlagUse, OutputFormat

__all__ = ["IMAGE", "OutputFormat", "docker_line", "k8s_container", "python_call", "shell_line"]

IMAGE = "vllm/vllm-openai"
_INDENT = "  "
_INT = re.compile(r"^-?\d+$")
_FLOAT = re.compile(r"^-?\d+\.\d*$")
_DOCKER_OPTIONS = ("--gpus all", "--ipc=host", "-p 8000:8000", "-v ~/.cache/huggingface:/root/.cache/huggingface")


def _pairs(argv: list[str]) -> list[list[str]]:
    """Words grouped one flag (with its value) per group, the model alone first: one continued line each."""
    groups: list[list[str]] = []
    for word in argv:
        if word.startswith("-") or not groups:
            groups.append([word])
        else:
            groups[-1].append(word)
    return groups


def _continued(head: str, groups: list[list[str]]) -> str:
    lines = [head, *(_INDENT + shlex.join(g) for g in groups)]
    return " \\\n".join(lines)


def shell_line(argv: list[str], env: dict[str, str]) -> str:
    """`VAR=value vllm serve <model> \\` then one flag per continued line, every word shell-quoted."""
    assignments = [f"{k}={shlex.quote(v)}" for k, v in env.items()]
    model, *rest = _pairs(argv)
    head = " ".join([*assignments, "vllm", "serve", shlex.join(model)])
    return _continued(head, rest)


def docker_line(argv: list[str], env: dict[str, str], tag: str) -> str:
    """A `docker run` of the vLLM image at the tag; the arguments follow the image, without `vllm serve`."""
    # Fixed options, written as the vLLM docs run the image; `~` is left unquoted so the shell expands it.
    lines = ["docker run", *(_INDENT + o for o in _DOCKER_OPTIONS)]
    lines += [_INDENT + shlex.join(["-e", f"{k}={v}"]) for k, v in env.items()]
    model, *rest = _pairs(argv)
    lines.append(_INDENT + shlex.join([f"{IMAGE}:{tag}", *model]))
    lines += [_INDENT + shlex.join(g) for g in rest]
    return " \\\n".join(lines)


def k8s_container(argv: list[str], env: dict[str, str], tag: str, gpus: int) -> str:
    """A container entry for a Pod or Deployment spec: image, args, env and the GPU limit, as YAML text."""
    container: dict[str, Any] = {"name": "vllm", "image": f"{IMAGE}:{tag}", "args": argv}
    if env:
        container["env"] = [{"name": k, "value": v} for k, v in env.items()]
    container["ports"] = [{"containerPort": 8000}]
    container["resources"] = {"limits": {"nvidia.com/gpu": gpus}}
    text: str = yaml.safe_dump(container, sort_keys=False, default_flow_style=False, width=10_000)
    return text


def _python_value(flag: FlagUse, json_value: Any) -> Any:
    if flag.value is None:
        return not flag.flag.startswith("--no-")
    if json_value is not None:
        return json_value
    if _INT.match(flag.value):
        return int(flag.value)
    if _FLOAT.match(flag.value):
        return float(flag.value)
    return flag.value


def python_call(model: str, flags: list[FlagUse], env: dict[str, str]) -> tuple[str, list[str]]:
    """`LLM(model=..., <field>=...)` with the registry's field names; flags the engine does not take are listed."""
    kwargs: dict[str, Any] = {"model": model}
    skipped: list[str] = []
    for flag in flags:
        head, _, sub = flag.flag.partition(".")
        if flag.field is None:
            skipped.append(head)
            continue
        decoded = _decode(flag.value)
        if sub:
            kwargs.setdefault(flag.field, {})[sub] = decoded if decoded is not None else flag.value
        else:
            kwargs[flag.field] = _python_value(flag, decoded)
    lines = []
    if env:
        lines += ["import os", ""]
        lines += [f"os.environ[{k!r}] = {v!r}" for k, v in env.items()]
        lines.append("")
    lines += ["from vllm import LLM", "", "llm = LLM("]
    lines += [f"    {k}={v!r}," for k, v in kwargs.items()]
    lines.append(")")
    return "\n".join(lines) + "\n", skipped


def _decode(value: str | None) -> Any:
    if value is None or value.lstrip()[:1] not in ("{", "["):
        return None
    return json.loads(value)
