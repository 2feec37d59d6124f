"""Threats to pick_format's cost through the model's figures: each is bounded where it enters, naming the bound.

Every list and sum of the estimate grows with the layer count, so 30,000,000 layers held a server
for 23 s and echoed a per-layer list of hundreds of megabytes; 1e300 billion parameters and
Infinity ended in internal errors. A config.json on the hub is anyone's, so it is bounded too.
"""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from vllm_quant_mcp.knowledge.errors import InvalidInputError
from vllm_quant_mcp.knowledge.hub.client import ModelFiles, is_repo_id
from vllm_quant_mcp.knowledge.hub.model_facts import MAX_LAYERS, MAX_PARAMS_B, ExplicitModel, facts_from_files

FIGURES: dict[str, Any] = {"params_b": 70, "layers": 80, "kv_heads": 8, "head_dim": 128}


@pytest.mark.parametrize("layers", [MAX_LAYERS + 1, 30_000_000, 10**8])
def test_a_layer_count_past_any_real_model_cannot_be_given(layers: int) -> None:
    with pytest.raises(ValidationError, match=f"less than or equal to {MAX_LAYERS}"):
        ExplicitModel.model_validate({**FIGURES, "layers": layers})


@pytest.mark.parametrize("params_b", [1e300, float("inf"), float("nan"), "Infinity"])
def test_a_parameter_count_that_is_not_a_finite_real_size_cannot_be_given(params_b: object) -> None:
    with pytest.raises(ValidationError, match=f"finite number|less than or equal to {MAX_PARAMS_B:g}"):
        ExplicitModel.model_validate({**FIGURES, "params_b": params_b})


def test_the_per_layer_list_of_the_largest_allowed_model_stays_one_entry_per_real_layer() -> None:
    facts = ExplicitModel.model_validate({**FIGURES, "layers": MAX_LAYERS}).to_facts()
    assert len(facts.layer_types) == MAX_LAYERS


def test_a_hub_config_with_millions_of_layers_cannot_reach_the_estimate() -> None:
    config = {"hidden_size": 4096, "num_hidden_layers": 30_000_000, "num_attention_heads": 32}
    with pytest.raises(InvalidInputError, match=f"30000000 layers; at most {MAX_LAYERS}"):
        facts_from_files(ModelFiles(ref="org/huge", origin="hub", config=config))


def test_a_model_id_with_a_trailing_newline_cannot_pass_as_a_repo_id() -> None:
    assert is_repo_id("org/name") and not is_repo_id("org/name\n")
