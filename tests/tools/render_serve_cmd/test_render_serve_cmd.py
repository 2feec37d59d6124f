"""render_serve_cmd on the real bundled registries; expected names are read from the bundled JSON files directly."""

from __future__ import annotations

import json
import shlex
from importlib import resources
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.bundled_json import raw

from vllm_quant_mcp.knowledge.deploy.serve_command import parse_serve_command
from vllm_quant_mcp.knowledge.tags import UnknownTagError
from vllm_quant_mcp.tools.context import ToolContext
from vllm_quant_mcp.tools.render_serve_cmd.models import RenderQuery, RenderResult
from vllm_quant_mcp.tools.render_serve_cmd.text import render as render_text
from vllm_quant_mcp.tools.render_serve_cmd.tool import render_serve_cmd as run_render
from vllm_quant_mcp.tools.render_serve_cmd.validate import InvalidServeArgsError


def render_serve_cmd(ctx: ToolContext, model: str | None = None, **options: Any) -> RenderResult:
    """The tool called as a client would, model first."""
    return run_render(ctx, RenderQuery(**({"model": model} if model is not None else {}), **options))


MODEL = "meta-llama/Llama-3.1-8B-Instruct"
BUNDLED = sorted(
    p.name[:-5]
    for p in resources.files("vllm_quant_mcp.knowledge.registry.bundled").iterdir()
    if p.name.endswith(".json")
)


def flag_spellings(tag: str) -> set[str]:
    return {n for f in raw(tag)["cli_flags"] for n in (f["name"], f["negation"], *f["aliases"]) if n}


def cli_methods(tag: str) -> list[str]:
    return sorted(m["name"] for m in raw(tag)["quantization_methods"] if m.get("accepted_by_cli", True))


def kv_dtypes(tag: str) -> list[str]:
    return sorted(k["name"] for k in raw(tag)["kv_cache_dtypes"])


def pairs(text: str, tag: str) -> tuple[str | None, dict[str, str], list[tuple[str, str | None]]]:
    bare = {n for f in raw(tag)["cli_flags"] if f["negation"] for n in (f["name"], *f["aliases"])}
    command = parse_serve_command(text, bare)
    return command.model, command.env, [(f.name, f.value) for f in command.flags]


json_scalars = st.one_of(st.integers(-1000, 1000), st.booleans(), st.text(max_size=12), st.none())
spec_dicts = st.dictionaries(
    st.text(min_size=1, max_size=10),
    st.one_of(json_scalars, st.lists(json_scalars, max_size=3)),
    min_size=1,
    max_size=4,
)


@st.composite
def render_inputs(draw: st.DrawFn) -> dict[str, Any]:
    tag = draw(st.sampled_from(BUNDLED))
    args: dict[str, Any] = {
        "tag": tag,
        "model": draw(st.sampled_from([MODEL, "/models/my model's dir", "Qwen/Qwen3-30B-A3B"])),
    }
    if draw(st.booleans()):
        args["quantization"] = draw(st.sampled_from(cli_methods(tag)))
    if draw(st.booleans()):
        args["kv_cache_dtype"] = draw(st.sampled_from(kv_dtypes(tag)))
    args["tensor_parallel_size"] = draw(st.sampled_from([None, 1, 2, 4, 8]))
    args["pipeline_parallel_size"] = draw(st.sampled_from([None, 1, 2]))
    args["expert_parallel"] = (args["tensor_parallel_size"] or 1) > 1 and draw(st.booleans())
    args["max_model_len"] = draw(st.one_of(st.none(), st.integers(1, 1_000_000)))
    if draw(st.booleans()):
        spec = draw(spec_dicts.filter(lambda d: not isinstance(d.get("method"), str)))
        methods = next((f["choices"] for f in raw(tag)["cli_flags"] if f["name"] == "--spec-method"), None)
        if methods and draw(st.booleans()):
            spec["method"] = draw(st.sampled_from(methods))
        args["speculative"] = spec
    args["env"] = draw(
        st.dictionaries(st.sampled_from(["HF_HOME", "CUDA_VISIBLE_DEVICES"]), st.text(max_size=8), max_size=2)
    )
    return args


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(args=render_inputs())
def test_the_rendered_shell_line_parses_back_to_the_same_arguments_and_only_registry_flags(
    ctx: ToolContext, args: dict[str, Any]
) -> None:
    result = render_serve_cmd(ctx, **args)
    tag = args["tag"]
    model, env, flags = pairs(str(result.output), tag)
    assert model == args["model"] and env == args["env"]
    expected = [(u.flag, u.value) for u in result.flags]
    assert flags == expected
    assert {name.split(".")[0] for name, _ in flags} <= flag_spellings(tag)
    assert result.argv == ["vllm", "serve", args["model"], *[w for n, v in expected for w in (n, v) if w is not None]]
    if "speculative" in args:
        (spec,) = [v for n, v in flags if n == "--speculative-config"]
        assert json.loads(spec or "") == args["speculative"]
    if "quantization" in args:
        assert ("--quantization", args["quantization"]) in flags


