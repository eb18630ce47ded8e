"""Tools defined as typed Python functions: descriptor, argument model, invocation.

``@tool(...)`` turns ``def web_click(ctx, ref: str | None = None, ...)`` into a ``PythonTool``.
The signature after ``ctx`` becomes a pydantic model that validates arguments before the
function runs and yields the JSON Schema the descriptor publishes. Models are built on first
use so importing a module of tools stays cheap for ``--collect-only``.
"""

from __future__ import annotations

import enum
import functools
import inspect
from collections.abc import Callable, Iterable, Mapping
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, get_type_hints

from pydantic import BaseModel, ConfigDict, ValidationError, create_model
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue
from pydantic_core import core_schema

from ..errors import ToolArgumentError, ToolError, ToolFailure
from ..jsondata import JsonValue
from ..system.foreign import ForeignExit, foreign_code
from ..system.offloop import ASYNC_TOOLS
from ..trail.yamlcore import YamlFloat, YamlInt, source_text
from ..trail.yamlsource import did_you_mean

if TYPE_CHECKING:
    from .context import ToolContext


@dataclass(frozen=True)
class ToolDescriptor:
    """What the registry, the LLM menu and ``trailblaze toolbox`` know about a tool."""

    name: str
    description: str
    source: str
    surface_to_llm: bool = True
    is_recordable: bool = True
    requires_host: bool = False
    is_verification: bool = False
    platforms: frozenset[str] = frozenset()
    drivers: frozenset[str] = frozenset()
    toolset: str | None = None
    #: Arguments whose values are never shown in logs or messages (e.g. a password).
    sensitive_args: frozenset[str] = frozenset()
    schema_factory: Callable[[], Mapping[str, Any]] = field(default=lambda: {"type": "object"}, repr=False)

    @cached_property
    def parameters(self) -> Mapping[str, Any]:
        """The JSON Schema of the arguments (JSON data; its readers index into it unnarrowed)."""
        return self.schema_factory()


@dataclass(frozen=True, slots=True)
class ToolResult:
    """What a tool call produced; failures are raised, not returned."""

    success: bool = True
    message: str = ""
    data: object = None

    @staticmethod
    def of(value: object) -> ToolResult:
        """Normalise a tool function's return value."""
        if isinstance(value, ToolResult):
            return value
        if value is None:
            return ToolResult()
        if isinstance(value, str):
            return ToolResult(message=value)
        return ToolResult(message=str(value), data=value)


class Tool:
    """A registered tool: a descriptor plus validation and invocation."""

    descriptor: ToolDescriptor
    #: Why the tool cannot run here (declared, but not implemented); None when it can.
    unavailable: str | None = None

    @property
    def name(self) -> str:
        return self.descriptor.name

    def validate(self, args: Mapping[str, JsonValue]) -> Any:
        """Check arguments; raise ``ToolArgumentError`` naming the argument and the tool.

        Each kind of tool validates into its own form (a pydantic model, a dict), which only its
        own ``invoke`` reads: hence no narrower type between the two.
        """
        return dict(args)

    def invoke(self, ctx: ToolContext, validated: Any) -> ToolResult:
        raise NotImplementedError


class CaseInsensitiveEnum(enum.StrEnum):
    """Enum parameters accept any letter case, as upstream's serializer does (``left`` = ``LEFT``)."""

    @classmethod
    def _missing_(cls, value: object) -> CaseInsensitiveEnum | None:
        if isinstance(value, str):
            for member in cls:
                if member.value.lower() == value.strip().lower():
                    return member
        return None


#: The package's own modules: their tools end only by raising (see ``PythonTool.invoke``).
_OWN_MODULES = __name__.partition(".")[0] + "."


class PythonTool(Tool):
    """A tool whose implementation is a typed Python function ``fn(ctx, **params)``."""

    def __init__(self, fn: Callable[..., object], descriptor: ToolDescriptor) -> None:
        self.fn = fn
        self.descriptor = descriptor
        #: A tool of this package's: no ``foreign_code`` guard, whose signal handlers, put in and
        #: taken out around every call, were a tenth of a replayed call's own cost.
        self.own = fn.__module__.startswith(_OWN_MODULES)

    @cached_property
    def model(self) -> type[BaseModel]:
        return arguments_model(self.fn, self.descriptor.name)

    def validate(self, args: Mapping[str, JsonValue]) -> BaseModel:
        try:
            return self.model.model_validate(dict(args))
        except ValidationError as exc:
            raise ToolArgumentError(explain(exc, self.name, self.model), tool=self.name) from None

    def invoke(self, ctx: ToolContext, validated: BaseModel) -> ToolResult:
        values = {name: getattr(validated, name) for name in type(validated).model_fields}
        values.update(validated.model_extra or {})  # a function taking **kwargs gets the rest
        guard: AbstractContextManager[None] = nullcontext() if self.own else foreign_code()
        try:
            with guard:  # sys.exit() in a user's tool fails its step instead of ending the run
                if inspect.iscoroutinefunction(
                    self.fn
                ):  # not on the trail's thread: Playwright's loop is there
                    return ToolResult.of(ASYNC_TOOLS.run(functools.partial(self.fn, ctx, **values)))
                return ToolResult.of(self.fn(ctx, **values))
        except ToolError:
            raise
        except AssertionError as exc:  # `assert` in a tool reads as a failed step, not a crash
            raise ToolFailure(str(exc) or f"an assertion in {self.name} failed", tool=self.name) from exc
        except ForeignExit as exc:
            raise ToolFailure(f"{self.name} {exc}", tool=self.name) from None


