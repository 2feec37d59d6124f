"""ModelFacts: the size and shape of a model, derived from its config.json (and exact figures where the hub has them).

Parameter counts are estimated from the config (attention, MLP or experts, embeddings), which
lands within a fraction of a percent for the common families; the hub API's safetensors
count replaces the estimate for an unquantized checkpoint, where it is exact.
Only layers with full attention keep a KV cache that grows with the context: linear
attention keeps a fixed state and sliding-window layers stop at the window.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from vllm_quant_mcp.knowledge.errors import InvalidInputError

if TYPE_CHECKING:  # hub loads httpx and diskcache; these models are result shapes the server lists at start-up
    from .client import ModelFiles

__all__ = [
    "DTYPE_BYTES",
    "MAX_LAYERS",
    "ExplicitModel",
    "LayerType",
    "Mla",
    "ModelFacts",
    "Moe",
    "QuantizationInfo",
    "facts_from_files",
]

LayerType = Literal["full_attention", "linear_attention", "sliding_attention"]
DTYPE_BYTES: dict[str, int] = {"bfloat16": 2, "float16": 2, "float32": 4}
_LAYER_ALIASES: dict[str, LayerType] = {
    "full_attention": "full_attention",
    "attention": "full_attention",
    "linear_attention": "linear_attention",
    "sliding_attention": "sliding_attention",
    "sliding_window": "sliding_attention",
}


# Bounds on a model's figures, a few times past the largest real model (Llama 3.1 405B: 126 layers;
# Kimi K2: 1 T parameters). The per-layer list and sums of the estimate grow with the layer count, so a caller's
# 30,000,000 layers held a server for 23 s and its answer was hundreds of megabytes.
MAX_LAYERS = 1024
MAX_PARAMS_B = 20_000.0  # 20 T


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Moe(_Model):
    num_experts: int = Field(ge=1)
    active_experts: int = Field(ge=1, description="Routed experts per token (num_experts_per_tok).")
    shared_experts: int = Field(default=0, ge=0)
    expert_intermediate_size: int | None = None


class Mla(_Model):
    """Multi-head latent attention: the cache holds one compressed latent plus the RoPE part per token and layer."""

    kv_lora_rank: int = Field(ge=1)
    qk_rope_head_dim: int = Field(ge=0)
    sparse: bool = Field(default=False, description="DeepSeek sparse attention (the config sets index_topk).")

    @property
    def head_size(self) -> int:
        """The head size vLLM's attention selection sees for MLA: kv_lora_rank + qk_rope_head_dim (get_head_size)."""
        return self.kv_lora_rank + self.qk_rope_head_dim


class QuantizationInfo(_Model):
    """A pre-quantized checkpoint's quantization_config, reduced to what picks a loader."""

    quant_method: str = Field(description="As the checkpoint writes it, e.g. modelopt, awq, compressed-tensors.")
    format: str | None = Field(default=None, description="The weight format inside, lower-case: nvfp4, fp8, int4...")
    bits: int | None = None


class ModelFacts(_Model):
    source: str = Field(description="Repo id, directory, or 'explicit figures'.")
    model_type: str | None = None
    architectures: list[str] = []
    dtype: str = Field(default="bfloat16", description="The checkpoint's unquantized dtype (torch_dtype).")
    params: int = Field(ge=1, description="Total parameters.")
    params_exact: bool = Field(description="True when the count comes from the hub's safetensors metadata.")
    active_params: int | None = Field(default=None, description="Parameters used per token (MoE).")
    embedding_params: int = Field(default=0, ge=0, description="Embeddings and untied lm_head: kept in 16 bit.")
    weight_bytes: int | None = Field(default=None, description="metadata.total_size of the safetensors index.")
    layers: int = Field(ge=1)
    hidden_size: int | None = None
    heads: int | None = None
    kv_heads: int = Field(ge=1)
    head_dim: int = Field(ge=1)
    max_position_embeddings: int | None = None
    moe: Moe | None = None
    mla: Mla | None = None
    layer_types: list[LayerType] = Field(description="One per layer.")
    quantization: QuantizationInfo | None = None
    sliding_window: int | None = Field(default=None, description="The config's sliding_window, when it sets one.")
    attention_sinks: bool = Field(default=False, description="Its attention layers pass learned sinks (gpt-oss).")

    @property
    def full_attention_layers(self) -> int:
        return sum(t == "full_attention" for t in self.layer_types)

    @property
    def hybrid(self) -> bool:
        return any(t == "linear_attention" for t in self.layer_types)

    @property
    def family(self) -> str:
        """model_type with dashes, the spelling the knowledge base uses for families (qwen3-next, gpt-oss)."""
        return (self.model_type or "").replace("_", "-").lower()


