"""JSON Schema of trail files, both formats, built from the loader's own grammar tables.

The key lists (``ROOT_KEYS``, ``STEP_KEYS``, the config keys, arg types), the tool-name rule,
the classifier rule and the built-in tools' argument schemas are the ones the loader and the
static checks use, so the schema cannot drift from what a run accepts. What YAML gives the
loader as text is read the same way here: a scalar bound to a string (step text, a string
argument) may be written as a number or a boolean, because its source text is what counts.
Arguments may hold ``{{tokens}}`` wherever a value goes (they are resolved when the tool runs).
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Mapping
from typing import TypeVar

from ..core.jsondata import JsonObject, JsonValue
from ..core.tooling.registry import ANNOTATION_ARGS
from ..core.trail.devices import DRIVER_TYPES, PLATFORMS, SEGMENT_PLATFORMS
from ..core.trail.naming import RESERVED_NAMES, WIRE_RE
from ..core.trail.parse import ROOT_KEYS, STEP_KEYS, TRAILHEAD_KEYS
from ..core.trail.trailconfig import (
    _ARG_KEYS,
    _ARG_NAME,
    _SOURCE_BRIDGE,
    _TEXT_KEYS,
    ARG_TYPES,
    UNIFIED_CONFIG_KEYS,
    V1_CONFIG_KEYS,
)
from ..core.trail.v1format import V1_ITEM_KEYS, V1_STEP_KEYS

REF = "#/$defs/"
SCALAR: JsonObject = {"type": ["string", "number", "boolean"]}
TEXT: JsonObject = {"anyOf": [{"type": "string", "pattern": r"\S"}, {"type": ["number", "boolean"]}]}
NULLABLE_TEXT: JsonObject = {"type": ["string", "number", "boolean", "null"]}
TOKEN: JsonObject = {
    "type": "string",
    "pattern": r"\{\{[^}]*\}\}|\$\{[^}]*\}",
    "description": "a memory or args token",
}


def classifier_pattern() -> str:
    """A classifier key: lowercase words joined by ``-``, the first a platform or a device type."""
    firsts = "|".join((*PLATFORMS, *SEGMENT_PLATFORMS))
    return rf"^({firsts})(-[a-z0-9]+)*$"


def _ref(name: str) -> JsonObject:
    return {"$ref": REF + name}


def _object(properties: Mapping[str, JsonValue], **extra: JsonValue) -> JsonObject:
    return {"type": "object", "properties": dict(properties), "additionalProperties": False, **extra}


def _by_classifier(value: JsonObject) -> JsonObject:
    return {
        "type": "object",
        "propertyNames": {"pattern": classifier_pattern()},
        "additionalProperties": value,
    }


def _step_or_verify() -> list[JsonValue]:
    """Exactly one of ``step:`` / ``verify:``; ``recordable: false`` forbids a filled recording."""
    return [
        {"oneOf": [{"required": ["step"]}, {"required": ["verify"]}]},
        {
            "if": {"required": ["recordable"], "properties": {"recordable": {"const": False}}},
            "then": {"not": {"required": ["recording"], "properties": {"recording": _has_calls()}}},
        },
    ]


def _has_calls() -> JsonObject:
    """A recording with at least one non-empty tool list (unified: per classifier; v1: ``tools``)."""
    non_empty: JsonObject = {"type": "array", "minItems": 1}
    return {"anyOf": [{"minProperties": 1, "additionalProperties": {"anyOf": [non_empty, {"not": {}}]},
                       "not": {"additionalProperties": {"maxItems": 0}}},
                      {"required": ["tools"], "properties": {"tools": non_empty}}]}  # fmt: skip


def _config(keys: tuple[str, ...], *, v1: bool) -> JsonObject:
    props: JsonObject = {key: NULLABLE_TEXT for key in keys if key in _TEXT_KEYS}
    names: list[JsonValue] = [
        *sorted({d.name for d in DRIVER_TYPES} | {d.name.lower() for d in DRIVER_TYPES})
    ]
    optional: JsonObject = {
        "devices": _by_classifier({"enum": names}),
        "skip": {"anyOf": [SCALAR, _by_classifier(NULLABLE_TEXT)]} if v1 else _by_classifier(NULLABLE_TEXT),
        "tags": {"type": "array", "items": SCALAR},
        "memory": {"type": ["object", "null"], "additionalProperties": SCALAR},
        "metadata": {"type": ["object", "null"], "additionalProperties": SCALAR},
        "args": {
            "type": "object",
            "propertyNames": {"pattern": _ARG_NAME.pattern},
            "additionalProperties": _ref("arg"),
        },
        "source": _object({key: SCALAR for key in _SOURCE_BRIDGE}),
    }  # fmt: skip
    props.update({k: v for k, v in optional.items() if k in keys})
    return {"type": ["object", "null"], "properties": props, "additionalProperties": False}


def _arg() -> JsonObject:
    full = _object(
        {
            "type": {"enum": list(ARG_TYPES)},
            "description": NULLABLE_TEXT,
            "default": {},
            "required": {"type": "boolean"},
        }
    )
    assert isinstance(full["properties"], dict) and set(full["properties"]) == set(_ARG_KEYS)
    return {"anyOf": [{"enum": list(ARG_TYPES)}, full], "description": "an arg type, or its full declaration"}


def _tool_call() -> JsonObject:
    """``- toolName: {arguments}``: one key, a valid tool name; built-ins' arguments are checked."""
    return {
        "type": "object",
        "minProperties": 1,
        "maxProperties": 1,
        "propertyNames": {"pattern": WIRE_RE.pattern, "not": {"enum": [*sorted(RESERVED_NAMES)]}},
        "properties": builtin_argument_schemas(_DEFS),
        "additionalProperties": {"type": ["object", "null"]},
    }