def arguments_model(fn: Callable[..., object], name: str) -> type[BaseModel]:
    """A pydantic model of ``fn``'s parameters after the first (the tool context)."""
    hints = get_type_hints(fn, include_extras=True)
    params = list(inspect.signature(fn).parameters.values())[1:]
    fields: dict[str, Any] = {}  # create_model's keywords: (annotation, default) per field
    takes_any = any(p.kind == p.VAR_KEYWORD for p in params)
    for param in params:
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        annotation = hints.get(param.name, Any)
        default = ... if param.default is inspect.Parameter.empty else param.default
        fields[param.name] = (annotation, default)
    config = ConfigDict(
        extra="allow" if takes_any else "forbid", arbitrary_types_allowed=True, coerce_numbers_to_str=True
    )
    return create_model(f"{name}_arguments", __config__=config, **fields)


def explain(exc: ValidationError, tool: str, model: type[BaseModel]) -> str:
    """One line per bad argument, in words a trail author understands."""
    lines = []
    fields = list(model.model_fields)
    for err in exc.errors():
        loc = ".".join(str(p) for p in err["loc"])
        kind = err["type"]
        if kind == "missing":
            lines.append(f"missing required argument '{loc}'")
        elif kind == "extra_forbidden":
            hint = did_you_mean(str(err["loc"][0]), fields)
            accepted = ", ".join(fields) or "none"
            lines.append(f"unknown argument '{loc}'{' (' + hint + ')' if hint else ''}; accepted: {accepted}")
        else:
            lines.append(f"argument '{loc}': {err['msg']} (got {err['input']!r})")
    return f"invalid arguments for '{tool}': " + "; ".join(lines)


def tool(
    name: str | None = None,
    *,
    description: str | None = None,
    platforms: Iterable[str] = (),
    drivers: Iterable[str] = (),
    surface_to_llm: bool = True,
    is_recordable: bool = True,
    requires_host: bool = False,
    is_verification: bool = False,
    toolset: str | None = None,
    source: str | None = None,
    sensitive_args: Iterable[str] = (),
) -> Callable[[Callable[..., object]], PythonTool]:
    """Declare a Python function as a Trailblaze tool.

    The function takes the tool context first, then its parameters with type hints; the
    docstring's first paragraph is the description unless one is given. An ``async def`` function
    runs on a background event loop (``offloop``), for async clients; it cannot drive the page,
    whose sync API belongs to the trail's thread.
    """

    def decorate(fn: Callable[..., object]) -> PythonTool:
        tool_name = name or fn.__name__
        doc = description if description is not None else inspect.cleandoc(fn.__doc__ or "").split("\n\n")[0]
        holder: list[PythonTool] = []
        descriptor = ToolDescriptor(
            name=tool_name,
            description=" ".join(doc.split()),
            source=source or f"python:{fn.__module__}",
            surface_to_llm=surface_to_llm,
            is_recordable=is_recordable,
            requires_host=requires_host,
            is_verification=is_verification,
            platforms=frozenset(p.lower() for p in platforms),
            drivers=frozenset(d.lower() for d in drivers),
            toolset=toolset,
            sensitive_args=frozenset(sensitive_args),
            schema_factory=lambda: holder[0].model.model_json_schema(schema_generator=_LenientSchema),
        )
        built = PythonTool(fn, descriptor)
        holder.append(built)
        return built

    return decorate


class _LenientSchema(GenerateJsonSchema):
    """A parameter of a type JSON Schema cannot describe (any Python class) accepts anything."""

    def handle_invalid_for_json_schema(
        self, schema: core_schema.CoreSchema, error_info: str
    ) -> JsonSchemaValue:
        return {}


# -- source text for string parameters ----------------------------------------------------------
_NATIVE = {bool: ("boolean",), YamlInt: ("integer", "number"), YamlFloat: ("number",)}


