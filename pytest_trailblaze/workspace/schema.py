"""Schemas of workspace files (docs/upstream.md, Workspaces and tool files), validated with
pydantic against the YAML node tree.

Validation runs on plain values built from the node tree; each pydantic error's location is
walked back through the same tree to the node it names, so every problem reads
``file:line:col: what`` like the trail loader's.
"""

from __future__ import annotations

import functools
import types
import typing
from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal, TypeAlias, TypedDict, TypeGuard, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from pydantic_core import ErrorDetails
from yaml.nodes import MappingNode, Node, SequenceNode

from ..core.docs import docs_page
from ..core.jsondata import JsonObject, JsonValue
from ..core.tooling.tooldef import bind_source_text
from ..core.trail.yamlcore import YamlFloat, YamlInt, plain_values, source_text
from ..core.trail.yamlsource import Source, did_you_mean

PlatformKey = Literal["android", "ios", "web", "compose", "desktop"]
#: Where a validation error points: field names and list indexes, from the file's root.
Location: TypeAlias = Sequence[str | int]

if TYPE_CHECKING:
    #: A parameter's default: a plain YAML value. pydantic reads it unchecked (``object``), as it
    #: cannot build a validator from the recursive ``JsonValue``; the values come from the node tree.
    ParamDefault: TypeAlias = JsonValue
else:
    ParamDefault = object
ParamType = Literal["string", "integer", "boolean", "number", "array", "object"]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, defer_build=True)


class PlatformConfig(Strict):
    """How a target runs on one platform; ``{}`` inherits everything from the defaults."""

    app_ids: list[str] = []
    tool_sets: list[str] | None = None
    tools: list[str] = []
    excluded_tools: list[str] = []
    drivers: list[str] | None = None
    base_url: str | None = None
    min_build_version: str | int | None = None
    icon: str | None = None


class McpServerSpec(Strict):
    """An MCP tool server of a target: a ``script`` or a ``command`` with ``args`` / ``env``."""

    script: str | None = None
    command: str | None = None
    args: list[str] = []
    env: dict[str, str] = {}
    cwd: str | None = None
    name: str | None = None

    @model_validator(mode="after")
    def _one_shape(self) -> McpServerSpec:
        if (self.script is None) == (self.command is None):
            raise ValueError("an MCP server needs exactly one of `script:` or `command:`")
        if self.script is not None and (self.args or self.env):
            raise ValueError("`args:` and `env:` go with `command:`; a `script:` server takes neither")
        return self


class TargetConfig(Strict):
    """The ``target:`` block of a trailmap: what a trail's ``config.target`` selects."""

    id: str | None = None
    display_name: str
    platforms: dict[PlatformKey, PlatformConfig | None] = {}
    tools: list[str] = []
    system_prompt_file: str | None = None
    icon: str | None = None
    electron: dict[str, object] | None = None
    has_custom_ios_driver: bool = False
    mcp_servers: list[McpServerSpec] = []


class TrailValidation(Strict):
    exempt: str | None = None


class TrailmapManifest(Strict):
    """``trailmaps/<id>/trailmap.yaml``: a trailmap and its target."""

    id: str
    target: TargetConfig | None = None
    dependencies: list[str] = []
    defaults: dict[PlatformKey, PlatformConfig | None] = {}
    platforms: dict[PlatformKey, PlatformConfig | None] = {}
    exports: list[str] = []
    toolsets: list[str] = []
    trail_validation: TrailValidation | None = None
    waypoints: list[object] = []
    trails: list[object] = []


class LegacyTarget(Strict):
    """``targets/<id>.yaml``, the legacy flat target file, still read."""

    id: str
    display_name: str | None = None
    platforms: dict[PlatformKey, PlatformConfig | None] = {}
    has_custom_ios_driver: bool = False
    system_prompt: str | None = None
    tools: list[object] = []
    icon: str | None = None
    electron: dict[str, object] | None = None
    mcp_servers: list[McpServerSpec] = []


class ToolsetConfig(Strict):
    """``toolsets/*.yaml``: a named group of tools, optionally for some platforms or drivers."""

    id: str
    description: str = ""
    platforms: list[str] | None = None
    drivers: list[str] | None = None
    always_enabled: bool = False
    tools: list[str] = []