class ExplicitModel(_Model):
    """A model given by its figures, for private models or when the hub is out of reach.

    Only the figures that size a list or a float are bounded in the schema (the listing's budget): the layer
    count (one entry per layer) and the parameter counts (finite, at most MAX_PARAMS_B); the others enter
    integer arithmetic only, where a large value costs nothing.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    params_b: float = Field(gt=0, le=MAX_PARAMS_B, description="Total, in billions, e.g. 70.6.")
    layers: int = Field(ge=1, le=MAX_LAYERS)
    kv_heads: int = Field(ge=1, description="num_key_value_heads; with MLA, 1.")
    head_dim: int = Field(ge=1)
    active_params_b: float | None = Field(
        default=None, gt=0, le=MAX_PARAMS_B, description="Per-token parameters of a MoE model."
    )
    num_experts: int | None = Field(default=None, ge=1)
    active_experts: int | None = Field(default=None, ge=1)
    full_attention_layers: int | None = Field(default=None, ge=0, description="Defaults to all layers.")
    kv_lora_rank: int | None = Field(default=None, ge=1, description="MLA latent size.")
    qk_rope_head_dim: int | None = Field(default=None, ge=0)
    dtype: Literal["bfloat16", "float16", "float32"] = "bfloat16"
    max_position_embeddings: int | None = Field(default=None, ge=1)
    model_type: str | None = Field(default=None, max_length=64)

    def to_facts(self) -> ModelFacts:
        full = self.layers if self.full_attention_layers is None else min(self.full_attention_layers, self.layers)
        moe = None
        if self.num_experts is not None:
            moe = Moe(num_experts=self.num_experts, active_experts=self.active_experts or 1)
        mla = None
        if self.kv_lora_rank is not None:
            mla = Mla(kv_lora_rank=self.kv_lora_rank, qk_rope_head_dim=self.qk_rope_head_dim or 0)
        return ModelFacts(
            source="explicit figures",
            model_type=self.model_type,
            dtype=self.dtype,
            params=round(self.params_b * 1e9),
            params_exact=False,
            active_params=round(self.active_params_b * 1e9) if self.active_params_b else None,
            layers=self.layers,
            kv_heads=self.kv_heads,
            head_dim=self.head_dim,
            max_position_embeddings=self.max_position_embeddings,
            moe=moe,
            mla=mla,
            layer_types=_full_then_linear(full, self.layers),
        )


# Model types whose attention layers pass `sinks=` to vLLM's Attention (vllm/model_executor/models/gpt_oss.py): the
# config carries no key for it, the model code does.
_SINK_MODEL_TYPES = frozenset({"gpt_oss"})


def _full_then_linear(full: int, layers: int) -> list[LayerType]:
    kinds: list[LayerType] = ["full_attention", "linear_attention"]
    return [kinds[0]] * full + [kinds[1]] * (layers - full)


def _int(cfg: dict[str, Any], *keys: str) -> int | None:
    for key in keys:
        value = cfg.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return None


def _need(cfg: dict[str, Any], source: str, *keys: str) -> int:
    value = _int(cfg, *keys)
    if value is None:
        raise InvalidInputError(
            f"config.json of {source} has no {' / '.join(keys)}; pass the model as explicit figures instead."
        )
    return value


def _layer_types(cfg: dict[str, Any], layers: int) -> list[LayerType]:
    raw = cfg.get("layer_types")
    if isinstance(raw, list) and len(raw) == layers:
        return [_LAYER_ALIASES.get(str(t), "full_attention") for t in raw]
    interval = _int(cfg, "full_attention_interval")
    if interval:
        return ["full_attention" if (i + 1) % interval == 0 else "linear_attention" for i in range(layers)]
    return ["full_attention"] * layers


def _quantization(cfg: dict[str, Any]) -> QuantizationInfo | None:
    qc = cfg.get("quantization_config")
    if not isinstance(qc, dict) or not isinstance(qc.get("quant_method"), str):
        return None
    method = qc["quant_method"].lower()
    inner = qc.get("quantization")
    nested: dict[str, Any] = inner if isinstance(inner, dict) else {}
    fmt = qc.get("quant_algo") or nested.get("quant_algo") or qc.get("format")
    groups = qc.get("config_groups")
    if fmt is None and isinstance(groups, dict):
        formats = {g.get("format") for g in groups.values() if isinstance(g, dict) and g.get("format")}
        fmt = formats.pop() if len(formats) == 1 else None
    if fmt is None and method in ("awq", "gptq"):
        fmt = f"int{qc.get('bits', 4)}"
    if fmt is None and method in ("mxfp4", "fp8"):
        fmt = method
    bits = qc.get("bits") if isinstance(qc.get("bits"), int) else None
    return QuantizationInfo(quant_method=method, format=str(fmt).lower() if fmt else None, bits=bits)


def _attention_params(cfg: dict[str, Any], hidden: int, heads: int, kv_heads: int, head_dim: int) -> int:
    kv_lora = _int(cfg, "kv_lora_rank")
    if kv_lora:
        rope = _int(cfg, "qk_rope_head_dim") or 0
        nope = _int(cfg, "qk_nope_head_dim") or head_dim
        v_dim = _int(cfg, "v_head_dim") or head_dim
        q_lora = _int(cfg, "q_lora_rank")
        q = hidden * q_lora + q_lora * heads * (nope + rope) if q_lora else hidden * heads * (nope + rope)
        return q + hidden * (kv_lora + rope) + kv_lora * heads * (nope + v_dim) + heads * v_dim * hidden
    return hidden * heads * head_dim * 2 + hidden * kv_heads * head_dim * 2


def _linear_attention_params(cfg: dict[str, Any], hidden: int) -> int:
    nk = _int(cfg, "linear_num_key_heads") or 0
    nv = _int(cfg, "linear_num_value_heads") or 0
    dk = _int(cfg, "linear_key_head_dim") or 0
    dv = _int(cfg, "linear_value_head_dim") or 0
    kernel = _int(cfg, "linear_conv_kernel_dim") or 0
    return hidden * (2 * nk * dk + 2 * nv * dv) + hidden * 2 * nv + nv * dv * hidden + (2 * nk * dk + nv * dv) * kernel


def _moe(cfg: dict[str, Any]) -> Moe | None:
    experts = _int(cfg, "num_experts", "num_local_experts", "n_routed_experts")
    if not experts or experts < 2:
        return None
    shared = _int(cfg, "n_shared_experts") or (1 if _int(cfg, "shared_expert_intermediate_size") else 0)
    return Moe(
        num_experts=experts,
        active_experts=_int(cfg, "num_experts_per_tok", "num_experts_per_token") or 1,
        shared_experts=shared,
        expert_intermediate_size=_int(cfg, "moe_intermediate_size") or _int(cfg, "intermediate_size"),
    )


def _mlp_params(cfg: dict[str, Any], hidden: int, moe: Moe | None, layer: int) -> tuple[int, int]:
    """(total, active) parameters of one layer's MLP or expert block."""
    dense_ffn = 3 * hidden * (_int(cfg, "intermediate_size") or 4 * hidden)
    if moe is None or layer < (_int(cfg, "first_k_dense_replace") or 0):
        return dense_ffn, dense_ffn
    expert = 3 * hidden * (moe.expert_intermediate_size or 4 * hidden)
    shared_size = _int(cfg, "shared_expert_intermediate_size")
    shared = 3 * hidden * shared_size if shared_size else moe.shared_experts * expert
    router = hidden * moe.num_experts
    return moe.num_experts * expert + shared + router, moe.active_experts * expert + shared + router


