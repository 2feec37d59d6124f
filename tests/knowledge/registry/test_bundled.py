"""The bundled registries are what the current extractors derive from the real releases."""

from __future__ import annotations

import pytest
from support.releases import release_tree

from vllm_quant_mcp.knowledge.extract.version import extractor_version
from vllm_quant_mcp.knowledge.registry.bundle import bundled_tags, read_bundled
from vllm_quant_mcp.knowledge.registry.derive import derive_registry
from vllm_quant_mcp.knowledge.tags import tag_key

REGENERATE = "regenerate them with `python scripts/bundle_registries.py`"


def test_every_release_from_v0_14_0_to_v0_33_0_is_bundled() -> None:
    tags = bundled_tags()
    assert tags[0] == "v0.14.0" and tags[-1] == "v0.33.0"
    assert {"v0.15.0", "v0.15.1", "v0.27.1", "v0.32.0"} <= set(tags)  # wheel-only releases included
    assert tags == sorted(tags, key=tag_key)


def test_every_bundled_registry_was_derived_by_the_current_extractors() -> None:
    stale = [
        t for t in bundled_tags() if (r := read_bundled(t)) is not None and r.extractor_version != extractor_version()
    ]
    assert stale == [], f"bundled registries older than the extractors: {stale}; {REGENERATE}"


@pytest.mark.parametrize("version", ["0.14.0", "0.32.0"])
def test_bundled_registry_equals_a_fresh_derivation_from_the_release(version: str) -> None:
    bundled = read_bundled(f"v{version}")
    assert bundled is not None
    fresh = derive_registry(release_tree(version), bundled.source)
    assert fresh.model_dump(exclude={"source"}) == bundled.model_dump(exclude={"source"}), REGENERATE
