from __future__ import annotations

from vllm_quant_mcp.server.schemas import compact_schema


def test_compaction_drops_derived_titles_but_keeps_a_property_named_title() -> None:
    schema = {
        "title": "Model",
        "type": "object",
        "properties": {"title": {"title": "Title", "type": "string", "description": "the heading"}},
        "required": ["title"],
    }
    assert compact_schema(schema, keep_descriptions=True) == {
        "type": "object",
        "properties": {"title": {"type": "string", "description": "the heading"}},
        "required": ["title"],
    }
    assert compact_schema(schema, keep_descriptions=False)["properties"]["title"] == {"type": "string"}
