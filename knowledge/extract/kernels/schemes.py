"""The linear-layer schemes a kernel walk is made for, each as the layer config vLLM builds for it.

A scheme names the `_POSSIBLE_*` list its layers are selected from and the config's fields as the
quantization method fills them (weight and activation dtypes and scales, group size, act-order,
zero points), for one layer shape: 4096 x 4096, tensor parallel 1, bfloat16 activations. Which
method builds which config is read from the methods' source by hand (cited per scheme); the
kernels' answers to it are read by the interpreter.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from vllm_quant_mcp.knowledge.extract.kernels.constants import Constants, Dtype, scalar_type

__all__ = ["SCHEMES", "SHAPE", "Scheme"]

SHAPE = (4096, 4096)
MP_LIST = "_POSSIBLE_KERNELS"  # mixed precision: selected by get_min_capability() and can_implement(config)


@dataclass(frozen=True)
class Scheme:
    name: str
    words: str
    lists: tuple[str, ...]  # the first list present at the tag is the one its layers are selected from
    weight_only: bool
    config: Callable[[Constants], dict[str, Any] | None]  # None: a constant it needs is not at this tag


def _keys(weight: str, activation: str) -> Callable[[Constants], dict[str, Any] | None]:
    def build(constants: Constants) -> dict[str, Any] | None:
        if weight not in constants.keys or activation not in constants.keys:
            return None
        return {
            "weight_quant_key": constants.keys[weight],
            "activation_quant_key": constants.keys[activation],
            "weight_shape": SHAPE,
            "input_dtype": Dtype("bfloat16"),
            "out_dtype": Dtype("bfloat16"),
        }

    return build


def _wna16(weight_type: str, zero_points: bool, act_order: bool) -> Callable[[Constants], dict[str, Any]]:
    def build(constants: Constants) -> dict[str, Any]:
        return {
            "full_weight_shape": SHAPE,
            "partition_weight_shape": SHAPE,
            "weight_type": scalar_type(weight_type),
            "act_type": Dtype("bfloat16"),
            "group_size": 128,
            "zero_points": zero_points,
            "has_g_idx": act_order,
            "out_type": Dtype("bfloat16"),
        }

    return build


def _int8(constants: Constants) -> dict[str, Any]:
    return {
        "is_channelwise": True,
        "is_static_input_scheme": False,
        "input_symmetric": True,
        "is_fused_module": False,
        "input_dtype": Dtype("bfloat16"),
        "out_dtype": Dtype("bfloat16"),
    }


def _fp4(constants: Constants) -> dict[str, Any]:
    return {"weight_shape": SHAPE, "activation_quant_key": None, "bmm_batch_size": None}


SCHEMES: tuple[Scheme, ...] = (
    Scheme(
        "fp8-tensor",
        "FP8 e4m3 weights with a per-tensor scale, activations quantized per tensor at run time "
        "(--quantization fp8 on a BF16 checkpoint; FP8 checkpoints with per-tensor scales)",
        ("_POSSIBLE_FP8_KERNELS",),
        False,
        _keys("kFp8StaticTensorSym", "kFp8DynamicTensorSym"),
    ),
    Scheme(
        "fp8-channel",
        "FP8 e4m3 weights per output channel, activations per token at run time (FP8-Dynamic checkpoints)",
        ("_POSSIBLE_FP8_KERNELS",),
        False,
        _keys("kFp8StaticChannelSym", "kFp8DynamicTokenSym"),
    ),
    Scheme(
        "fp8-block",
        "FP8 e4m3 weights in 128 x 128 blocks, activations per 1 x 128 group (DeepSeek-style block FP8)",
        ("_POSSIBLE_FP8_BLOCK_KERNELS",),
        False,
        _keys("kFp8Static128BlockSym", "kFp8Dynamic128Sym"),
    ),
    Scheme(
        "int8-w8a8",
        "INT8 weights per channel, activations per token at run time, symmetric",
        ("_POSSIBLE_INT8_KERNELS",),
        False,
        _int8,
    ),
    Scheme(
        "gptq-w4a16",
        "4-bit symmetric GPTQ weights (uint4b8), group size 128, no act-order; activations BF16",
        (MP_LIST,),
        True,
        _wna16("uint4b8", zero_points=False, act_order=False),
    ),
    Scheme(
        "gptq-w4a16-act-order",
        "4-bit symmetric GPTQ weights (uint4b8), group size 128, with act-order (desc_act); activations BF16",
        (MP_LIST,),
        True,
        _wna16("uint4b8", zero_points=False, act_order=True),
    ),
    Scheme(
        "awq-w4a16",
        "4-bit AWQ weights (uint4) with zero points, group size 128; activations BF16",
        (MP_LIST,),
        True,
        _wna16("uint4", zero_points=True, act_order=False),
    ),
    Scheme(
        "nvfp4",
        "NVFP4 weights and activations (FP4 e2m1, FP8 scales per 16)",
        ("_POSSIBLE_NVFP4_KERNELS",),
        False,
        _fp4,
    ),
    Scheme("mxfp4", "MXFP4 weights (FP4 e2m1, E8M0 scales per 32)", ("_POSSIBLE_MXFP4_KERNELS",), False, _fp4),
    Scheme(
        "mxfp8",
        "MXFP8 weights and activations (FP8 e4m3, E8M0 scales per 32)",
        ("_POSSIBLE_MXFP8_KERNELS",),
        False,
        _fp4,
    ),
)