def bind_tool_arguments(tool: Tool, args: Mapping[str, JsonValue]) -> dict[str, JsonValue]:
    """``args`` as ``tool`` takes them: ``bind_source_text`` against the tool's JSON Schema.

    Only YAML numbers and booleans are ever rewritten, so arguments that hold none (most calls)
    are taken as they are without the schema: building a tool's JSON Schema is the dearest part
    of checking a trail's calls, and a worker that never meets a number never builds one.
    """
    if not any(_holds_yaml_scalar(value) for value in args.values()):
        return dict(args)
    return bind_source_text(tool.descriptor.parameters, args)


def _holds_yaml_scalar(value: object) -> bool:
    """Whether ``value`` is, or holds at any depth, a value ``_bind`` may rewrite."""
    if isinstance(value, dict):
        return any(_holds_yaml_scalar(v) for v in value.values())
    if isinstance(value, list):
        return any(_holds_yaml_scalar(v) for v in value)
    return type(value) in _NATIVE


def bind_source_text(schema: Mapping[str, JsonValue], args: Mapping[str, JsonValue]) -> dict[str, JsonValue]:
    """Arguments where every YAML number or boolean bound to a string-typed parameter (at any
    depth) is replaced by the text it was written as: ``017`` -> ``"017"``, ``1.10`` -> ``"1.10"``.

    Upstream decodes trails into typed fields, so a string field gets the scalar exactly as
    written; converting the number back (``str(1.1)``) would lose what the author wrote. A
    parameter that also accepts the value's own type (``str | int``) keeps the value.
    """
    return {key: _bind(_property(schema, key, schema), value, schema) for key, value in args.items()}


def _bind(
    schema: Mapping[str, JsonValue] | None, value: JsonValue, root: Mapping[str, JsonValue]
) -> JsonValue:
    if schema is None:
        return value
    if isinstance(value, dict):
        target = _branch(schema, "object", root)
        return {k: _bind(_property(target, k, root), v, root) for k, v in value.items()}
    if isinstance(value, list):
        target = _branch(schema, "array", root)
        return [_bind(_item(target, i, root), v, root) for i, v in enumerate(value)]
    native = _NATIVE.get(type(value))
    if native is None or not isinstance(value, (bool, int, float)):
        return value
    types = _types(schema, root)
    if types is None or "string" not in types or any(t in types for t in native):
        return value
    return source_text(value)


def _resolve(schema: object, root: Mapping[str, JsonValue]) -> Mapping[str, JsonValue] | None:
    """A subschema with a local ``$ref`` followed (``#/$defs/X``); None when it says nothing."""
    if not isinstance(schema, Mapping):
        return None
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/"):
        target: object = root
        for part in ref[2:].split("/"):
            target = target.get(part) if isinstance(target, Mapping) else None
        return target if isinstance(target, Mapping) else None
    return schema


def _alternatives(
    schema: Mapping[str, JsonValue], root: Mapping[str, JsonValue]
) -> list[Mapping[str, JsonValue]]:
    found = [schema]
    for key in ("anyOf", "oneOf", "allOf"):
        options = schema.get(key)
        for option in options if isinstance(options, (list, dict, str)) else ():
            resolved = _resolve(option, root)
            if resolved is not None:
                found.extend(_alternatives(resolved, root))
    return found


def _types(schema: Mapping[str, JsonValue], root: Mapping[str, JsonValue]) -> set[str] | None:
    """The JSON types a schema accepts; None when it does not say (any value goes)."""
    types: set[str] = set()
    for option in _alternatives(schema, root):
        given = option.get("type")
        if isinstance(given, str):
            types.add(given)
        elif isinstance(given, list):
            types.update(t for t in given if isinstance(t, str))
        enum = option.get("enum")
        listed = [
            *(enum if isinstance(enum, (list, dict, str)) else ()),
            *([option["const"]] if "const" in option else []),
        ]
        types.update("string" if isinstance(v, str) else "other" for v in listed)
    return types or None


def _branch(
    schema: Mapping[str, JsonValue], kind: str, root: Mapping[str, JsonValue]
) -> Mapping[str, JsonValue]:
    """The alternative of a union that describes values of JSON type ``kind``."""
    for option in _alternatives(schema, root):
        given = option.get("type")
        if given == kind or (isinstance(given, list) and kind in given):
            return option
    return schema


def _property(
    schema: Mapping[str, JsonValue], key: str, root: Mapping[str, JsonValue]
) -> Mapping[str, JsonValue] | None:
    props = schema.get("properties")
    if isinstance(props, Mapping) and key in props:
        return _resolve(props[key], root)
    return _resolve(schema.get("additionalProperties"), root)


def _item(
    schema: Mapping[str, JsonValue], index: int, root: Mapping[str, JsonValue]
) -> Mapping[str, JsonValue] | None:
    prefix = schema.get("prefixItems")
    if isinstance(prefix, list) and index < len(prefix):
        return _resolve(prefix[index], root)
    return _resolve(schema.get("items"), root)
