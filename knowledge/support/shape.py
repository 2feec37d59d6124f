"""What vLLM's attention selection reads of a deployment: the model's attention shape and the flags that steer it.

The support matrix is derived for three shapes (dense head 128, MLA head 576, sparse MLA), a
bfloat16 model, no sinks and the default attention config. A verdict for a real deployment picks
the matrix's shape from the model (MLA when the config has kv_lora_rank, as vLLM's
`is_deepseek_mla` and `get_head_size` read it: kv_lora_rank + qk_rope_head_dim), then says where the
deployment leaves what the matrix assumed: another head size the selected backend does not list,
attention sinks, a float16 model, a forced backend, a block size or attention config. Without a
model it says what it assumed and why, in the judgement itself.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from vllm_quant_mcp.knowledge.hub.model_facts import ModelFacts
from vllm_quant_mcp.knowledge.registry.matrix import Mode

__all__ = ["DEFAULT_HEAD_SIZE", "SELECTION_FLAGS", "AttentionShape", "assumed_shape", "shape_of"]

# The head sizes the matrix was derived with (knowledge/extract/attention/select.py `_SHAPES`).
DEFAULT_HEAD_SIZE: dict[Mode, int] = {"dense": 128, "mla": 576, "sparse_mla": 576}
# `vllm serve` flags whose values reach the attention selector (AttentionSelectorConfig and the backend override).
SELECTION_FLAGS = ("--attention-backend", "--block-size", "--dtype", "--attention-config")
_DTYPES = {"bfloat16": "BF16", "float16": "FP16", "float32": "FP32"}
_DTYPE_FLAG = {"bfloat16": "bfloat16", "bf16": "bfloat16", "float16": "float16", "half": "float16", "fp16": "float16"}


class AttentionShape(BaseModel):
    """The model as the attention selector sees it, and the command's flags that change its choice."""

    model_config = ConfigDict(frozen=True)

    model: str = Field(description="Where the shape came from: a repo id, a folder, 'explicit figures', or 'assumed'.")
    read: bool = Field(description="False when no model config was read and the shape is the matrix's default.")
    why_assumed: str | None = Field(default=None, description="Why no model was read, when read is False.")
    mode: Mode
    head_size: int
    dtype: str = "bfloat16"
    sliding_window: int | None = None
    sinks: bool = False
    hybrid: bool = Field(default=False, description="Linear-attention (Mamba-like) layers beside attention.")
    moe: bool | None = Field(default=None, description="MoE layers; None when unknown (no model read).")
    flags: dict[str, str] = Field(default={}, description="Selection flags the command sets, as written.")

    def describe(self) -> str:
        """'DeepSeek-V3 (MLA, head size 576, BF16, MoE)' or 'assumed: dense decoder, head size 128, BF16 (why)'."""
        kind = {"dense": "dense decoder", "mla": "MLA", "sparse_mla": "sparse MLA"}[self.mode]
        parts = [kind, f"head size {self.head_size}", _DTYPES.get(self.dtype, self.dtype)]
        if self.sliding_window:
            parts.append(f"sliding window {self.sliding_window}")
        if self.sinks:
            parts.append("attention sinks")
        if self.hybrid:
            parts.append("linear-attention layers")
        if self.moe:
            parts.append("MoE")
        if not self.read:
            return f"assumed: {', '.join(parts)}" + (f" ({self.why_assumed})" if self.why_assumed else "")
        return f"{self.model} ({', '.join(parts)})"


def shape_of(facts: ModelFacts, flags: dict[str, str] | None = None) -> AttentionShape:
    """The shape of a model read from its config; `--dtype` on the command overrides the checkpoint's dtype."""
    mode: Mode = "dense" if facts.mla is None else ("sparse_mla" if facts.mla.sparse else "mla")
    given = dict(flags or {})
    dtype = _DTYPE_FLAG.get(given.get("--dtype", "").lower(), facts.dtype)
    return AttentionShape(
        model=facts.source,
        read=True,
        mode=mode,
        head_size=facts.mla.head_size if facts.mla else facts.head_dim,
        dtype=dtype,
        sliding_window=facts.sliding_window,
        sinks=facts.attention_sinks,
        hybrid=facts.hybrid,
        moe=facts.moe is not None,
        flags=given,
    )


def assumed_shape(why: str, flags: dict[str, str] | None = None) -> AttentionShape:
    """The matrix's own default (dense, head 128, BF16), saying why no model was read."""
    given = dict(flags or {})
    return AttentionShape(
        model="assumed",
        read=False,
        why_assumed=why,
        mode="dense",
        head_size=DEFAULT_HEAD_SIZE["dense"],
        dtype=_DTYPE_FLAG.get(given.get("--dtype", "").lower(), "bfloat16"),
        flags=given,
    )