def _unified() -> JsonObject:
    trailhead_recording = _by_classifier({"anyOf": [{"type": "null"}, {"type": "object", "maxProperties": 0},
                                                    _ref("toolCall")]})  # fmt: skip
    step_props: JsonObject = {"step": TEXT, "verify": TEXT, "recording": _by_classifier(_ref("toolList")),
                              "recordable": {"type": "boolean"}, "maxRetries": _ref("retries")}  # fmt: skip
    trailhead_props: JsonObject = {
        "step": TEXT,
        "recording": trailhead_recording,
        "maxRetries": _ref("retries"),
    }
    assert set(step_props) == set(STEP_KEYS) and set(trailhead_props) == set(TRAILHEAD_KEYS)
    root: JsonObject = {
        "config": _config(UNIFIED_CONFIG_KEYS, v1=False),
        "trailhead": _object(trailhead_props, required=["step"]),
        "trail": {"type": "array", "minItems": 1, "items": _object(step_props, allOf=_step_or_verify())},
    }
    assert set(root) == set(ROOT_KEYS)
    either: list[JsonValue] = [
        {"required": ["trail"]},
        {"required": ["config"], "not": {"required": ["trailhead"]}},
    ]
    return _object(root, anyOf=either, title="unified trail")


def _v1() -> JsonObject:
    recording = _object({"tools": _ref("toolList")}, required=["tools"])
    step_props: JsonObject = {"step": TEXT, "verify": TEXT, "recordable": {"type": "boolean"},
                              "recording": recording, "maxRetries": _ref("retries")}  # fmt: skip
    assert set(step_props) == set(V1_STEP_KEYS)
    tool_name: JsonObject = {
        "type": "string",
        "pattern": WIRE_RE.pattern,
        "not": {"enum": [*sorted(RESERVED_NAMES)]},
    }
    head_props: JsonObject = {"step": TEXT, "tools": _ref("toolList"), "maxRetries": _ref("retries")}
    head = _object(head_props, anyOf=[{"required": ["step"]}, {"required": ["tools"]}])
    trailhead: JsonObject = {"anyOf": [tool_name, head]}
    items: JsonObject = {
        "trailhead": trailhead,
        "prompts": {"type": "array", "items": _object(step_props, allOf=_step_or_verify())},
        "tools": _ref("toolList"),
    }
    assert set(items) | {"config"} == set(V1_ITEM_KEYS)
    item: JsonObject = {"oneOf": [_object({key: value}, required=[key]) for key, value in items.items()]}
    config_item = _object({"config": _config(V1_CONFIG_KEYS, v1=True)}, required=["config"])
    first: JsonObject = {"anyOf": [config_item, item]}
    return {"type": "array", "prefixItems": [first], "items": item, "title": "legacy v1 trail"}


_DEFS: JsonObject = {}


