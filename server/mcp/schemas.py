"""Trim the JSON schemas a tools/list answer carries: every agent pays for them on every session.

Input schemas lose only the titles pydantic derives from field names and null
defaults, and an optional value is written as a type list (`type: [string, null]`,
its bounds kept beside it) instead of an anyOf; their descriptions are the model's
instructions and stay. Output schemas keep their top level (each field's name and
JSON type, enums kept; no `required` list, which only repeats the names), and a field
holding objects says which fields those objects have, one level further in brackets
(`name, provenance{path, line, permalink}, details`): that is what an agent reads to
find a permalink in a result, at a tenth of the tokens of the nested schemas, which
run to thousands for a pick_format or check_gates result.
"""

from __future__ import annotations

from typing import Any

__all__ = ["compact_input_schema", "described_output_schema"]

_NAME_MAPS = {"properties", "$defs", "definitions", "patternProperties"}
_SMALL = 2  # objects this small (a citation, a name and its provenance) are named field by field, as are
# those that lead to a source
_WHERE = {"permalink", "url"}


def _merge_simple_union(schema: dict[str, Any]) -> dict[str, Any]:
    """`anyOf: [{type: string, maxLength: 9}, {type: null}]` as `type: [string, null], maxLength: 9`.

    The same schema in JSON Schema's terms, since a bound applies only to values of its own type;
    an enum gains null. Unions of two real types merge only when neither has bounds.
    """
    members = schema.get("anyOf")
    if not (isinstance(members, list) and members and all(isinstance(m, dict) for m in members)):
        return schema
    rest = {k: v for k, v in schema.items() if k != "anyOf"}
    if all(m.keys() == {"type"} for m in members):
        return {**rest, "type": [m["type"] for m in members]}
    typed = [m for m in members if m != {"type": "null"}]
    if len(typed) != 1 or len(members) != 2 or not isinstance(typed[0].get("type"), str):
        return schema
    (only,) = typed
    if {"anyOf", "oneOf", "allOf", "$ref", "const"} & only.keys() or only.keys() & rest.keys():
        return schema
    merged = {**rest, **only, "type": [only["type"], "null"]}
    if "enum" in only:
        merged["enum"] = [*only["enum"], None]
    return merged


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
        if key == "$defs" and isinstance(value, dict):  # a definition is described by the field that uses it
            value = {name: {k: v for k, v in sub.items() if k != "description"} for name, sub in value.items()}
        if (key == "default" and value is None) or (key == "additionalProperties" and value is True):
            continue  # both say what JSON Schema assumes anyway
        if key in _NAME_MAPS and isinstance(value, dict):
            out[key] = {name: compact_input_schema(sub) for name, sub in value.items()}
        else:
            out[key] = compact_input_schema(value)
    return _merge_simple_union(out)


def _resolve(schema: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        target: dict[str, Any] = defs.get(ref.removeprefix("#/$defs/"), {})
        return target
    return schema


def _objects(schema: dict[str, Any], defs: dict[str, Any]) -> list[dict[str, Any]]:
    """The object schemas a field's values may be: itself, its items, or the members of its union."""
    schema = _resolve(schema, defs)
    if "properties" in schema:
        return [schema]
    if schema.get("type") == "array" and isinstance(schema.get("items"), dict):
        return _objects(schema["items"], defs)
    found: list[dict[str, Any]] = []
    for union in ("anyOf", "oneOf"):
        for member in schema.get(union, []):
            found += _objects(member, defs)
    return found


def _fields(schema: dict[str, Any], defs: dict[str, Any], depth: int) -> str:
    """`a, b{c, d}`: an object's field names, and (depth allowing) those of the objects worth naming in it."""
    names = []
    for name, sub in schema.get("properties", {}).items():
        inner = _objects(sub, defs)[:1] if depth > 1 else []
        shown = inner and (len(inner[0].get("properties", {})) <= _SMALL or _leads_to_source(inner[0], defs, 1))
        names.append(f"{name}{{{_fields(inner[0], defs, depth - 1)}}}" if shown else name)
    return ", ".join(names)


def _leads_to_source(schema: dict[str, Any], defs: dict[str, Any], depth: int) -> bool:
    fields = schema.get("properties", {})
    if _WHERE & fields.keys():
        return True
    return depth > 1 and any(_leads_to_source(o, defs, depth - 1) for f in fields.values() for o in _objects(f, defs))


def _shape(schema: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    """One field's schema reduced to its JSON type(s); objects worth it name their fields instead of nesting."""
    for union in ("anyOf", "oneOf"):
        if union in schema:
            return _merge_simple_union({"anyOf": [_shape(s, defs) for s in schema[union]]})
    target = _resolve(schema, defs)
    objects = _objects(target, defs)[:1]
    named = bool(objects) and _leads_to_source(objects[0], defs, 3)
    if "properties" in target:
        return {"type": "object"}
    shaped: dict[str, Any] = {k: target[k] for k in ("type", "enum", "const") if k in target}
    if target.get("type") == "array":
        items = target.get("items")
        if named:
            shaped["items"] = {"description": _fields(objects[0], defs, 2)}
        else:
            shaped["items"] = _shape(items, defs) if isinstance(items, dict) else {}
    return shaped


def described_output_schema(schema: dict[str, Any] | None) -> dict[str, Any] | None:
    if not schema or "properties" not in schema:
        return schema
    defs = schema.get("$defs", {})
    return {"type": "object", "properties": {name: _shape(sub, defs) for name, sub in schema["properties"].items()}}