class ParamDecl(Strict):
    """One parameter of a YAML-defined tool; ``default`` present means optional."""

    name: str
    type: ParamType = "string"
    required: bool | None = None
    description: str = ""
    default: ParamDefault = None

    @model_validator(mode="after")
    def _default_as_written(self) -> ParamDecl:
        """A string parameter's default is the text as written (``default: 007`` is ``"007"``);
        other defaults are plain values (they appear in the tool's JSON Schema)."""
        if self.type == "string" and isinstance(self.default, (bool, YamlInt, YamlFloat)):
            self.default = source_text(self.default)
        elif "default" in self.model_fields_set:
            self.default = plain_values(self.default)
        return self

    @property
    def has_default(self) -> bool:
        return "default" in self.model_fields_set

    @property
    def is_required(self) -> bool:
        return self.required if self.required is not None else not self.has_default


class ToolFlags(TypedDict):
    """The descriptor fields a tool file sets, by the names ``tool()`` and ``ToolDescriptor`` take."""

    surface_to_llm: bool
    is_recordable: bool
    requires_host: bool
    is_verification: bool
    platforms: frozenset[str]
    drivers: frozenset[str]


class ToolFile(Strict):
    """``*.tool.yaml``: ``class:``, ``tools:`` or ``script:`` (docs/guides/tools.md)."""

    id: str
    description: str | None = None
    parameters: list[ParamDecl] | None = None
    class_: str | None = Field(default=None, alias="class")
    tools: list[object] | None = None
    script: str | None = None
    surface_to_llm: bool = True
    is_recordable: bool = True
    requires_host: bool = False
    is_verification: bool = False
    platforms: list[str] | None = None
    drivers: list[str] | None = None
    shortcut: dict[str, object] | None = None
    trailhead: dict[str, object] | None = None

    def flags(self) -> ToolFlags:
        """The descriptor fields the file sets, as ``tool()`` and ``ToolDescriptor`` take them."""
        return {
            "surface_to_llm": self.surface_to_llm,
            "is_recordable": self.is_recordable,
            "requires_host": self.requires_host,
            "is_verification": self.is_verification,
            "platforms": frozenset(p.lower() for p in self.platforms or ()),
            "drivers": frozenset(d.lower() for d in self.drivers or ()),
        }

    def bodies(self) -> list[str]:
        """Which of the three bodies the file gives, in file-format order (a valid tool has one)."""
        given = (("class", self.class_), ("tools", self.tools), ("script", self.script))
        return [name for name, value in given if value is not None]


class WorkspaceDefaults(Strict):
    target: str | None = None
    llm: object = None
    max_llm_calls: int | None = Field(default=None, alias="max-llm-calls")


class WorkspaceConfig(Strict):
    """``trails/config/trailblaze.yaml``: the workspace's targets, defaults, shared tools and ``llm:``."""

    targets: list[str] = []
    defaults: WorkspaceDefaults = Field(default_factory=WorkspaceDefaults)  # built when first needed
    toolsets: list[object] = []
    tools: list[object] = []
    providers: object = None
    llm: object = None


#: Fields upstream removed; a clear message beats "unknown key".
REMOVED_FIELDS = {
    "routes": "`routes:` was removed upstream; describe navigation with trailheads and tools",
    "use": "`use:` was removed upstream; list the trailmap under `dependencies:`",
    "extend": "`extend:` was removed upstream; list the trailmap under `dependencies:`",
    "replace": "`replace:` was removed upstream; declare a trailmap with the same id to shadow it",
    "system_prompt": "inline `system_prompt:` was removed upstream; use `system_prompt_file:`",
}


#: Root keys, per file kind, that belong elsewhere in that file: (what, fix).
MISPLACED_FIELDS: dict[type[BaseModel], dict[str, tuple[str, str]]] = {
    TrailmapManifest: {
        "mcp_servers": (
            "`mcp_servers:` belongs under `target:`",
            "indent it into the trailmap's `target:` block",
        ),
    },
}


_Model = TypeVar("_Model", bound=BaseModel)


def validate(src: Source, node: Node, model: type[_Model], what: str) -> _Model | None:
    """Validate a node tree against ``model``; problems go to ``src``; None when invalid."""
    reported = _removed_fields(src, node, model)
    misplaced = MISPLACED_FIELDS.get(model, {})
    if misplaced and isinstance(node, MappingNode):
        for key_node, _ in node.value:
            if str(key_node.value) in misplaced:
                message, fix = misplaced[str(key_node.value)]
                src.problem(key_node, message, fix=fix)
                reported.add((str(key_node.value),))
    value = src.value(node)
    if isinstance(value, dict):  # numbers in string-typed fields keep their written text
        value = bind_source_text(_json_schema(model), value)
    try:
        return model.model_validate(value)
    except ValidationError as exc:
        for error in exc.errors():
            _report(src, node, model, what, error, reported)
        return None


@functools.cache
def _json_schema(model: type[BaseModel]) -> JsonObject:
    return model.model_json_schema(by_alias=True)


