"""The names index shipped beside the bundled registries, and the store answering from it."""

from __future__ import annotations

from pathlib import Path

from vllm_quant_mcp.knowledge.extract.version import extractor_version
from vllm_quant_mcp.knowledge.registry.across import tags_having
from vllm_quant_mcp.knowledge.registry.bundle import bundled_tags, read_bundled
from vllm_quant_mcp.knowledge.registry.names import bundled_names, names_of
from vllm_quant_mcp.knowledge.registry.store import Store


def test_the_index_holds_every_bundled_registrys_names_and_nothing_else() -> None:
    # scripts/bundle_registries.py writes it with the registries; a registry re-derived without it is caught here
    for tag in bundled_tags():
        registry = read_bundled(tag)
        assert registry is not None
        assert bundled_names(tag) == names_of(registry), tag
    assert bundled_names("v0.9.0") is None


def test_a_refreshed_registry_answers_for_its_tag_instead_of_the_bundled_index(tmp_path: Path) -> None:
    bundled = read_bundled("v0.32.0")
    assert bundled is not None
    invented = bundled.cli_flags[0].model_copy(update={"name": "--only-in-this-refresh", "aliases": []})
    store = Store(tmp_path)
    refreshed = {"cli_flags": [*bundled.cli_flags, invented], "extractor_version": extractor_version()}
    store.save_registry(bundled.model_copy(update=refreshed))  # as a refresh by these extractors writes it
    found = tags_having(store, [("cli_flags", "--only-in-this-refresh"), ("cli_flags", "--kv-cache-dtype")])
    assert found[("cli_flags", "--only-in-this-refresh")] == ["v0.32.0"]
    assert found[("cli_flags", "--kv-cache-dtype")] == store.known_tags()  # every release names it