def trail_schema() -> JsonObject:
    """The schema of ``*.trail.yaml`` / ``trail.yaml``: unified (a mapping) or legacy v1 (a list)."""
    _DEFS.clear()
    _DEFS.update(
        {
            "token": TOKEN,
            "retries": {"type": "integer", "minimum": 0},
            "arg": _arg(),
            "toolList": {"type": "array", "items": _ref("toolCall")},
        }
    )
    _DEFS["toolCall"] = _tool_call()
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Trailblaze trail",
        "description": "A trail file (*.trail.yaml, trail.yaml): unified format or legacy v1 list.",
        "oneOf": [_unified(), _v1()],
        "$defs": dict(sorted(_DEFS.items())),
    }


def builtin_argument_schemas(defs: JsonObject) -> JsonObject:
    """Per built-in tool, its arguments' schema as a trail may write them (tokens, YAML scalars)."""
    from ..tools import builtin_tools

    raw: JsonObject = {}
    found: JsonObject = {}
    for tool in sorted(builtin_tools(), key=lambda t: t.name):
        params: JsonObject = copy.deepcopy(dict(tool.descriptor.parameters))
        own = params.pop("$defs", {})
        own = own if isinstance(own, dict) else {}
        renames = _shared_names(raw, own, tool.name)
        for name, body in own.items():
            defs[renames[name]] = _loosen(_renamed(body, renames))
        params = _loosen_inside(_renamed(params, renames))
        notes: JsonObject = {
            arg: {"description": "a note for humans, ignored at replay"} for arg in ANNOTATION_ARGS
        }
        properties = params.setdefault("properties", {})
        if isinstance(properties, dict):  # an object schema's properties are a mapping
            properties.update(notes)
        params.pop("title", None)
        schema: JsonObject = params if params.get("required") else {"anyOf": [{"type": "null"}, params]}
        found[tool.name] = {**schema, "description": tool.descriptor.description}
    return found


def _shared_names(raw: JsonObject, own: JsonObject, tool: str) -> dict[str, str]:
    """Definitions keep their class names when every tool defining one agrees on its body; a tool
    whose definitions differ from earlier ones gets its own names (``Name.tool``)."""
    if all(raw.get(name, body) == body for name, body in own.items()):
        raw.update(own)
        return {name: name for name in own}
    return {name: f"{name}.{tool}" for name in own}


_Json = TypeVar("_Json", bound=JsonValue)


def _renamed(value: _Json, renames: dict[str, str]) -> _Json:
    text = json.dumps(value)
    for old, new in renames.items():
        text = text.replace(f'"#/$defs/{old}"', f'"{REF}{new}"')
    same_shape: _Json = json.loads(text)  # JSON text of a value reads back as a value of its type
    return same_shape


#: Keywords whose value is a schema, a list of schemas, or a map of names to schemas.
_ONE = ("items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames")
_MANY = ("anyOf", "oneOf", "allOf", "prefixItems")
_NAMED = ("properties", "patternProperties", "$defs")


def _loosen(node: JsonValue) -> JsonValue:
    """Accept what a trail may write where a value goes: a token, and text as any YAML scalar."""
    if not isinstance(node, dict):
        return node
    loose = _loosen_inside(node)
    if loose.get("type") == "string" and "enum" not in loose:
        loose["type"] = ["string", "number", "boolean"]
    if ("type" in loose or "$ref" in loose or "enum" in loose) and loose.get("type") != "null":
        return {"anyOf": [loose, *_any_case(loose), _ref("token")]}
    return loose


def _loosen_inside(node: JsonObject) -> JsonObject:
    """``node`` with the schemas it holds loosened (``_loosen``), itself as it is."""
    loose = dict(node)
    for key in _ONE:
        one = loose.get(key)
        if isinstance(one, dict):
            loose[key] = _loosen(one)
    for key in _MANY:
        many = loose.get(key)
        if isinstance(many, list):
            loose[key] = [_loosen(item) for item in many]
    for key in _NAMED:
        named = loose.get(key)
        if isinstance(named, dict):
            loose[key] = {name: _loosen(schema) for name, schema in named.items()}
    return loose


def _any_case(node: JsonObject) -> list[JsonObject]:
    """Built-in tools read their enum values in any case (``down`` is ``DOWN``), as upstream does."""
    listed = node.get("enum")
    words = [v for v in listed if isinstance(v, str)] if isinstance(listed, list) else []
    if not words:
        return []
    letters = (
        "".join(f"[{c.upper()}{c.lower()}]" if c.isalpha() else re.escape(c) for c in w) for w in words
    )
    return [{"type": "string", "pattern": f"^({'|'.join(letters)})$"}]
