"""Tools built from a workspace's tool files: compositions (``tools:``), Python callables
(``class:`` and ``script:``), and placeholders for upstream classes this plugin cannot run.

A ``class:`` module is imported when the workspace loads (collection time): its code holds the
tool's parameters, and an import error is a ``file:line`` problem before any device starts. A
``script:`` tool's facts are all in its YAML, so its module is only located then and imported at
the first call: collection, ``--collect-only``, ``check`` and ``toolbox`` never run it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping
from functools import cached_property
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, PlainValidator, ValidationError, WithJsonSchema, create_model
from pydantic_core import PydanticCustomError

from ..core.errors import FatalToolError, Problem, ToolArgumentError, ToolError, ToolFailure
from ..core.jsondata import JsonValue
from ..core.system.pycall import CodeRoots, ImportFailure, locate, resolve_callable
from ..core.tooling.composition import expand
from ..core.tooling.context import ToolContext
from ..core.tooling.scripts import run_script
from ..core.tooling.tooldef import PythonTool, Tool, ToolDescriptor, ToolResult, explain, tool
from ..core.trail.model import ToolCall
from .model import ToolDef, Workspace
from .schema import ParamDecl


def finite_number(value: object) -> int | float:
    """A ``number`` parameter: ints stay ints (3, not 3.0, when spliced into text), text from memory
    is read as a number, and NaN or infinity is refused (no JSON, no wait, no timeout means them)."""
    if isinstance(value, str):
        text = value.strip()
        value = int(text) if _INTEGER.fullmatch(text) else _float_or_none(text)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, float) and math.isfinite(value):
        return value
    raise PydanticCustomError("finite_number", "Input should be a finite number")


def _float_or_none(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


_INTEGER = re.compile(r"[+-]?[0-9]+")
#: A tool file's parameter types as pydantic field types (classes and Annotated forms alike).
PARAM_TYPES: dict[str, Any] = {
    "string": str,
    "integer": int,
    "boolean": bool,
    "number": Annotated[object, PlainValidator(finite_number), WithJsonSchema({"type": "number"})],
    "array": list,
    "object": dict,
}


def build_tools(
    ws: Workspace, builtin_names: Iterable[str], code: CodeRoots | None = None
) -> tuple[list[Tool], list[Problem]]:
    """Tools for every definition of the workspace, and the problems met building them.

    ``class:`` modules are imported (their code holds the tool's parameters); ``script:`` files
    are only located, and imported at the tool's first call: their facts are in the YAML.
    """
    builtins = set(builtin_names)
    tools: list[Tool] = []
    problems: list[Problem] = []
    for definition in ws.tool_defs.values():
        try:
            built = _build(definition, builtins, code)
        except ImportFailure as exc:
            line = "class" if definition.mode == "class" else "script"
            problems.append(
                Problem(
                    definition.span,
                    f"tool '{definition.name}': cannot load `{line}:`: {exc}",
                    fix="check the module path (module:attribute or path/to/file.py:attribute)",
                )
            )
            continue
        if built is None:
            continue
        if built.name in builtins:  # upstream classes of built-in tools were skipped by _build
            problems.append(
                Problem(
                    definition.span,
                    f"tool '{built.name}' collides with the built-in tool of that name",
                    why="tool names are global within a session",
                    fix=f"rename it, e.g. '<trailmapId>_{built.name}'",
                )
            )
            continue
        tools.append(built)
    return tools, problems


def _build(definition: ToolDef, builtins: set[str], code: CodeRoots | None) -> Tool | None:
    mode = definition.mode
    if mode == "tools":
        return CompositeTool(definition)
    if mode == "script":
        return ScriptTool(definition, code)
    if mode == "class":
        spec = definition.config.class_ or ""
        if ":" in spec:
            return _class_tool(definition, resolve_callable(spec, definition.path.parent, code))
        if definition.name in builtins:
            return None  # an upstream class whose tool this plugin has built in
        return UnavailableTool(
            definition, f"its class {spec} is an upstream Kotlin class pytest-trailblaze does not have"
        )
    if mode == "declared":
        return UnavailableTool(definition, "its file declares no implementation (no class, tools or script)")
    return None  # navigation metadata for a tool defined elsewhere


def _class_tool(definition: ToolDef, target: object) -> Tool:
    if isinstance(target, PythonTool):
        if target.name != definition.name:
            raise ImportFailure(
                f"it provides tool '{target.name}', but this file's id is '{definition.name}'"
            )
        return target
    if not callable(target):
        raise ImportFailure(f"{definition.config.class_} is not a function or a @tool")
    source = f"python:{getattr(target, '__module__', '?')}"
    return tool(definition.name, source=source, **definition.config.flags())(target)


def parameters_model(name: str, params: list[ParamDecl]) -> type[BaseModel]:
    """A pydantic model of declared parameters; omitted optional ones stay unset."""
    fields: dict[str, Any] = {}  # pydantic field definitions: (type, default)
    for p in params:
        kind = PARAM_TYPES[p.type]
        if p.is_required:
            fields[p.name] = (kind, ...)
        else:
            fields[p.name] = (kind | None, p.default if p.has_default else None)
    config = ConfigDict(extra="forbid", coerce_numbers_to_str=True)
    return create_model(f"{name}_parameters", __config__=config, **fields)


class _DefinedTool(Tool):
    """A tool whose descriptor and parameters come from a tool file."""

    def __init__(self, definition: ToolDef, *, source: str, recordable: bool | None = None) -> None:
        c = definition.config
        self.definition = definition
        self.params = list(c.parameters or [])
        self.model = parameters_model(definition.name, self.params)
        flags = c.flags()
        if recordable is not None:
            flags["is_recordable"] = recordable
        self.descriptor = ToolDescriptor(
            name=definition.name,
            description=" ".join((c.description or "").split()),
            source=source,
            schema_factory=self.model.model_json_schema,
            **flags,
        )

    def validate(self, args: Mapping[str, JsonValue]) -> dict[str, JsonValue]:
        """Typed parameter values; explicit nulls and omitted optional parameters are left out."""
        given = {k: v for k, v in dict(args).items() if v is not None}
        try:
            model = self.model.model_validate(given)
        except ValidationError as exc:
            raise ToolArgumentError(explain(exc, self.name, self.model), tool=self.name) from None
        defaults = {p.name for p in self.params if p.has_default}
        return {k: getattr(model, k) for k in type(model).model_fields if k in given or k in defaults}


class CompositeTool(_DefinedTool):
    """``tools:`` mode: expands into other tool calls, dispatched one by one in order."""

    def __init__(self, definition: ToolDef) -> None:
        super().__init__(definition, source=f"yaml:{definition.path.name}")

    @property
    def calls(self) -> tuple[ToolCall, ...]:
        return self.definition.expansion

    @property
    def parameter_names(self) -> frozenset[str]:
        return frozenset(p.name for p in self.params)

    @property
    def parameter_defaults(self) -> dict[str, JsonValue]:
        return {p.name: p.default for p in self.params if p.has_default}

    def invoke(self, ctx: ToolContext, validated: dict[str, JsonValue]) -> ToolResult:
        calls = expand(self.calls, validated, self.parameter_names)
        for index, (name, args) in enumerate(calls, start=1):
            try:
                ctx.run(name, args)
            except FatalToolError:
                raise
            except ToolError as exc:
                raise ToolFailure(
                    f"call {index} of {len(calls)} ({name}) failed: {exc}", tool=self.name
                ) from exc
        return ToolResult(message=f"{self.name}: ran {len(calls)} tool call(s)")


class ScriptTool(_DefinedTool):
    """``script:`` mode: a Python callable ``(params, ctx)`` that may call tools through ``ctx.execute``.

    The wrapper is never recorded; the tools it runs are, each as its own entry.
    """

    def __init__(self, definition: ToolDef, code: CodeRoots | None = None) -> None:
        super().__init__(definition, source=f"script:{definition.path.name}", recordable=False)
        self.spec = definition.config.script or ""
        self.code = code
        locate(self.spec, definition.path.parent, code)  # a missing file is a load problem; nothing runs

    @cached_property
    def function(self) -> Callable[..., object]:
        """The script, imported at the first call (collection and ``check`` never run its module)."""
        try:
            function: object = resolve_callable(self.spec, self.definition.path.parent, self.code)
        except ImportFailure as exc:
            raise ToolFailure(self._cannot_load(str(exc)), tool=self.name) from None
        if not callable(function):
            raise ToolFailure(self._cannot_load(f"{self.spec} is not callable"), tool=self.name)
        return function

    def _cannot_load(self, reason: str) -> str:
        return (
            f"tool '{self.name}' (defined at {self.definition.span}): cannot load `script:`: {reason}\n"
            f"  fix: check the module path (module:attribute or path/to/file.py:attribute)"
        )

    def invoke(self, ctx: ToolContext, validated: dict[str, JsonValue]) -> ToolResult:
        return run_script(self.function, dict(validated), ctx, self.name)


class UnavailableTool(_DefinedTool):
    """A declared tool with no implementation here: known, but every call says why it cannot run."""

    unavailable: str

    def __init__(self, definition: ToolDef, reason: str) -> None:
        super().__init__(definition, source=f"yaml:{definition.path.name}")
        self.unavailable = (
            f"tool '{definition.name}' (declared at {definition.span}) is unavailable: {reason}"
        )

    def validate(self, args: Mapping[str, JsonValue]) -> dict[str, JsonValue]:
        return dict(args)

    def invoke(self, ctx: ToolContext, validated: dict[str, JsonValue]) -> ToolResult:
        raise ToolFailure(self.unavailable, tool=self.name)