def facts_from_files(files: ModelFiles) -> ModelFacts:
    """ModelFacts from a model's files; a multimodal config's text_config holds the language model."""
    top = files.config
    cfg = {**top, **top["text_config"]} if isinstance(top.get("text_config"), dict) else top
    src = files.ref
    hidden = _need(cfg, src, "hidden_size", "d_model")
    layers = _need(cfg, src, "num_hidden_layers", "num_layers", "n_layer")
    if layers > MAX_LAYERS:  # a repo on the hub is anyone's: its config.json is as caller-controlled as figures
        raise InvalidInputError(f"config.json of {src} gives {layers} layers; at most {MAX_LAYERS} are read.")
    heads = _need(cfg, src, "num_attention_heads", "n_head")
    kv_heads = _int(cfg, "num_key_value_heads") or heads
    head_dim = _int(cfg, "head_dim") or hidden // heads
    types = _layer_types(cfg, layers)
    moe = _moe(cfg)
    kv_lora = _int(cfg, "kv_lora_rank")
    rope = _int(cfg, "qk_rope_head_dim") or 0
    mla = Mla(kv_lora_rank=kv_lora, qk_rope_head_dim=rope, sparse="index_topk" in cfg) if kv_lora else None

    vocab = _int(cfg, "vocab_size") or 0
    tied = bool(cfg.get("tie_word_embeddings", False))
    embedding = vocab * hidden * (1 if tied else 2)
    total = active = embedding + hidden
    attention = _attention_params(cfg, hidden, heads, kv_heads, head_dim)
    linear = _linear_attention_params(cfg, hidden)
    for layer, kind in enumerate(types):
        mixer = linear if kind == "linear_attention" else attention
        mlp_total, mlp_active = _mlp_params(cfg, hidden, moe, layer)
        total += mixer + mlp_total + 2 * hidden
        active += mixer + mlp_active + 2 * hidden

    quant = _quantization(top)
    exact = None
    safetensors = (files.api or {}).get("safetensors")
    if quant is None and isinstance(safetensors, dict) and isinstance(safetensors.get("total"), int):
        exact = safetensors["total"]
    metadata = (files.index or {}).get("metadata")
    size = metadata.get("total_size") if isinstance(metadata, dict) else None
    dtype = str(top.get("torch_dtype") or cfg.get("torch_dtype") or cfg.get("dtype") or "bfloat16")
    return ModelFacts(
        source=src,
        model_type=str(cfg.get("model_type")) if cfg.get("model_type") else None,
        architectures=[str(a) for a in top.get("architectures") or []],
        dtype=dtype if dtype in DTYPE_BYTES else "bfloat16",
        params=exact or total,
        params_exact=exact is not None,
        active_params=active if moe else None,
        embedding_params=embedding,
        weight_bytes=int(size) if isinstance(size, int | float) else None,
        layers=layers,
        hidden_size=hidden,
        heads=heads,
        kv_heads=kv_heads,
        head_dim=head_dim,
        max_position_embeddings=_int(cfg, "max_position_embeddings"),
        moe=moe,
        mla=mla,
        layer_types=types,
        quantization=quant,
        sliding_window=_int(cfg, "sliding_window"),
        attention_sinks=str(cfg.get("model_type")) in _SINK_MODEL_TYPES,
    )
