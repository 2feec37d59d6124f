from __future__ import annotations

from vllm_quant_mcp.server.schemas import compact_input_schema, shallow_output_schema


def test_input_compaction_drops_derived_titles_but_keeps_a_property_named_title() -> None:
    schema = {
        "title": "Model",
        "type": "object",
        "properties": {"title": {"title": "Title", "type": "string", "description": "the heading"}},
        "required": ["title"],
    }
    assert compact_input_schema(schema) == {
        "type": "object",
        "properties": {"title": {"type": "string", "description": "the heading"}},
        "required": ["title"],
    }


def test_output_schema_keeps_the_top_level_names_types_and_enums() -> None:
    schema = {
        "type": "object",
        "$defs": {"Hit": {"type": "object", "properties": {"line": {"type": "integer"}}}},
        "properties": {
            "tag": {"type": "string", "description": "release"},
            "hits": {"type": "array", "items": {"$ref": "#/$defs/Hit"}},
            "note": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
            "mode": {"enum": ["a", "b"], "type": "string"},
        },
        "required": ["tag", "hits"],
    }
    assert shallow_output_schema(schema) == {
        "type": "object",
        "properties": {
            "tag": {"type": "string"},
            "hits": {"type": "array", "items": {"type": "object"}},
            "note": {"type": ["string", "null"]},
            "mode": {"type": "string", "enum": ["a", "b"]},
        },
    }


def test_input_compaction_writes_an_optional_string_as_a_type_list_without_a_null_default() -> None:
    schema = {"properties": {"tag": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None}}}
    assert compact_input_schema(schema) == {"properties": {"tag": {"type": ["string", "null"]}}}
    bounded = {"anyOf": [{"type": "string", "maxLength": 3}, {"type": "null"}]}
    assert compact_input_schema(bounded) == bounded  # constraints inside a member keep the anyOf