def test_every_flag_comes_with_its_line_at_the_tag(ctx: ToolContext) -> None:
    result = render_serve_cmd(
        ctx, MODEL, tag="v0.32.0", quantization="fp8", kv_cache_dtype="fp8", tensor_parallel_size=2
    )
    by_name = {f["name"]: f for f in raw("v0.32.0")["cli_flags"]}
    for use in result.flags:
        entry = by_name[use.flag]
        assert (use.provenance.path, use.provenance.line, use.field) == (
            entry["provenance"]["path"],
            entry["provenance"]["line"],
            entry["field"],
        )
        assert "/blob/v0.32.0/" in use.provenance.permalink
    fp8 = next(m for m in raw("v0.32.0")["quantization_methods"] if m["name"] == "fp8")
    assert (
        result.flags[0].value_provenance is not None
        and result.flags[0].value_provenance.line == fp8["provenance"]["line"]
    )


def test_fp8_on_a_bf16_checkpoint_is_rendered_as_the_loaders_redirect_target_with_its_line(ctx: ToolContext) -> None:
    redirect = next(r for r in raw("v0.31.0")["load_refusals"] if r["outcome"] == "redirected")
    assert (redirect["methods"], redirect["redirect_to"]) == (["fp8"], "fp8_per_tensor")
    result = render_serve_cmd(ctx, MODEL, tag="v0.31.0", quantization="fp8", checkpoint_dtype="bf16")
    assert ("--quantization", "fp8_per_tensor") in [(u.flag, u.value) for u in result.flags]
    (warning,) = [w for w in result.warnings if "fp8_per_tensor" in w]
    assert warning.startswith("[source]") and "bf16" in warning
    assert "deprecated; redirected to fp8_per_tensor" in warning  # as the fp8 gate and method note say
    assert redirect["provenance"]["permalink"] in warning
    unsure = render_serve_cmd(ctx, MODEL, tag="v0.31.0", quantization="fp8")
    assert [(u.flag, u.value) for u in unsure.flags] == [("--quantization", "fp8")]
    assert any("checkpoint_dtype='bf16'" in w for w in unsure.warnings)


def test_fp8_on_a_bf16_checkpoint_stays_fp8_before_v0_31(ctx: ToolContext) -> None:
    result = render_serve_cmd(ctx, MODEL, tag="v0.30.0", quantization="fp8", checkpoint_dtype="bf16")
    assert [(u.flag, u.value) for u in result.flags] == [("--quantization", "fp8")]
    assert result.warnings == []


def test_fp8_without_a_checkpoint_dtype_warns_about_the_gate(ctx: ToolContext) -> None:
    result = render_serve_cmd(ctx, MODEL, tag="v0.32.0", quantization="fp8")
    assert result.flags[0].value == "fp8"
    assert any("checkpoint_dtype" in w for w in result.warnings)


def test_a_flag_the_tag_lacks_is_refused_naming_the_releases_that_have_it(ctx: ToolContext) -> None:
    have = [t for t in BUNDLED if "--calculate-kv-scales" in flag_spellings(t)]
    with pytest.raises(InvalidServeArgsError) as err:
        render_serve_cmd(ctx, MODEL, tag="v0.32.0", extra_args=["--calculate-kv-scales"])
    assert f"{have[0]}..{have[-1]}" in str(err.value) and "v0.32.0" in str(err.value)


def test_a_misspelt_flag_is_refused_with_the_nearest_flags(ctx: ToolContext) -> None:
    with pytest.raises(InvalidServeArgsError, match="--max-model-len"):
        render_serve_cmd(ctx, MODEL, extra_args=["--max-model-lenght", "4096"])


def test_quantization_config_before_v0_22_is_refused_naming_where_the_flag_exists(ctx: ToolContext) -> None:
    first = next(t for t in BUNDLED if "--quantization-config" in flag_spellings(t))
    with pytest.raises(InvalidServeArgsError, match=first):
        render_serve_cmd(ctx, MODEL, tag="v0.21.0", quantization_config={"linear": "fp8_per_tensor"})


def test_a_quantization_config_key_the_tag_lacks_is_refused(ctx: ToolContext) -> None:
    keys = {e["name"] for e in raw("v0.29.0")["online_quantization"] if e["kind"] == "config_key"}
    assert "targets" not in keys
    with pytest.raises(InvalidServeArgsError, match="targets"):
        render_serve_cmd(ctx, MODEL, tag="v0.29.0", quantization_config={"targets": {"re:.*": "fp8_per_tensor"}})


