"""Legacy ``<name>.yaml`` descriptors beside a ``.ts`` / ``.js`` tool (upstream's scripted-tool file).

One descriptor names a ``script:`` (relative to the descriptor's folder) and the tool's ``name``,
``description``, flat ``inputSchema`` (``param: {type, description, enum, required}``, required by
default), flags and ``_meta``; or a ``tools:`` list of such entries for a file exporting several.
Its fields win over what the ``.ts`` file says.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from pydantic import Field
from yaml.nodes import Node

from ..core.errors import Problem, SourceSpan
from ..core.jsondata import JsonObject, JsonValue
from ..core.trail.yamlsource import Source
from ..workspace.schema import Strict, node_at, validate

NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.\-]*$")


class SidecarProperty(Strict):
    type: str = "string"
    description: str | None = None
    enum: list[Any] | None = None
    required: bool = True


class SidecarEntry(Strict):
    name: str
    description: str | None = None
    requiresHost: bool | None = None
    supportedPlatforms: list[str] | None = None
    surfaceToLlm: bool | None = None
    isRecordable: bool | None = None
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")
    inputSchema: dict[str, SidecarProperty] | None = None


class Sidecar(SidecarEntry):
    script: str
    name: str | None = None  # type: ignore[assignment]
    runtime: str | None = None
    tools: list[SidecarEntry] | None = None


class SidecarTool:
    """One tool a descriptor declares: where its code is and what the descriptor pins."""

    def __init__(
        self, entry: SidecarEntry, base: Sidecar, path: Path, script: Path, span: SourceSpan
    ) -> None:
        self.name = entry.name
        self.path = path
        self.script = script
        self.span = span
        self.description = entry.description if entry.description is not None else base.description
        self.schema = flat_schema(entry.inputSchema if entry.inputSchema is not None else base.inputSchema)
        self.spec = _flags(base, entry)


def flat_schema(properties: dict[str, SidecarProperty] | None) -> JsonObject | None:
    """Upstream's flat ``inputSchema`` map as a JSON Schema object; None when not given."""
    if properties is None:
        return None
    shapes: JsonObject = {}
    schema: JsonObject = {"type": "object", "properties": shapes}
    for name, prop in properties.items():
        one: JsonObject = {"type": prop.type}
        if prop.description:
            one["description"] = prop.description
        if prop.enum is not None:
            one["enum"] = prop.enum
        shapes[name] = one
    required: list[JsonValue] = [name for name, prop in properties.items() if prop.required]
    if required:
        schema["required"] = required
    return schema


def _flags(base: Sidecar, entry: SidecarEntry) -> JsonObject:
    """The spec fields a descriptor sets, entry over file, ``_meta`` keys under the shortcuts."""
    spec: JsonObject = {}
    for meta in (base.meta, entry.meta):
        for key, value in (meta or {}).items():
            if key.startswith("trailblaze/"):
                spec[key.removeprefix("trailblaze/")] = value
    for holder in (base, entry):
        for key in ("requiresHost", "supportedPlatforms", "surfaceToLlm", "isRecordable"):
            value = getattr(holder, key)
            if value is not None:
                spec[key] = value
    return spec


def is_sidecar(path: Path) -> bool:
    """A ``<name>.yaml`` in ``tools/`` that is not a ``.tool`` / ``.shortcut`` / ``.trailhead`` file."""
    return path.suffix in (".yaml", ".yml") and not path.name.endswith(
        (".tool.yaml", ".shortcut.yaml", ".trailhead.yaml")
    )


class MissingScript(Exception):
    """A descriptor's ``script:`` is not there: the tools it declares are missing, nothing else."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(problem.what)
        self.problem = problem


def read_sidecar(src: Source, node: Node, path: Path, tools_dir: Path) -> list[SidecarTool]:
    """The tools a descriptor declares; problems (a bad name, a script outside ``tools/``) go to
    ``src`` at their lines; a missing script raises ``MissingScript``."""
    sidecar = validate(src, node, Sidecar, path.name)
    if sidecar is None:
        return []
    script_node = node_at(node, ["script"])[0]
    script = (path.parent / sidecar.script).resolve()
    if not script.is_relative_to(tools_dir.resolve()):
        src.problem(
            script_node,
            f"script {sidecar.script} is outside the trailmap's tools/ folder",
            why=f"it resolves to {script}; a trailmap's tools run only from its own tools/ folder",
            fix="move the file into tools/",
        )
        return []
    if not script.is_file():
        raise MissingScript(
            Problem(
                src.span(script_node),
                f"script {sidecar.script} does not exist",
                why=f"it resolves to {script}, relative to {path.name}",
                fix="fix the path: it starts at the descriptor's folder",
            )
        )
    entries = sidecar.tools if sidecar.tools is not None else [_single(sidecar, path)]
    tools = []
    for index, entry in enumerate(entries):
        where = node_at(node, ["tools", index, "name"] if sidecar.tools is not None else ["name"])[0]
        if not NAME.match(entry.name):
            src.problem(where, f"invalid scripted-tool name '{entry.name}'", fix="use letters, digits, _ . -")
            continue
        tools.append(SidecarTool(entry, sidecar, path, script, src.span(where)))
    return tools


def _single(sidecar: Sidecar, path: Path) -> SidecarEntry:
    fields = sidecar.model_dump(by_alias=True, exclude={"script", "runtime", "tools"})
    fields["name"] = sidecar.name or path.stem
    return SidecarEntry.model_validate(fields)


