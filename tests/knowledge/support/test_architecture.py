"""The architecture judgement on the bundled registries: what `vllm serve` at a tag does with a config's architectures.

Each expected line was read in that release's vllm/model_executor/models/registry.py.
"""

from __future__ import annotations

from vllm_quant_mcp.knowledge.registry.bundle import read_bundled
from vllm_quant_mcp.knowledge.registry.model import Registry
from vllm_quant_mcp.knowledge.support.architecture import architecture_judgement

REGISTRY = "vllm/model_executor/models/registry.py"


def _registry(tag: str) -> Registry:
    found = read_bundled(tag)
    assert found is not None
    return found


def test_a_listed_name_is_yes_with_its_class_and_registry_line() -> None:
    judged = architecture_judgement(_registry("v0.33.0"), ["LlamaForCausalLM"])
    assert (judged.verdict, judged.basis, judged.via) == ("yes", "source", "llama.LlamaForCausalLM")
    assert [(e.path, e.line) for e in judged.evidence] == [(REGISTRY, 155)]


def test_a_name_the_registry_maps_to_the_transformers_backend_says_so() -> None:
    judged = architecture_judgement(_registry("v0.14.0"), ["SmolLM3ForCausalLM"], "vllm")
    assert judged.verdict == "yes" and judged.via == "transformers.TransformersForCausalLM"
    assert "the Transformers backend" in judged.why


def test_qwen_lm_head_model_loads_at_v0_22_0_and_is_refused_at_v0_24_0_in_vllms_words() -> None:
    assert architecture_judgement(_registry("v0.22.0"), ["QWenLMHeadModel"]).verdict == "yes"
    judged = architecture_judgement(_registry("v0.24.0"), ["QWenLMHeadModel"])
    assert judged.verdict == "no"
    assert "vLLM: 'Model architecture QWenLMHeadModel was supported in vLLM until v0.23.0, and is not supported" in (
        judged.why
    )
    assert "serve it with vLLM v0.23.0" in judged.why
    assert (REGISTRY, 722) in [(e.path, e.line) for e in judged.evidence]
    assert judged.assumptions and "Transformers backend" in judged.assumptions[0]


def test_an_unknown_name_under_model_impl_auto_is_conditional_on_the_transformers_fallback_with_nearest_names() -> None:
    judged = architecture_judgement(_registry("v0.33.0"), ["LlamaForCasualLM"])
    assert (judged.verdict, judged.via) == ("conditional", "Transformers backend")
    assert "Nearest names vLLM knows at v0.33.0: Llama4ForCausalLM, LlamaForCausalLM" in judged.why
    assert [e.line for e in judged.evidence] == [1390, 1266, 1250]  # the fallback, its class check, the refusal


def test_the_same_name_under_model_impl_vllm_is_refused_with_vllms_message() -> None:
    judged = architecture_judgement(_registry("v0.33.0"), ["LlamaForCasualLM"], "vllm")
    assert judged.verdict == "no"
    assert "vLLM: \"Model architectures ['LlamaForCasualLM'] are not supported for now." in judged.why
    assert [e.line for e in judged.evidence] == [1250]


def test_a_name_moved_to_a_plugin_names_the_plugin() -> None:
    judged = architecture_judgement(_registry("v0.33.0"), ["BartModel"])
    assert judged.verdict == "no" and "https://github.com/vllm-project/bart-plugin" in judged.why


def test_a_task_suffix_of_a_known_model_is_conditional_on_the_conversion() -> None:
    judged = architecture_judgement(_registry("v0.33.0"), ["Qwen3ForSequenceClassification"], "vllm")
    assert (judged.verdict, judged.via) == ("conditional", "Qwen3ForCausalLM")
    assert [e.line for e in judged.evidence] == [1341]


def test_a_config_without_architectures_says_it_was_not_checked() -> None:
    judged = architecture_judgement(_registry("v0.33.0"), [])
    assert judged.verdict == "conditional" and "names no `architectures`" in judged.why
    assert judged.assumptions
