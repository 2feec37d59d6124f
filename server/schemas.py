"""Trim the JSON schemas a tools/list answer carries: every agent pays for them on every session.

Titles that pydantic derives from field names say nothing the name does not; output
schemas are for validating structured results, so their prose goes too. Input
descriptions stay: they are the model's instructions.
"""

from __future__ import annotations

from typing import Any

__all__ = ["compact_schema"]

_NAME_MAPS = {"properties", "$defs", "definitions", "patternProperties"}


def compact_schema(schema: Any, *, keep_descriptions: bool) -> Any:
    if isinstance(schema, list):
        return [compact_schema(item, keep_descriptions=keep_descriptions) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "title" and isinstance(value, str):
            continue
        if key == "description" and isinstance(value, str) and not keep_descriptions:
            continue
        if key in _NAME_MAPS and isinstance(value, dict):
            out[key] = {name: compact_schema(sub, keep_descriptions=keep_descriptions) for name, sub in value.items()}
        else:
            out[key] = compact_schema(value, keep_descriptions=keep_descriptions)
    return out
