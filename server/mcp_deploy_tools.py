"""MCP wiring of the deployment tools: pick_format, render_serve_cmd, audit_deployment."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal

from mcp.server import MCPServer
from pydantic import Field

from vllm_quant_mcp.knowledge.models.facts import ExplicitModel
from vllm_quant_mcp.tools.audit_models import AuditReport
from vllm_quant_mcp.tools.context import ToolContext
from vllm_quant_mcp.tools.pick_models import PickFormatResult
from vllm_quant_mcp.tools.render_models import OutputFormat, RenderResult

from .app import READ_ONLY, anticipated
from .mcp_registry_tools import TagArg


def register(server: MCPServer, ctx: Callable[[], ToolContext]) -> None:
    @server.tool(annotations=READ_ONLY("Pick a quantization format"))
    @anticipated
    def pick_format(
        gpu: Annotated[str, Field(max_length=100, description="e.g. h200, 'H200 SXM', sm90, b200, mi300x.")],
        model: Annotated[
            str | None, Field(max_length=300, description="Hugging Face repo id or local model directory.")
        ] = None,
        model_figures: Annotated[
            ExplicitModel | None, Field(description="Instead of model: the size and shape, for private models.")
        ] = None,
        num_gpus: Annotated[int, Field(ge=1, le=1024, description="GPUs for tensor parallelism.")] = 1,
        tag: TagArg = None,
        priority: Literal["throughput", "latency", "accuracy", "memory"] = "throughput",
        context_len: Annotated[int | None, Field(ge=1)] = None,
        concurrency: Annotated[int | None, Field(ge=1)] = None,
        checkpoint: Annotated[
            Literal["any", "as_is", "online", "offline"] | None,
            Field(description="as_is: serve the checkpoint's own format; online: quantize at load."),
        ] = None,
    ) -> PickFormatResult:
        """Ranked quantization options for a model on a GPU at a tag: --quantization and --kv-cache-dtype values
        with provenance, native/fallback support with evidence, how to get the checkpoint, memory per GPU and
        tokens that fit, caveats; what the tag or GPU cannot run is listed with the reason.
        Example: pick_format(gpu="h200", model="meta-llama/Llama-3.1-70B-Instruct", num_gpus=2)
        """
        from vllm_quant_mcp.tools import pick_format as pick  # the knowledge base and hub client load on the first call

        if (model is None) == (model_figures is None):
            raise ValueError("Give exactly one of model (a repo id or directory) and model_figures.")
        chosen: str | ExplicitModel = model if model is not None else model_figures  # type: ignore[assignment]
        return pick.pick_format(ctx(), gpu, chosen, num_gpus, tag, priority, context_len, concurrency, checkpoint)

    @server.tool(annotations=READ_ONLY("Render the vllm serve command"))
    @anticipated
    def render_serve_cmd(
        model: Annotated[str, Field(min_length=1, max_length=300, description="Repo id or path of the checkpoint.")],
        tag: TagArg = None,
        quantization: str | None = None,
        kv_cache_dtype: str | None = None,
        tensor_parallel_size: Annotated[int | None, Field(ge=1)] = None,
        pipeline_parallel_size: Annotated[int | None, Field(ge=1)] = None,
        expert_parallel: bool = False,
        max_model_len: Annotated[int | None, Field(ge=1)] = None,
        speculative: Annotated[dict[str, Any] | None, Field(description="--speculative-config as an object.")] = None,
        quantization_config: Annotated[dict[str, Any] | None, Field(description="Online quantization config.")] = None,
        linear_backend: str | None = None,
        moe_backend: str | None = None,
        extra_args: Annotated[list[str] | None, Field(description="More flags, e.g. ['--max-num-seqs', '64'].")] = None,
        env: dict[str, str] | None = None,
        gpu: Annotated[str | None, Field(description="Check capability on this GPU, e.g. h100.")] = None,
        checkpoint_dtype: Annotated[
            str | None, Field(description="e.g. bf16: applies unquantized-checkpoint gates.")
        ] = None,
        format: OutputFormat = "shell",
    ) -> RenderResult:
        """The exact `vllm serve` command at a tag as shell, argv, docker, k8s or Python LLM(...), every flag and
        value checked against the tag's registry with its permalink; names the tag lacks are errors that say where
        they exist. Example: render_serve_cmd(model="meta-llama/Llama-3.1-70B-Instruct", tag="v0.32.0",
        quantization="fp8", kv_cache_dtype="fp8_e4m3", tensor_parallel_size=2)
        """
        from vllm_quant_mcp.tools.render_serve_cmd import render_serve_cmd as render  # heavy: loads on first call

        return render(
            ctx(),
            model=model,
            tag=tag,
            quantization=quantization,
            kv_cache_dtype=kv_cache_dtype,
            tensor_parallel_size=tensor_parallel_size,
            pipeline_parallel_size=pipeline_parallel_size,
            expert_parallel=expert_parallel,
            max_model_len=max_model_len,
            speculative=speculative,
            quantization_config=quantization_config,
            linear_backend=linear_backend,
            moe_backend=moe_backend,
            extra_args=extra_args,
            env=env,
            gpu=gpu,
            checkpoint_dtype=checkpoint_dtype,
            format=format,
        )

    @server.tool(annotations=READ_ONLY("Audit a deployment file"))
    @anticipated
    def audit_deployment(
        text: Annotated[str, Field(min_length=1, max_length=500_000, description="The file's contents.")],
        tag: TagArg = None,
        filename: Annotated[
            str, Field(max_length=300, description="Its name; picks shell, Kubernetes or compose reading.")
        ] = "deploy.sh",
    ) -> AuditReport:
        """Every `vllm serve` invocation and env var in a shell script, Kubernetes manifest or compose file, checked
        at a tag (as an upgrade from the release the file pins, if any): what is invalid or risky, with actions.
        Example: audit_deployment(text="<file contents>", tag="v0.32.0", filename="deploy.yaml")
        """
        from vllm_quant_mcp.tools.audit import audit  # heavy: loads on first call

        return audit(ctx(), text, filename, tag)
