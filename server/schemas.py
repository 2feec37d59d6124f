"""Trim the JSON schemas a tools/list answer carries: every agent pays for them on every session.

Input schemas lose only the titles pydantic derives from field names and null
defaults, and simple unions are written as type lists; their descriptions are the
model's instructions and stay. Output schemas are cut to
their top level (each field's name and JSON type, enums kept; no `required` list,
which only repeats the names): the nested shapes of a pick_format or check_gates
result run to thousands of tokens that a client needs for nothing, while the top
level still checks the structured result.
"""

from __future__ import annotations

from typing import Any

__all__ = ["compact_input_schema", "shallow_output_schema"]

_NAME_MAPS = {"properties", "$defs", "definitions", "patternProperties"}


def _merge_simple_union(schema: dict[str, Any]) -> dict[str, Any]:
    """`anyOf: [{type: string}, {type: null}]` says the same as `type: [string, null]`, in half the tokens."""
    members = schema.get("anyOf")
    if isinstance(members, list) and members and all(isinstance(m, dict) and m.keys() == {"type"} for m in members):
        merged = {k: v for k, v in schema.items() if k != "anyOf"}
        merged["type"] = [m["type"] for m in members]
        return merged
    return schema


def compact_input_schema(schema: Any) -> Any:
    """The schema without derived `title`s and `default: null` (absent from `required` says it already)."""
    if isinstance(schema, list):
        return [compact_input_schema(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "title" and isinstance(value, str):
            continue
        if (key == "default" and value is None) or (key == "additionalProperties" and value is True):
            continue  # both say what JSON Schema assumes anyway
        if key in _NAME_MAPS and isinstance(value, dict):
            out[key] = {name: compact_input_schema(sub) for name, sub in value.items()}
        else:
            out[key] = compact_input_schema(value)
    return _merge_simple_union(out)


def _shape(schema: dict[str, Any]) -> dict[str, Any]:
    """One field's schema reduced to its JSON type(s); references and nested objects become plain objects."""
    if "$ref" in schema or "properties" in schema:
        return {"type": "object"}
    for union in ("anyOf", "oneOf"):
        if union in schema:
            return _merge_simple_union({"anyOf": [_shape(s) for s in schema[union]]})
    shaped: dict[str, Any] = {k: schema[k] for k in ("type", "enum", "const") if k in schema}
    if schema.get("type") == "array":
        items = schema.get("items")
        shaped["items"] = _shape(items) if isinstance(items, dict) else {}
    return shaped


def shallow_output_schema(schema: dict[str, Any] | None) -> dict[str, Any] | None:
    if not schema or "properties" not in schema:
        return schema
    return {"type": "object", "properties": {name: _shape(sub) for name, sub in schema["properties"].items()}}
