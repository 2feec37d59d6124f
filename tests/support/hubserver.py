"""A Hugging Face hub look-alike on 127.0.0.1, in a thread, serving model configs written for the tests.

It speaks the two paths the hub client uses: `/{org}/{name}/resolve/main/{file}` (HEAD and
GET, with the headers huggingface_hub reads: X-Repo-Commit, ETag, and X-Error-Code on
errors, as the hub sends them) and `/api/models/{org}/{name}`. Repos listed in `gated`
answer 401 (X-Error-Code: GatedRepo) unless the request carries `Authorization: Bearer
<token>`; `/api/whoami-v2` knows the tokens in `gated`, so `hf auth login --token` can check one
against it. `requests` (method and path, HEADs marked) and `auth_headers` record what arrived.

The configs are small JSON shapes written from the public descriptions of each
architecture (layer counts, head counts, expert counts), not copies of the files.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from support.loopback import LoopbackServer, QuietHandler

__all__ = ["MODELS", "HubServer", "llama_70b_config"]


def llama_70b_config() -> dict[str, Any]:
    return {
        "architectures": ["LlamaForCausalLM"],
        "model_type": "llama",
        "hidden_size": 8192,
        "intermediate_size": 28672,
        "num_hidden_layers": 80,
        "num_attention_heads": 64,
        "num_key_value_heads": 8,
        "max_position_embeddings": 131072,
        "vocab_size": 128256,
        "tie_word_embeddings": False,
        "rms_norm_eps": 1e-05,
        "rope_theta": 500000.0,
        "torch_dtype": "bfloat16",
    }


LLAMA_70B_PARAMS = 70_553_706_496

_QWEN3_NEXT_LAYERS = 48

MODELS: dict[str, dict[str, Any]] = {
    "meta-llama/Llama-3.1-70B-Instruct": {
        "config.json": llama_70b_config(),
        "model.safetensors.index.json": {"metadata": {"total_size": 2 * LLAMA_70B_PARAMS}, "weight_map": {}},
        "api": {
            "id": "meta-llama/Llama-3.1-70B-Instruct",
            "safetensors": {"parameters": {"BF16": LLAMA_70B_PARAMS}, "total": LLAMA_70B_PARAMS},
        },
    },
    "Qwen/Qwen3-30B-A3B": {
        "config.json": {
            "architectures": ["Qwen3MoeForCausalLM"],
            "model_type": "qwen3_moe",
            "hidden_size": 2048,
            "intermediate_size": 6144,
            "moe_intermediate_size": 768,
            "num_hidden_layers": 48,
            "num_attention_heads": 32,
            "num_key_value_heads": 4,
            "head_dim": 128,
            "num_experts": 128,
            "num_experts_per_tok": 8,
            "decoder_sparse_step": 1,
            "max_position_embeddings": 40960,
            "vocab_size": 151936,
            "tie_word_embeddings": False,
            "torch_dtype": "bfloat16",
        },
        "api": {"id": "Qwen/Qwen3-30B-A3B"},
    },
    "deepseek-ai/DeepSeek-V3": {
        "config.json": {
            "architectures": ["DeepseekV3ForCausalLM"],
            "model_type": "deepseek_v3",
            "hidden_size": 7168,
            "intermediate_size": 18432,
            "moe_intermediate_size": 2048,
            "num_hidden_layers": 61,
            "num_attention_heads": 128,
            "num_key_value_heads": 128,
            "q_lora_rank": 1536,
            "kv_lora_rank": 512,
            "qk_rope_head_dim": 64,
            "qk_nope_head_dim": 128,
            "v_head_dim": 128,
            "n_routed_experts": 256,
            "n_shared_experts": 1,
            "num_experts_per_tok": 8,
            "first_k_dense_replace": 3,
            "max_position_embeddings": 163840,
            "vocab_size": 129280,
            "tie_word_embeddings": False,
            "torch_dtype": "bfloat16",
            "quantization_config": {
                "quant_method": "fp8",
                "fmt": "e4m3",
                "activation_scheme": "dynamic",
                "weight_block_size": [128, 128],
            },
        },
    },
    "Qwen/Qwen3-Next-80B-A3B-Instruct": {
        "config.json": {
            "architectures": ["Qwen3NextForCausalLM"],
            "model_type": "qwen3_next",
            "hidden_size": 2048,
            "intermediate_size": 5120,
            "moe_intermediate_size": 512,
            "shared_expert_intermediate_size": 512,
            "num_hidden_layers": _QWEN3_NEXT_LAYERS,
            "num_attention_heads": 16,
            "num_key_value_heads": 2,
            "head_dim": 256,
            "num_experts": 512,
            "num_experts_per_tok": 10,
            "full_attention_interval": 4,
            "layer_types": [
                "full_attention" if (i + 1) % 4 == 0 else "linear_attention" for i in range(_QWEN3_NEXT_LAYERS)
            ],
            "linear_num_key_heads": 16,
            "linear_num_value_heads": 32,
            "linear_key_head_dim": 128,
            "linear_value_head_dim": 128,
            "linear_conv_kernel_dim": 4,
            "max_position_embeddings": 262144,
            "vocab_size": 151936,
            "tie_word_embeddings": False,
            "torch_dtype": "bfloat16",
        },
    },
    "nvidia/Llama-3.3-70B-Instruct-FP4": {
        "config.json": {
            **llama_70b_config(),
            "quantization_config": {
                "quant_method": "modelopt",
                "quant_algo": "NVFP4",
                "kv_cache_quant_algo": "FP8",
                "group_size": 16,
                "exclude_modules": ["lm_head"],
            },
        },
        "model.safetensors.index.json": {"metadata": {"total_size": 42_682_353_664}, "weight_map": {}},
    },
    "hugging-quants/Meta-Llama-3.1-8B-Instruct-AWQ-INT4": {
        "config.json": {
            "architectures": ["LlamaForCausalLM"],
            "model_type": "llama",
            "hidden_size": 4096,
            "intermediate_size": 14336,
            "num_hidden_layers": 32,
            "num_attention_heads": 32,
            "num_key_value_heads": 8,
            "max_position_embeddings": 131072,
            "vocab_size": 128256,
            "tie_word_embeddings": False,
            "torch_dtype": "float16",
            "quantization_config": {
                "quant_method": "awq",
                "bits": 4,
                "group_size": 128,
                "zero_point": True,
                "version": "gemm",
            },
        },
        "model.safetensors.index.json": {"metadata": {"total_size": 5_727_938_560}, "weight_map": {}},
    },
    "openai/gpt-oss-120b": {
        "config.json": {
            "architectures": ["GptOssForCausalLM"],
            "model_type": "gpt_oss",
            "hidden_size": 2880,
            "intermediate_size": 2880,
            "num_hidden_layers": 36,
            "num_attention_heads": 64,
            "num_key_value_heads": 8,
            "head_dim": 64,
            "num_local_experts": 128,
            "num_experts_per_tok": 4,
            "layer_types": ["sliding_attention" if i % 2 == 0 else "full_attention" for i in range(36)],
            "sliding_window": 128,
            "max_position_embeddings": 131072,
            "vocab_size": 201088,
            "tie_word_embeddings": False,
            "torch_dtype": "bfloat16",
            "quantization_config": {"quant_method": "mxfp4", "modules_to_not_convert": ["model.layers.*.self_attn"]},
        },
    },
}


class HubServer(LoopbackServer):
    def __init__(self, models: dict[str, dict[str, Any]] | None = None) -> None:
        self.models = MODELS if models is None else models
        self.gated: dict[str, str] = {}
        self.stalled: set[str] = set()  # repos whose requests are held until `release` is set
        self.requests: list[str] = []
        self.auth_headers: list[str | None] = []
        super().__init__()

    @property
    def endpoint(self) -> str:
        """The value for HF_ENDPOINT (or HubClient's `endpoint`), the hub's own name for the base URL."""
        return self.base_url

    def lookup(self, path: str, auth: str | None) -> tuple[int, Any, dict[str, str]]:
        """Status, JSON body and the hub's headers for a path."""
        parts = path.split("?", 1)[0].strip("/").split("/")
        if parts == ["api", "whoami-v2"]:
            if auth is None or auth.removeprefix("Bearer ") not in self.gated.values():
                return 401, {"error": "Invalid credentials in Authorization header"}, {}
            return (
                200,
                {"type": "user", "name": "tester", "auth": {"accessToken": {"displayName": "tests", "role": "read"}}},
                {},
            )
        if len(parts) == 4 and parts[:2] == ["api", "models"]:
            repo, name = f"{parts[2]}/{parts[3]}", "api"
        elif len(parts) == 5 and parts[2:4] == ["resolve", "main"]:
            repo, name = f"{parts[0]}/{parts[1]}", parts[4]
        else:
            return 404, {"error": "Not Found"}, {}
        commit = hashlib.sha1(repo.encode()).hexdigest()
        if repo in self.gated and auth != f"Bearer {self.gated[repo]}":
            return 401, {"error": "Access to this model is restricted."}, {"X-Error-Code": "GatedRepo"}
        files = self.models.get(repo)
        if files is None:
            return 401, {"error": "Repository not found"}, {"X-Error-Code": "RepoNotFound"}
        if name not in files:
            return 404, {"error": "Entry not found"}, {"X-Error-Code": "EntryNotFound", "X-Repo-Commit": commit}
        body = json.dumps(files[name]).encode("utf-8")
        return 200, files[name], {"X-Repo-Commit": commit, "ETag": f'"{hashlib.sha1(body).hexdigest()}"'}

    def _handler(self) -> type[QuietHandler]:
        server = self

        class Handler(QuietHandler):
            def _answer(self, head: bool) -> None:
                auth = self.headers.get("Authorization")
                server.requests.append(f"HEAD {self.path}" if head else self.path)
                server.auth_headers.append(auth)
                if any(f"/{repo}/" in self.path for repo in server.stalled):
                    server.release.wait(30)
                status, body, headers = server.lookup(self.path, auth)
                data = json.dumps(body).encode("utf-8")
                headers = {"Content-Type": "application/json", **headers}
                if head:
                    self.begin_reply(status, headers, len(data))
                else:
                    self.reply(status, data, headers)

            def do_GET(self) -> None:
                self._answer(head=False)

            def do_HEAD(self) -> None:
                self._answer(head=True)

        return Handler