def test_a_removed_method_is_refused_with_its_plugin(ctx: ToolContext) -> None:
    with pytest.raises(InvalidServeArgsError, match="vllm-bnb-plugin"):
        render_serve_cmd(ctx, MODEL, tag="v0.32.0", quantization="bitsandbytes")


def test_a_kv_dtype_the_tag_lacks_is_refused_listing_the_valid_ones(ctx: ToolContext) -> None:
    assert "nvfp4" not in kv_dtypes("v0.19.0")
    with pytest.raises(InvalidServeArgsError) as err:
        render_serve_cmd(ctx, MODEL, tag="v0.19.0", kv_cache_dtype="nvfp4")
    assert all(k in str(err.value) for k in kv_dtypes("v0.19.0"))


def test_a_backend_the_tag_lacks_is_refused(ctx: ToolContext) -> None:
    with pytest.raises(InvalidServeArgsError, match="--moe-backend"):
        render_serve_cmd(ctx, MODEL, tag="v0.32.0", moe_backend="not_a_backend")


def test_expert_parallel_on_one_gpu_is_contradictory(ctx: ToolContext) -> None:
    with pytest.raises(InvalidServeArgsError, match="expert_parallel"):
        render_serve_cmd(ctx, MODEL, expert_parallel=True, tensor_parallel_size=1)
    ok = render_serve_cmd(ctx, MODEL, expert_parallel=True, extra_args=["--data-parallel-size", "4"])
    assert "--enable-expert-parallel" in ok.argv


def test_extra_args_may_not_repeat_a_parameter(ctx: ToolContext) -> None:
    with pytest.raises(InvalidServeArgsError, match=r"quantization=\.\.\."):
        render_serve_cmd(ctx, MODEL, quantization="fp8", extra_args=["-q", "awq"])


def test_an_unknown_tag_lists_the_nearest(ctx: ToolContext) -> None:
    with pytest.raises(UnknownTagError, match=r"v0\.32\.0"):
        render_serve_cmd(ctx, MODEL, tag="v0.32.9")


def test_an_unknown_vllm_env_var_is_refused(ctx: ToolContext) -> None:
    with pytest.raises(InvalidServeArgsError, match="VLLM_ATTENTION_BACKEND"):
        render_serve_cmd(ctx, MODEL, tag="v0.32.0", env={"VLLM_ATTENTION_BACKEND": "FLASHINFER"})


def test_a_method_above_the_gpu_capability_is_refused_from_the_source_and_a_fallback_warned_as_curated(
    ctx: ToolContext,
) -> None:
    above = [
        m for m in raw("v0.32.0")["quantization_methods"] if (m["min_capability"] or 0) > 80 and m["accepted_by_cli"]
    ]
    method = above[0]
    with pytest.raises(InvalidServeArgsError, match=r"\[source\].*SM 8\.0") as refused:
        render_serve_cmd(ctx, MODEL, quantization=method["name"], gpu="a100")
    line = method["min_capability_provenance"]
    assert f"/blob/v0.32.0/{line['path']}#L{line['line']}" in str(refused.value)
    fallback = render_serve_cmd(ctx, MODEL, quantization="mxfp4", gpu="h100")
    assert any(w.startswith("[curated]") and "no mxfp4 tensor cores" in w for w in fallback.warnings)
    assert (fallback.judgements[0].subject, fallback.judgements[0].verdict, fallback.judgements[0].basis) == (
        "--quantization mxfp4",
        "yes",
        "source",
    )
    (kernel,) = [j for j in fallback.judgements if j.subject == "linear kernel for --quantization mxfp4"]
    assert kernel.basis == "source" and kernel.via is not None
    on_cpu = render_serve_cmd(ctx, MODEL, quantization="fp8_per_tensor", gpu="cpu")
    assert any(w.startswith("[curated]") and "CPU" in w for w in on_cpu.warnings)


def test_kv_fp8_e5m2_on_h100_at_v0_32_0_is_refused_by_the_observation_carried_along_the_sources_same_path(
    ctx: ToolContext,
) -> None:
    with pytest.raises(InvalidServeArgsError) as refused:
        render_serve_cmd(ctx, MODEL, tag="v0.32.0", kv_cache_dtype="fp8_e5m2", gpu="h100")
    assert str(refused.value).startswith("[observed] Observed on an NVIDIA H200 (SM 9.0")
    assert "carried to v0.32.0: the source selects FLASHINFER through the same checks" in str(refused.value)
    assert "vLLM selects FLASHINFER for fp8_e5m2 KV on h100 (SM 9.0, a dense model)" in str(refused.value)


