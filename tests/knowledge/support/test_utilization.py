"""The share of GPU memory the memory figures count, read from the bundled registries of real releases.

Expected values were read from the release files: CacheConfig.gpu_memory_utilization in vllm/config/cache.py
is `Field(default=0.9, ...)` at line 41 of 0.19.1 and `Field(default=0.92, ...)` at line 66 of 0.20.0 and
line 215 of 0.33.0.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from vllm_quant_mcp.knowledge.registry.model import Registry
from vllm_quant_mcp.knowledge.support.utilization import FLAG, utilization_at


@pytest.mark.parametrize(
    ("tag", "value", "line"),
    [("v0.19.1", 0.9, 41), ("v0.20.0", 0.92, 66), ("v0.33.0", 0.92, 215)],
)
def test_the_share_is_the_tags_own_default_with_its_line(
    registries_at: Callable[..., dict[str, Registry]], tag: str, value: float, line: int
) -> None:
    share = utilization_at(registries_at(tag)[tag])
    assert (share.value, share.basis, share.why_assumed) == (value, "source", None)
    assert share.provenance is not None
    assert (share.provenance.path, share.provenance.line) == ("vllm/config/cache.py", line)
    assert share.phrase() == f"{value:g} (the {FLAG} default at {tag}, vllm/config/cache.py:{line})"


def _without_default(registry: Registry, **fields: object) -> Registry:
    """The registry as one derived before defaults were read (or with a computed default) would hold it."""
    flags = [
        f.model_copy(update={"default": None, "default_provenance": None, **fields}) if f.name == FLAG else f
        for f in registry.cli_flags
    ]
    return registry.model_copy(update={"cli_flags": flags})


def test_a_registry_that_states_no_default_gives_0_9_labelled_assumed(
    registries_at: Callable[..., dict[str, Registry]],
) -> None:
    share = utilization_at(_without_default(registries_at("v0.33.0")["v0.33.0"]))
    assert (share.value, share.basis, share.provenance) == (0.9, "assumed", None)
    assert share.phrase() == f"0.9 (assumed: the registry of v0.33.0 states no default for {FLAG})"


def test_a_computed_default_is_said_to_be_no_literal_and_not_used(
    registries_at: Callable[..., dict[str, Registry]],
) -> None:
    registry = registries_at("v0.33.0")["v0.33.0"]
    where = next(f.provenance for f in registry.cli_flags if f.name == FLAG)
    computed = _without_default(registry, default_provenance=where, default_expression="envs.VLLM_GPU_SHARE")
    share = utilization_at(computed)
    assert (share.value, share.basis) == (0.9, "assumed")
    assert share.why_assumed == f"the default of {FLAG} at v0.33.0 is not a literal: envs.VLLM_GPU_SHARE"
