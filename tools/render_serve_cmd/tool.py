"""`render_serve_cmd`: the exact `vllm serve` command for a tag, every flag and value checked against its registry.

Agents otherwise write flags from memory; here each name comes back with the path,
line and permalink that define it at the tag, and the same argv is written as a shell
line, an argv list, a `docker run`, a Kubernetes container or `LLM(...)` keywords.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Callable
from typing import Any

from vllm_quant_mcp.knowledge.deploy.serve_command import ServeCommandError, ServeFlag, parse_serve_command
from vllm_quant_mcp.knowledge.echo import clip
from vllm_quant_mcp.knowledge.facts.fact import CitationRef
from vllm_quant_mcp.knowledge.facts.kinds import Gpu
from vllm_quant_mcp.knowledge.facts.knowledge_base import KnowledgeBase
from vllm_quant_mcp.knowledge.registry.model import BackendEntry, CliFlag, Provenance, Registry
from vllm_quant_mcp.knowledge.support.loading import platform_of
from vllm_quant_mcp.knowledge.support.model_input import read_architectures, read_model_facts, shape_for
from vllm_quant_mcp.knowledge.support.shape import SELECTION_FLAGS, AttentionShape
from vllm_quant_mcp.tools.context import ToolContext

from .models import EnvUse, FlagUse, OutputFormat, RenderQuery, RenderResult
from .validate import (
    InvalidServeArgsError,
    Notes,
    check_architecture,
    check_attention,
    check_gpu,
    check_kv_on_gpu,
    check_load,
    check_refusals,
    fp8_redirect,
    lookup_flag,
    lookup_value,
)
from .writers import docker_line, k8s_container, python_call, shell_line

__all__ = ["render_serve_cmd"]

_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
# Flags with a parameter of their own: extra_args may not set them a second time.
_TYPED = {
    "--model": "model",
    "--quantization": "quantization",
    "--kv-cache-dtype": "kv_cache_dtype",
    "--tensor-parallel-size": "tensor_parallel_size",
    "--pipeline-parallel-size": "pipeline_parallel_size",
    "--enable-expert-parallel": "expert_parallel",
    "--max-model-len": "max_model_len",
    "--speculative-config": "speculative",
    "--quantization-config": "quantization_config",
    "--linear-backend": "linear_backend",
    "--moe-backend": "moe_backend",
}


class _Builder:
    """The flags in render order, each checked against the tag as it is added."""

    def __init__(self, ctx: ToolContext, registry: Registry, notes: Notes) -> None:
        self.ctx, self.registry, self.notes = ctx, registry, notes
        self.uses: list[FlagUse] = []
        self.words: list[str] = []

    def add(
        self, flag: str, value: str | None, value_at: Provenance | None = None, tokens: list[str] | None = None
    ) -> CliFlag:
        base, dot, sub = flag.partition(".")
        entry, negated = lookup_flag(self.ctx, self.registry, base)
        tag = self.registry.tag
        if entry.deprecated:
            self.notes.warn(
                f"[source] `{entry.name}` is deprecated at {tag} ({entry.provenance.permalink}); "
                "a later release may remove it."
            )
        if value is not None and not negated and not dot and entry.choices is not None and value not in entry.choices:
            raise InvalidServeArgsError(
                f"`{value}` is not a choice of `{entry.name}` at {tag}; choices: {', '.join(entry.choices)}."
            )
        name = (entry.negation if negated and entry.negation else entry.name) + dot + sub
        self.uses.append(
            FlagUse(
                flag=name,
                value=value,
                field=entry.field,
                provenance=entry.provenance,
                value_provenance=value_at,
                default=entry.default_text(),
            )
        )
        self.words += tokens if tokens is not None else [flag] + ([] if value is None else [value])
        return entry


def render_serve_cmd(ctx: ToolContext, query: RenderQuery) -> RenderResult:
    """Check every argument against the registry of the tag (and the GPU, when given), then write the command."""
    q = query
    model, quantization, kv_cache_dtype, gpu, env, fmt = (
        q.model,
        q.quantization,
        q.kv_cache_dtype,
        q.gpu,
        q.env,
        q.format,
    )
    kb = ctx.knowledge
    registry = ctx.registry(q.tag)
    notes = Notes()
    _check_model(model)
    target = kb.gpus_named(gpu)[0] if gpu is not None and gpu.strip() else None
    extras = _parse_extras(model, q.extra_args or [], registry)
    b = _Builder(ctx, registry, notes)
    reads_model = target is not None and bool(quantization or kv_cache_dtype)  # the one case the hub is read
    architectures = read_architectures(model, ctx.hub if reads_model else None, ctx.local_models)
    check_architecture(registry, architectures, _last(extras, registry, "--model-impl"), notes)
    shape = _shape(ctx, q, extras) if reads_model else None
    if quantization is not None:
        _quantization(
            b, kb, quantization.strip(), q.checkpoint_dtype, target, shape, extras, q.moe_backend, q.linear_backend
        )
    if kv_cache_dtype is not None:
        kv = lookup_value(
            ctx, registry, "--kv-cache-dtype", kv_cache_dtype, lambda r: r.kv_cache_dtypes, lambda e: e.name
        )
        if target is not None and shape is not None:
            check_kv_on_gpu(ctx, kb, registry, kv.name, target, shape, notes)
        b.add("--kv-cache-dtype", kv.name, kv.provenance)
    tp, pp = q.tensor_parallel_size, q.pipeline_parallel_size
    if tp is not None:
        b.add("--tensor-parallel-size", str(tp))
    if pp is not None:
        b.add("--pipeline-parallel-size", str(pp))
    if q.expert_parallel:
        _expert_parallel(tp, extras)
        b.add("--enable-expert-parallel", None)
    if q.max_model_len is not None:
        b.add("--max-model-len", str(q.max_model_len))
    if q.speculative is not None:
        _spec_method(b, q.speculative)
        b.add("--speculative-config", _json("speculative", q.speculative))
    if q.quantization_config is not None:
        _quantization_config(b, q.quantization_config)
    given = (quantization and quantization.strip(), q.checkpoint_dtype, q.quantization_config)
    check_load(registry, model, *given, notes, ctx.local_models, platform_of(target.vendor) if target else None)
    check_attention(
        registry, _last(extras, registry, "--attention-backend"), _last(extras, registry, "--attention-config")
    )
    backends = (("--linear-backend", q.linear_backend, "linear"), ("--moe-backend", q.moe_backend, "moe"))
    for name, value, kind in backends:
        if value is not None:
            backend = lookup_value(ctx, registry, name, value, _backends(kind), lambda e: e.name)
            b.add(name, backend.name, backend.provenance)
    for flag in extras:
        b.add(flag.name, flag.value, tokens=flag.tokens)
    env_uses = _env(b, env or {})
    argv = [model, *b.words]
    env_map = {e.name: e.value for e in env_uses}
    output = _write(fmt, argv, env_map, b.uses, model, registry.tag, (tp or 1) * (pp or 1), notes)
    return RenderResult(
        tag=registry.tag,
        format=fmt,
        output=output,
        argv=["vllm", "serve", *argv],
        env=env_uses,
        flags=b.uses,
        gpu=target.id if target else None,
        warnings=notes.warnings,
        judgements=notes.judgements,
        citations=list(notes.citations.values()),
    )


def _shape(ctx: ToolContext, q: RenderQuery, extras: list[ServeFlag]) -> AttentionShape:
    """The model as the attention selector reads it, with the selection flags extra_args set."""
    flags = {f.name: f.value or "" for f in extras if f.name.partition(".")[0] in SELECTION_FLAGS}
    facts, why = read_model_facts(q.model, None, ctx.hub, ctx.local_models)
    return shape_for(facts, why, flags)


def _backends(kind: str) -> Callable[[Registry], list[BackendEntry]]:
    def entries(registry: Registry) -> list[BackendEntry]:
        return registry.backends.linear if kind == "linear" else registry.backends.moe

    return entries


def _check_model(model: str) -> None:
    if not model or not model.strip() or model.startswith("-") or any(c in model for c in "\n\r\0"):
        raise InvalidServeArgsError(
            f"model {clip(model)} is not a model name: give a Hugging Face repo id or a path, "
            "e.g. 'meta-llama/Llama-3.1-8B-Instruct' (it must not start with '-')."
        )


def _json(name: str, value: dict[str, Any]) -> str:
    if not isinstance(value, dict) or not value:
        raise InvalidServeArgsError(f"{name} must be a non-empty JSON object (a dict), got {clip(value)}.")
    return json.dumps(value, separators=(",", ":"))


def _parse_extras(model: str, extra: list[str], registry: Registry) -> list[ServeFlag]:
    """extra_args read the way vLLM reads them; flags that have their own parameter are refused here."""
    if not extra:
        return []
    bare = {n for f in registry.cli_flags if f.negation for n in (f.name, *f.aliases)}
    try:
        command = parse_serve_command(shlex.join(["vllm", "serve", model, *extra]), bare)
    except ServeCommandError as exc:
        raise InvalidServeArgsError(f"extra_args {clip(extra)} cannot be read: {exc}") from exc
    for flag in command.flags:
        found = lookup_flag_name(registry, flag.option)
        if found in _TYPED:
            raise InvalidServeArgsError(
                f"extra_args sets `{flag.option}`, which has its own parameter: pass {_TYPED[found]}=... instead."
            )
        if flag.json_error:
            raise InvalidServeArgsError(f"extra_args: the value of `{flag.option}` is {flag.json_error}.")
    return list(command.flags)


def _last(extras: list[ServeFlag], registry: Registry, flag: str) -> str | None:
    """The value the last spelling of `flag` in extra_args gives (argparse keeps the last)."""
    values = [f.value for f in extras if lookup_flag_name(registry, f.option) == flag]
    return values[-1] if values else None


def lookup_flag_name(registry: Registry, written: str) -> str:
    """The canonical name of a spelling (alias or --no- form) when the tag knows it, else the spelling."""
    found = registry.find_flag(written)
    return found[0].name if found else written


def _quantization(
    b: _Builder,
    kb: KnowledgeBase,
    value: str,
    checkpoint_dtype: str | None,
    gpu: Gpu | None,
    shape: AttentionShape | None,
    extras: list[ServeFlag],
    moe_backend: str | None = None,
    linear_backend: str | None = None,
) -> None:
    registry = b.registry
    rendered = fp8_redirect(registry, value, checkpoint_dtype, b.notes)
    plugin = [m for m in kb.methods if m.name == value and m.plugin]
    hint = "".join(f" It is now provided by the {m.plugin} package (install it, then serve as before)." for m in plugin)
    method = lookup_value(
        b.ctx,
        registry,
        "--quantization",
        rendered,
        lambda r: [m for m in r.quantization_methods if m.accepted_by_cli],
        lambda m: m.name,
        hint,
    )
    if gpu is not None and shape is not None:
        check_gpu(registry, gpu, method, shape, b.notes, moe_backend or "auto", linear_backend or "auto")
    check_refusals(registry, method.name, b.notes)
    b.add("--quantization", method.name, method.provenance)
    if method.deprecated:
        allow = next((f for f in registry.cli_flags if f.name == "--allow-deprecated-quantization"), None)
        b.notes.warn(
            f"[source] --quantization {method.name} is deprecated at {registry.tag} ({method.provenance.permalink})."
        )
        if allow is not None and not any(lookup_flag_name(registry, f.option) == allow.name for f in extras):
            b.notes.warn(f"[source] Added {allow.name}: {registry.tag} refuses a deprecated method without it.")
            b.add(allow.name, None)


def _expert_parallel(tp: int | None, extras: list[ServeFlag]) -> None:
    dp_values = [f.value for f in extras if f.option in ("--data-parallel-size", "-dp")]
    dp = int(dp_values[-1]) if dp_values and dp_values[-1] and dp_values[-1].isdigit() else 1
    if (tp or 1) * dp < 2:
        raise InvalidServeArgsError(
            "expert_parallel needs more than one GPU to spread experts over (EP size = TP x DP), but "
            f"tensor_parallel_size={tp or 1} and data parallel size {dp}; set tensor_parallel_size >= 2 "
            "or add --data-parallel-size N to extra_args, or drop expert_parallel."
        )


def _spec_method(b: _Builder, speculative: dict[str, Any]) -> None:
    method = speculative.get("method")
    choices = next((f.choices for f in b.registry.cli_flags if f.name == "--spec-method"), None)
    if isinstance(method, str) and choices and method not in choices:
        raise InvalidServeArgsError(
            f"speculative method {clip(method)} is not a speculative method at {b.registry.tag} "
            f"(--spec-method choices: {', '.join(choices)})."
        )


def _quantization_config(b: _Builder, config: dict[str, Any]) -> None:
    text = _json("quantization_config", config)
    listed = {e.name: e for e in b.registry.online_quantization if e.kind == "config_key"}
    names = {e.name for e in b.registry.online_quantization}
    first = None
    lookup_flag(b.ctx, b.registry, "--quantization-config")
    if not listed:
        b.notes.warn(
            f"[source] {b.registry.tag}'s registry lists no --quantization-config keys; the keys were not checked."
        )
    for key, value in config.items() if listed else ():
        entry = lookup_value(
            b.ctx,
            b.registry,
            "--quantization-config key",
            key,
            lambda r: [e for e in r.online_quantization if e.kind == "config_key"],
            lambda e: e.name,
        )
        first = first or entry.provenance
        if key in ("linear", "moe") and isinstance(value, str) and value not in names:
            raise InvalidServeArgsError(
                f"--quantization-config {key}={clip(value)} is not an online quantization name at {b.registry.tag}; "
                f"valid: {', '.join(sorted(names))}."
            )
    if "targets" in config and ({"linear", "moe"} & set(config)):
        raise InvalidServeArgsError(
            "--quantization-config: `targets` excludes `linear` and `moe`; give one or the other."
        )
    b.add("--quantization-config", text, first)


def _env(b: _Builder, env: dict[str, str]) -> list[EnvUse]:
    out = []
    for name, value in env.items():
        if not _ENV_NAME.match(name):
            raise InvalidServeArgsError(f"env name {clip(name)} is not a valid environment variable name.")
        where = None
        if name.startswith("VLLM_"):
            found = lookup_value(
                b.ctx,
                b.registry,
                "Environment variable",
                name,
                lambda r: r.env_vars,
                lambda e: e.name,
                " vLLM ignores VLLM_ variables it does not define.",
            )
            where = found.provenance
        out.append(EnvUse(name=name, value=str(value), provenance=where))
    return out


def _write(
    fmt: OutputFormat,
    argv: list[str],
    env: dict[str, str],
    uses: list[FlagUse],
    model: str,
    tag: str,
    gpus: int,
    notes: Notes,
) -> str | list[str]:
    if fmt == "shell":
        return shell_line(argv, env)
    if fmt == "argv":
        return ["vllm", "serve", *argv]
    dockerfile = CitationRef(
        label=f"docker/Dockerfile vllm-openai ENTRYPOINT [vllm, serve] at {tag}",
        url=f"https://github.com/vllm-project/vllm/blob/{tag}/docker/Dockerfile",
    )
    if fmt == "docker":
        notes.citations.setdefault(dockerfile.url, dockerfile)
        return docker_line(argv, env, tag)
    if fmt == "k8s":
        notes.citations.setdefault(dockerfile.url, dockerfile)
        return k8s_container(argv, env, tag, gpus)
    text, skipped = python_call(model, uses, env)
    if skipped:
        notes.warn(
            f"[source] Left out of LLM(...): {', '.join(skipped)} (server options with no EngineArgs field at {tag})."
        )
    return text