def test_an_online_shorthand_whose_moe_method_raises_off_blackwell_is_a_source_warning_for_an_unknown_model(
    ctx: ToolContext,
) -> None:
    shorthand = next(o for o in raw("v0.32.0")["online_quantization"] if o["name"] == "nvfp4_per_token")
    (refusal,) = shorthand["refusals"]
    assert (refusal["layer"], refusal["family"]) == ("moe", 100)
    result = render_serve_cmd(ctx, MODEL, tag="v0.32.0", quantization="nvfp4_per_token", gpu="h100")
    loads, *kernels = result.judgements
    assert (loads.verdict, loads.basis) == ("conditional", "source")
    assert [j.subject for j in kernels] == [
        "linear kernel for --quantization nvfp4_per_token",
        "MoE backend for --quantization nvfp4_per_token (MoE layers, tensor parallel)",
    ]
    assert any(w.startswith("[source]") and refusal["provenance"]["permalink"] in w for w in result.warnings)
    blackwell = render_serve_cmd(ctx, MODEL, tag="v0.32.0", quantization="nvfp4_per_token", gpu="b200")
    assert blackwell.judgements[0].verdict == "yes"


def test_a_deprecated_method_gets_the_allow_flag_the_tag_requires(ctx: ToolContext) -> None:
    deprecated = [m["name"] for m in raw("v0.32.0")["quantization_methods"] if m["deprecated"]]
    result = render_serve_cmd(ctx, MODEL, quantization=deprecated[0])
    assert result.argv[-1] == "--allow-deprecated-quantization"
    assert any("deprecated" in w for w in result.warnings)


def test_docker_form_runs_the_image_of_the_tag_without_vllm_serve(ctx: ToolContext) -> None:
    result = render_serve_cmd(
        ctx, MODEL, quantization="fp8", speculative={"method": "eagle3", "model": "x/y"}, format="docker"
    )
    text = str(result.output)
    words = shlex.split(text.replace("\\\n", " ").replace("~", "HOME"))
    at = words.index("vllm/vllm-openai:v0.32.0")
    assert words[at + 1 :] == result.argv[2:] and "serve" not in words
    assert any("Dockerfile" in c.url for c in result.citations)


def test_k8s_form_is_a_container_with_the_args_and_env(ctx: ToolContext) -> None:
    result = render_serve_cmd(ctx, MODEL, tensor_parallel_size=4, env={"VLLM_LOGGING_LEVEL": "INFO"}, format="k8s")
    container = yaml.safe_load(str(result.output))
    assert container["args"] == result.argv[2:]
    assert container["env"] == [{"name": "VLLM_LOGGING_LEVEL", "value": "INFO"}]
    assert container["resources"]["limits"]["nvidia.com/gpu"] == 4
    env_line = next(e for e in raw("v0.32.0")["env_vars"] if e["name"] == "VLLM_LOGGING_LEVEL")["provenance"]["line"]
    assert result.env[0].provenance is not None and result.env[0].provenance.line == env_line


def test_python_form_uses_the_engine_field_names_and_drops_server_options(ctx: ToolContext) -> None:
    result = render_serve_cmd(
        ctx,
        MODEL,
        quantization="awq_marlin",
        tensor_parallel_size=2,
        extra_args=["--enforce-eager", "--port", "8001"],
        format="python",
    )
    text = str(result.output)
    assert "quantization='awq_marlin'" in text and "tensor_parallel_size=2" in text and "enforce_eager=True" in text
    assert "port=" not in text and any("--port" in w for w in result.warnings)
    compile(text, "<rendered>", "exec")


def test_argv_form_is_the_list(ctx: ToolContext) -> None:
    result = render_serve_cmd(ctx, MODEL, max_model_len=4096, format="argv")
    assert result.output == ["vllm", "serve", MODEL, "--max-model-len", "4096"] == result.argv


def test_each_rendered_flag_carries_the_tags_default_with_its_line(ctx: ToolContext) -> None:
    result = render_serve_cmd(ctx, MODEL, tag="v0.33.0", extra_args=["--gpu-memory-utilization", "0.95"])
    use = next(f for f in result.flags if f.flag == "--gpu-memory-utilization")
    assert (use.value, use.default) == ("0.95", "0.92 (vllm/config/cache.py:215)")
    assert "default 0.92 (vllm/config/cache.py:215)" in render_text(result)
    older = render_serve_cmd(ctx, MODEL, tag="v0.19.1", extra_args=["--gpu-memory-utilization", "0.95"])
    assert (
        next(f.default for f in older.flags if f.flag == "--gpu-memory-utilization") == "0.9 (vllm/config/cache.py:41)"
    )
