from __future__ import annotations

from typing import Any

import jsonschema
import pytest

from vllm_quant_mcp.server.mcp.schemas import compact_input_schema, described_output_schema


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
    assert described_output_schema(schema) == {
        "type": "object",
        "properties": {
            "tag": {"type": "string"},
            "hits": {"type": "array", "items": {"type": "object"}},
            "note": {"type": ["string", "null"]},
            "mode": {"type": "string", "enum": ["a", "b"]},
        },
    }


def test_output_rows_that_lead_to_a_source_name_their_fields_and_the_small_objects_in_them() -> None:
    place = {"type": "object", "properties": {k: {"type": "string"} for k in ("path", "line", "permalink")}}
    entry = {"type": "object", "properties": {"name": {"type": "string"}, "provenance": {"$ref": "#/$defs/Place"}}}
    schema = {
        "type": "object",
        "$defs": {"Place": place, "Entry": entry},
        "properties": {
            "entries": {"type": "array", "items": {"$ref": "#/$defs/Entry"}},
            "first": {"anyOf": [{"$ref": "#/$defs/Entry"}, {"type": "null"}]},
        },
    }
    assert described_output_schema(schema) == {
        "type": "object",
        "properties": {
            "entries": {"type": "array", "items": {"description": "name, provenance{path, line, permalink}"}},
            "first": {"type": ["object", "null"]},
        },
    }


def test_input_compaction_writes_an_optional_string_as_a_type_list_without_a_null_default() -> None:
    schema = {"properties": {"tag": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None}}}
    assert compact_input_schema(schema) == {"properties": {"tag": {"type": ["string", "null"]}}}
    referenced = {"anyOf": [{"$ref": "#/$defs/Figures"}, {"type": "null"}]}
    assert compact_input_schema(referenced) == referenced  # a reference cannot carry a type list


@pytest.mark.parametrize(
    "member",
    [
        {"type": "integer", "minimum": 1},
        {"type": "string", "maxLength": 3},
        {"type": "string", "enum": ["open", "closed"]},
        {"type": "array", "items": {"type": "string"}},
        {"type": "object", "additionalProperties": {"type": "string"}},
    ],
)
def test_a_merged_optional_accepts_exactly_what_the_anyof_accepted(member: dict[str, Any]) -> None:
    original = {"anyOf": [member, {"type": "null"}]}
    merged = compact_input_schema(original)
    assert "anyOf" not in merged
    for value in (None, 0, 1, 5, "", "ab", "abcd", "open", "shut", [], ["a"], [1], {}, {"a": "b"}, {"a": 1}, True):
        assert jsonschema.Draft202012Validator(merged).is_valid(value) == jsonschema.Draft202012Validator(
            original
        ).is_valid(value), value


def test_input_compaction_writes_a_bounded_optional_value_as_a_type_list_with_its_bounds() -> None:
    schema = {
        "properties": {
            "limit": {"anyOf": [{"type": "integer", "minimum": 1}, {"type": "null"}], "description": "per page"},
            "state": {"anyOf": [{"type": "string", "enum": ["open", "closed"]}, {"type": "null"}]},
        }
    }
    assert compact_input_schema(schema) == {
        "properties": {
            "limit": {"type": ["integer", "null"], "minimum": 1, "description": "per page"},
            "state": {"type": ["string", "null"], "enum": ["open", "closed", None]},
        }
    }
