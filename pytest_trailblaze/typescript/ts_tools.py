"""TypeScript tools as the registry sees them: a descriptor from the file, arguments checked
against the schema read from its ``<I>`` type, and calls run by the trailmap's host process.

A workspace holds them unbound (collection, ``check`` and ``toolbox`` only read descriptors); a
session binds them to its hosts (``bind``) before registering them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from ..core.errors import FatalToolError
from ..core.tooling.context import ToolContext
from ..core.tooling.tooldef import Tool, ToolDescriptor, ToolResult
from ..mcp.server_tools import SchemaTool
from .discovery import TsToolDef

if TYPE_CHECKING:
    from .hosts import TsBinding

PLATFORMS = {"web", "android", "ios", "desktop"}


def _strings(value: object) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _flag(spec: Mapping[str, object], key: str, default: bool) -> bool:
    value = spec.get(key)
    return value if isinstance(value, bool) else default


class TsTool(SchemaTool):
    """A tool exported by a ``.ts`` file of a trailmap's ``tools/`` folder."""

    def __init__(self, definition: TsToolDef, host: TsBinding | None = None) -> None:
        spec = definition.spec
        toolset = spec.get("toolset")
        self.definition = definition
        self.host = host
        self.schema = dict(definition.schema)
        self.descriptor = ToolDescriptor(
            name=definition.name,
            description=definition.description,
            source=f"typescript:{definition.file.name}",
            surface_to_llm=_flag(spec, "surfaceToLlm", True),
            is_recordable=_flag(spec, "isRecordable", True),
            requires_host=_flag(spec, "requiresHost", False),
            platforms=frozenset(p.lower() for p in _strings(spec.get("supportedPlatforms"))),
            drivers=frozenset(d.lower() for d in _strings(spec.get("supportedDrivers"))),
            toolset=toolset if isinstance(toolset, str) else None,
            schema_factory=lambda: self.schema,
        )
        self._validator = None

    @property
    def requires_context(self) -> bool:
        return _flag(self.definition.spec, "requiresContext", False)

    def bound(self, host: TsBinding) -> TsTool:
        """This tool, run by ``host`` (a session's ``TsBinding``)."""
        return TsTool(self.definition, host)

    def validate(self, args: Mapping[str, Any]) -> dict[str, Any]:
        """Checked arguments, with the schema's ``@default`` values for those left out."""
        checked = super().validate(args)
        properties = self.schema.get("properties")
        if isinstance(properties, Mapping):
            for name, prop in properties.items():
                if name not in checked and isinstance(prop, Mapping) and "default" in prop:
                    checked[name] = prop["default"]
        return checked

    def invoke(self, ctx: ToolContext, validated: dict[str, Any]) -> ToolResult:
        if self.host is None:
            raise FatalToolError(
                f"TypeScript tool '{self.name}' ({self.definition.span}) has no host in this session\n"
                "  fix: run it in a trail session (pytest), where its trailmap's tools are started",
                tool=self.name,
            )
        return self.host.call(self, ctx, validated)


def bind(tools: Iterable[Tool], binding: TsBinding) -> list[Tool]:
    """``tools`` with every TypeScript tool bound to ``binding``'s hosts (the others as they are)."""
    return [tool.bound(binding) if isinstance(tool, TsTool) else tool for tool in tools]
