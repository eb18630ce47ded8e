"""Tools advertised by MCP servers, registered under their advertised names
(docs/upstream.md, MCP servers).

``_meta`` decides registration, in order: ``trailblaze/supportedDrivers``,
``trailblaze/supportedPlatforms`` (any case), ``trailblaze/requiresHost`` (dropped in on-device
agent mode). ``trailblaze/toolset``, ``trailblaze/surfaceToLlm`` and ``trailblaze/isRecordable``
shape the descriptor; ``trailblaze/requiresContext`` is kept as metadata only. Malformed values
count as absent.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..core.errors import Problem, SourceSpan, ToolArgumentError
from ..core.jsondata import JsonObject
from ..core.tooling.arguments import ArgumentIssue, SchemaValidator, is_finite, schema_issues
from ..core.tooling.context import ToolContext
from ..core.tooling.tooldef import Tool, ToolDescriptor, ToolResult
from ..core.trail.naming import check_tool_name
from .callbacks import envelope
from .results import memory_writes
from .sdk_context import CONTEXT_ARG
from .server import McpServer, to_result

if TYPE_CHECKING:
    import mcp_types as types

    from ..workspace.model import Target


def _strings(value: object) -> list[str] | None:
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return value
    return None


def _flag(meta: Mapping[str, object], key: str, default: bool) -> bool:
    value = meta.get(key)
    return value if isinstance(value, bool) else default


def skip_reason(
    meta: Mapping[str, object] | None, *, platform: str, driver_key: str, agent_mode: str
) -> str | None:
    """Why a tool is not registered in this session, or None when it is."""
    meta = meta or {}
    drivers = _strings(meta.get("trailblaze/supportedDrivers"))
    if drivers and driver_key.lower() not in {d.lower() for d in drivers}:
        return f"supportedDrivers {drivers} excludes {driver_key}"
    platforms = _strings(meta.get("trailblaze/supportedPlatforms"))
    if platforms and platform.upper() not in {p.upper() for p in platforms}:
        return f"supportedPlatforms {platforms} excludes {platform}"
    if _flag(meta, "trailblaze/requiresHost", False) and agent_mode != "host":
        return "requiresHost and the session runs on-device"
    return None


class SchemaTool(Tool):
    """A tool whose arguments are checked against a JSON Schema (``self.schema``) before it runs."""

    schema: JsonObject
    _validator: SchemaValidator | None = None

    def validate(self, args: Mapping[str, Any]) -> dict[str, Any]:
        """Check arguments against the JSON Schema before the call; NaN and infinity are refused
        too (JSON cannot carry them, and the call would fail inside the client)."""
        validator = self._schema_validator()
        if validator.is_valid(args) and is_finite(args):
            return dict(args)
        issues = schema_issues(validator, args)
        if issues:
            problems = "; ".join(issue.message for issue in issues)
            raise ToolArgumentError(f"invalid arguments for '{self.name}': {problems}", tool=self.name)
        return dict(args)

    def argument_issues(self, args: Mapping[str, Any]) -> list[ArgumentIssue]:
        """What ``validate`` refuses, one issue per problem, with paths like ``entities[0].entityType``."""
        return schema_issues(self._schema_validator(), args)

    def _schema_validator(self) -> SchemaValidator:
        if self._validator is None:
            from jsonschema import Draft202012Validator

            self._validator = Draft202012Validator(self.schema)
        return self._validator


class McpTool(SchemaTool):
    """A tool of an MCP server: arguments checked against its JSON Schema, then called."""

    def __init__(
        self,
        server: McpServer,
        advertised: types.Tool,
        *,
        session_id: str = "",
        target: Target | None = None,
    ) -> None:
        meta = dict(advertised.meta or {})
        #: The session it serves, for the ``_meta.trailblaze`` of its calls.
        self.session_id = session_id
        self.target = target
        toolset = meta.get("trailblaze/toolset")
        self.server = server
        self.schema = dict(advertised.input_schema or {"type": "object"})
        self.meta = meta
        self.descriptor = ToolDescriptor(
            name=advertised.name,
            description=" ".join((advertised.description or "").split()),
            source=f"mcp:{server.launch.shown}",  # collisions name the server's command line
            surface_to_llm=_flag(meta, "trailblaze/surfaceToLlm", True),
            is_recordable=_flag(meta, "trailblaze/isRecordable", True),
            requires_host=_flag(meta, "trailblaze/requiresHost", False),
            toolset=toolset if isinstance(toolset, str) and toolset else None,
            schema_factory=lambda: self.schema,
        )
        self._validator = None

    @property
    def requires_context(self) -> bool:
        return _flag(self.meta, "trailblaze/requiresContext", False)

    def invoke(self, ctx: ToolContext, validated: dict[str, Any]) -> ToolResult:
        """Call with ``_trailblazeContext`` (the upstream argument) and ``_meta.trailblaze`` (the
        session, and what the server needs to call tools back); a successful result's memory
        writes reach the trail."""
        context: JsonObject = {"memory": dict(ctx.memory.public()), "device": ctx.device.as_context()}
        meta = envelope(ctx, self.session_id, self.target)
        result = self.server.call_result(self.name, {**validated, CONTEXT_ARG: context}, ctx=ctx, meta=meta)
        if result.meta and not result.is_error:
            writes = memory_writes(result.meta)
            writes.apply(ctx.memory)
            for skipped in writes.skipped:
                self.server.connection.note(f"[{self.name}] ignored {skipped}")
        return to_result(result)


def naming_findings(tools: list[McpTool], declared_at: SourceSpan, *, strict: bool = False) -> list[Problem]:
    """The naming convention applied to advertised names, reported at the target that declares the
    servers: advice (servers name their own tools), errors in strict mode (``--trailblaze-strict``
    for pytest, ``--strict`` for ``trailblaze check``), the same way in both."""
    return [
        Problem(
            declared_at,
            f"{tool.descriptor.source}: {finding.what}",
            why=finding.why,
            fix=finding.fix,
            severity="error" if strict else "warning",
        )
        for tool in tools
        for finding in check_tool_name(tool.name)
    ]
