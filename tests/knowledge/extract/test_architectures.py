"""Golden tests: the architectures vLLM's model registry knows and refuses, on releases of every layout, oldest first.

Counts were read with Python's ast from each release's registry (the dicts `_VLLM_MODELS` spreads, their
inline `**{...}` included), lines with grep. 0.4.1 and 0.6.0 keep one `_MODELS` dict in models/__init__.py;
0.6.3 on, registry.py; 0.11 adds `_PREVIOUSLY_SUPPORTED_MODELS`, 0.19 `_OOT_SUPPORTED_MODELS`.
"""

from __future__ import annotations

from support.releases import release_tree

from vllm_quant_mcp.knowledge.extract.architectures import extract_architectures
from vllm_quant_mcp.knowledge.registry.model import Architectures, KnownArchitecture

REGISTRY = "vllm/model_executor/models/registry.py"


def _read(version: str) -> Architectures:
    result = extract_architectures(release_tree(version))
    assert result.warnings == []
    return result.entries


def _known(table: Architectures, name: str) -> KnownArchitecture:
    return next(e for e in table.known if e.name == name)


def test_0_4_1_reads_the_one_models_dict_of_models_init_and_says_it_has_no_transformers_fallback() -> None:
    result = extract_architectures(release_tree("0.4.1"))
    llama = _known(result.entries, "LlamaForCausalLM")
    assert len(result.entries.known) == 41 and result.entries.removed == []
    assert (llama.module, llama.class_name, llama.table) == ("llama", "LlamaForCausalLM", "models")
    assert (llama.provenance.path, llama.provenance.line) == ("vllm/model_executor/models/__init__.py", 33)
    assert result.note == "no Transformers-backend fallback in vllm/model_executor/models/__init__.py"


def test_0_14_0_the_oldest_bundled_release_knows_262_names_and_lists_10_removed() -> None:
    table = _read("0.14.0")
    assert (len(table.known), len(table.removed)) == (262, 10)
    llama = _known(table, "LlamaForCausalLM")
    assert (llama.table, llama.module, llama.provenance.path, llama.provenance.line) == (
        "text_generation",
        "llama",
        REGISTRY,
        142,
    )
    assert _known(table, "QWenLMHeadModel").provenance.line == 181
    smol = _known(table, "SmolLM3ForCausalLM")
    assert (smol.table, smol.module, smol.class_name) == (
        "transformers_supported",
        "transformers",
        "TransformersForCausalLM",
    )
    assert {e.name: e.last_version for e in table.removed}["Phi3SmallForCausalLM"] == "0.9.2"
    assert all(e.plugin is None for e in table.removed)


def test_a_name_spread_twice_keeps_its_first_line_when_both_map_it_to_the_same_class() -> None:
    """Qwen2ForCausalLM sits in _TEXT_GENERATION_MODELS (line 182) and again in _EMBEDDING_MODELS (227)."""
    qwen2 = _known(_read("0.14.0"), "Qwen2ForCausalLM")
    assert (qwen2.table, qwen2.provenance.line) == ("text_generation", 182)


def test_0_22_0_still_knows_qwen_lm_head_model_and_names_four_plugins() -> None:
    table = _read("0.22.0")
    assert len(table.known) == 361
    assert _known(table, "QWenLMHeadModel").provenance.line == 200
    plugins = {e.name: e.plugin for e in table.removed if e.plugin is not None}
    assert len(plugins) == 4 and plugins["BartModel"] == "https://github.com/vllm-project/bart-plugin"


def test_0_24_0_lists_qwen_lm_head_model_as_removed_after_0_23_0() -> None:
    table = _read("0.24.0")
    assert "QWenLMHeadModel" not in {e.name for e in table.known}
    removed = next(e for e in table.removed if e.name == "QWenLMHeadModel")
    assert (removed.last_version, removed.provenance.path, removed.provenance.line) == ("0.23.0", REGISTRY, 722)


def test_0_33_0_the_newest_knows_415_names_50_removed_5_plugins_and_the_lines_that_decide_the_rest() -> None:
    table = _read("0.33.0")
    removed = [e for e in table.removed if e.last_version is not None]
    assert (len(table.known), len(removed), len(table.removed) - len(removed)) == (415, 50, 5)
    assert _known(table, "LlamaForCausalLM").provenance.line == 155
    res = table.resolution
    lines = [p.line if p else None for p in (res.fallback, res.transformers, res.normalize)]
    assert lines == [1390, 1266, 1341]
    assert res.removed_message is not None and res.removed_message.startswith(
        "Model architecture {arch} was supported in vLLM until v{previous_version}, and is not supported anymore."
    )
    assert res.removed_provenance is not None and res.removed_provenance.line == 1235
    assert res.unsupported_message == (
        "Model architectures {architectures} are not supported for now. Supported architectures: {all_supported_archs}"
    )
    assert res.unsupported_provenance is not None and res.unsupported_provenance.line == 1250
