"""JSON Schemas of workspace files, from the pydantic models that validate them.

``model_json_schema`` gives the fields, types and ``extra="forbid"``; the rules the models
and the tool-file reader check in code (one body per tool, the fields each body needs, one
shape per MCP server) are added here as JSON Schema conditions, each next to the model it
belongs to, and the corpus test checks both sides reject the same broken files.
"""

from __future__ import annotations

from pydantic import BaseModel

from ..core.jsondata import JsonObject, JsonValue
from ..workspace.schema import LegacyTarget, ToolFile, ToolsetConfig, TrailmapManifest, WorkspaceConfig

_BODIES = ("class", "tools", "script")


def _required(*names: str) -> JsonObject:
    return {"required": list(names)}


def _tool_file_rules() -> list[JsonObject]:
    """At most one of class / tools / script; ``class:`` forbids description and parameters;
    ``tools:`` and ``script:`` need both (``read_tool_definition``)."""
    pairs: list[JsonValue] = [_required(a, b) for i, a in enumerate(_BODIES) for b in _BODIES[i + 1 :]]
    return [
        {"not": {"anyOf": pairs}},
        {
            "if": _required("class"),
            "then": {"not": {"anyOf": [_required("description"), _required("parameters")]}},
        },
        {
            "if": {"anyOf": [_required("tools"), _required("script")]},
            "then": _required("description", "parameters"),
        },
    ]


def _mcp_server_rules() -> list[JsonObject]:
    """Exactly one of ``script:`` / ``command:``; a script server takes no args or env."""
    return [
        {"oneOf": [_required("script"), _required("command")]},
        {
            "if": _required("script"),
            "then": {"properties": {"args": {"maxItems": 0}, "env": {"maxProperties": 0}}},
        },
    ]


#: Rules per model name, added to the model's schema wherever it appears.
_RULES = {"ToolFile": _tool_file_rules, "McpServerSpec": _mcp_server_rules}

MODELS: dict[str, tuple[type[BaseModel], str, str]] = {
    "tool": (
        ToolFile,
        "Trailblaze tool",
        "A YAML-defined tool (*.tool.yaml, *.trailhead.yaml, tools/*.yaml).",
    ),
    "trailmap": (TrailmapManifest, "Trailblaze trailmap", "trails/config/trailmaps/<id>/trailmap.yaml"),
    "toolset": (ToolsetConfig, "Trailblaze toolset", "trails/config/trailmaps/<id>/toolsets/*.yaml"),
    "workspace": (WorkspaceConfig, "Trailblaze workspace", "trails/config/trailblaze.yaml"),
    "target": (LegacyTarget, "Trailblaze target (legacy)", "trails/config/targets/<id>.yaml"),
}


def workspace_schema(kind: str) -> JsonObject:
    """The schema of one workspace file kind (see ``MODELS``)."""
    model, title, description = MODELS[kind]
    schema = model.model_json_schema(by_alias=True)
    for name, body in [(model.__name__, schema), *schema.get("$defs", {}).items()]:
        if name in _RULES:
            body["allOf"] = _RULES[name]()
    schema.pop("title", None)
    schema.pop("description", None)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": title,
        "description": description,
        **schema,
    }
