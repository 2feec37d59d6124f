"""Trim the JSON schemas a tools/list answer carries: every agent pays for them on every session.

Input schemas lose only the titles pydantic derives from field names; their
descriptions are the model's instructions and stay. Output schemas are cut to
their top level (each field's JSON type, enums kept): the nested shapes of a
pick_format or check_gates result run to thousands of tokens that a client needs
for nothing, while the top level still validates the structured result.
"""

from __future__ import annotations

from typing import Any

__all__ = ["compact_input_schema", "shallow_output_schema"]

_NAME_MAPS = {"properties", "$defs", "definitions", "patternProperties"}


def compact_input_schema(schema: Any) -> Any:
    """The schema without derived `title`s (a property that is itself named "title" stays)."""
    if isinstance(schema, list):
        return [compact_input_schema(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "title" and isinstance(value, str):
            continue
        if key in _NAME_MAPS and isinstance(value, dict):
            out[key] = {name: compact_input_schema(sub) for name, sub in value.items()}
        else:
            out[key] = compact_input_schema(value)
    return out


def _shape(schema: dict[str, Any]) -> dict[str, Any]:
    """One field's schema reduced to its JSON type(s); references and nested objects become plain objects."""
    if "$ref" in schema or "properties" in schema:
        return {"type": "object"}
    for union in ("anyOf", "oneOf"):
        if union in schema:
            return {"anyOf": [_shape(s) for s in schema[union]]}
    shaped: dict[str, Any] = {k: schema[k] for k in ("type", "enum", "const") if k in schema}
    if schema.get("type") == "array":
        items = schema.get("items")
        shaped["items"] = _shape(items) if isinstance(items, dict) else {}
    return shaped


def shallow_output_schema(schema: dict[str, Any] | None) -> dict[str, Any] | None:
    if not schema or "properties" not in schema:
        return schema
    shallow: dict[str, Any] = {
        "type": "object",
        "properties": {name: _shape(sub) for name, sub in schema["properties"].items()},
    }
    if "required" in schema:
        shallow["required"] = schema["required"]
    return shallow