def _removed_fields(
    src: Source, node: Node, model: type[BaseModel], where: tuple[str, ...] = ()
) -> set[tuple[str, ...]]:
    """Report keys upstream removed (that ``model`` does not still have); their locations."""
    reported: set[tuple[str, ...]] = set()
    if not isinstance(node, MappingNode):
        return reported
    fields = set(fields_at(model, list(where)))
    for key_node, value in node.value:
        key = str(key_node.value)
        if key in REMOVED_FIELDS and key not in fields:
            src.problem(key_node, f"`{key}:` is not supported", fix=REMOVED_FIELDS[key])
            reported.add((*where, key))
        if key == "target" and not where and "target" in fields:
            reported |= _removed_fields(src, value, model, ("target",))
    return reported


def _report(
    src: Source, root: Node, model: type[BaseModel], what: str, error: ErrorDetails,
    reported: set[tuple[str, ...]],
) -> None:  # fmt: skip
    loc = [part for part in error["loc"] if not (isinstance(part, str) and part.startswith("function-"))]
    on_key = bool(loc) and loc[-1] == "[key]"  # a dict key that is not allowed (e.g. a platform)
    if on_key:
        loc = loc[:-1]
    target, key_node = node_at(root, loc)
    where = what + "".join(f".{p}" if isinstance(p, str) else f"[{p}]" for p in loc[:-1])
    kind = error["type"]
    if kind == "extra_forbidden":
        key = str(loc[-1])
        if tuple(str(p) for p in loc) in reported:
            return  # already reported with its own message
        allowed = fields_at(model, loc[:-1])
        hint = did_you_mean(key, allowed)
        src.problem(
            key_node or target,
            f"unknown key '{key}' in {where}",
            why=f"{where} allows: {', '.join(allowed)}",
            fix=hint or f"remove '{key}'",
        )
    elif kind == "missing":
        src.problem(target, f"missing `{loc[-1]}:` in {where}", fix=f"add `{loc[-1]}: ...`")
    else:
        label = ".".join(str(p) for p in loc) or what
        message = str(error["msg"]).removeprefix("Value error, ")
        src.problem(
            (key_node or target) if on_key else target, f"{what}: `{label}`: {message}", fix=_fix_for(kind)
        )


def _fix_for(kind: str) -> str:
    if kind.startswith(("string", "bool", "int", "float", "list", "dict")):
        return "give it a value of the expected type"
    if kind == "literal_error":
        return "use one of the listed values"
    return f"see {docs_page('reference/schemas/')} for the expected shape"


def node_at(root: Node, loc: Location) -> tuple[Node, Node | None]:
    """The deepest node along ``loc`` (and the key node of the last mapping step)."""
    node, key_node = root, None
    for part in loc:
        if isinstance(node, MappingNode) and isinstance(part, str):
            found = next(((k, v) for k, v in node.value if str(k.value) == part), None)
            if found is None:
                return node, key_node
            key_node, node = found
        elif isinstance(node, SequenceNode) and isinstance(part, int) and part < len(node.value):
            node, key_node = node.value[part], None
        else:
            break
    return node, key_node


def fields_at(model: type[BaseModel], loc: Location) -> list[str]:
    """Field names (by alias) of the model found by walking ``loc`` from ``model``.

    The walk follows field annotations through optional values, lists (index steps) and
    dicts (key steps), so ``target.platforms.web`` reaches ``PlatformConfig``.
    """
    current: object = model
    for part in loc:
        current = _step(current, part)
        if current is None:
            return []
    found = _inner_model(current)
    if found is None:
        return []
    return [f.alias or name for name, f in found.model_fields.items()]


def _step(annotation: object, part: str | int) -> object:
    """The annotation reached from ``annotation`` by one location step, or None."""
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        steps = (_step(a, part) for a in typing.get_args(annotation) if a is not type(None))
        return next((s for s in steps if s is not None), None)
    if _is_model(annotation) and isinstance(part, str):
        field = annotation.model_fields.get(part) or next(
            (f for f in annotation.model_fields.values() if f.alias == part), None
        )
        return field.annotation if field is not None else None
    args = typing.get_args(annotation)
    if origin is dict and len(args) == 2:
        return args[1]
    if origin is list and len(args) == 1 and isinstance(part, int):
        return args[0]
    return None


def _is_model(obj: object) -> TypeGuard[type[BaseModel]]:
    return isinstance(obj, type) and issubclass(obj, BaseModel)


def _inner_model(annotation: object) -> type[BaseModel] | None:
    if _is_model(annotation):
        return annotation
    for arg in typing.get_args(annotation):
        found = _inner_model(arg)
        if found is not None:
            return found
    return None
