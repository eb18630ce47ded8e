"""For Python MCP server authors: read the ``_trailblazeContext`` a trail sends with every call.

The SDK's ``MCPServer`` rejects tool parameters whose names start with ``_``, and an alias on
the parameter breaks the call (the alias is passed as the keyword), so the context cannot be a
parameter. It is still in the raw call: ask for the SDK's ``Context`` and hand it to
``trailblaze_context``::

    from mcp.server.mcpserver import Context, MCPServer
    from pytest_trailblaze.mcp import trailblaze_context

    server = MCPServer("shop")

    @server.tool()
    def shop_whoAmI(ctx: Context) -> str:
        tb = trailblaze_context(ctx)
        return f"{tb.device.platform} {tb.memory.get('user')}"

Secrets are never part of the memory sent to servers.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..core.jsondata import JsonObject, JsonValue

if TYPE_CHECKING:
    from pydantic import BaseModel

CONTEXT_ARG = "_trailblazeContext"


@dataclass(frozen=True)
class DeviceContext:
    platform: str = ""
    width_pixels: int = 0
    height_pixels: int = 0
    driver_type: str = ""


@dataclass(frozen=True)
class TrailblazeContext:
    """What the trail told the server: its non-secret memory and the device."""

    memory: Mapping[str, str] = field(default_factory=dict)
    device: DeviceContext = field(default_factory=DeviceContext)

    @classmethod
    def from_arguments(cls, arguments: Mapping[str, object] | None) -> TrailblazeContext | None:
        raw = (arguments or {}).get(CONTEXT_ARG)
        if not isinstance(raw, Mapping):
            return None
        found_device, found_memory = raw.get("device"), raw.get("memory")
        device: Mapping[str, Any] = found_device if isinstance(found_device, Mapping) else {}
        memory: Mapping[str, object] = found_memory if isinstance(found_memory, Mapping) else {}
        return cls(
            memory={str(k): str(v) for k, v in memory.items()},
            device=DeviceContext(
                platform=str(device.get("platform", "")),
                width_pixels=int(device.get("widthPixels", 0) or 0),
                height_pixels=int(device.get("heightPixels", 0) or 0),
                driver_type=str(device.get("driverType", "")),
            ),
        )


def trailblaze_context(ctx: object) -> TrailblazeContext | None:
    """The trail context of the current tool call; ``ctx`` is the SDK's ``Context`` (or its
    request context, or the raw arguments mapping). None when the caller sent none."""
    if isinstance(ctx, Mapping):
        return TrailblazeContext.from_arguments(ctx)
    request = getattr(ctx, "request_context", ctx)
    params = getattr(request, "params", None)
    arguments = params.get("arguments") if isinstance(params, Mapping) else getattr(params, "arguments", None)
    return TrailblazeContext.from_arguments(arguments)


class ToolCallFailed(Exception):
    """A tool ``call_tool`` asked for failed; the message is that tool's."""

    def __init__(self, tool: str, message: str) -> None:
        super().__init__(message)
        self.tool = tool


async def call_tool(ctx: object, name: str, arguments: Mapping[str, JsonValue] | None = None) -> JsonValue:
    """Call a tool of the trail's session from inside a Python MCP server's tool.

    ``ctx`` is the SDK's ``Context``. The request goes back over the server's own stdio, to the
    trail that made the current call, and runs there through its registry (validation, masking,
    hooks, the step log). Returns the tool's structured result, or its text; raises
    ``ToolCallFailed`` with the tool's message when it fails::

        @server.tool()
        async def shop_checkout(ctx: Context) -> str:
            await call_tool(ctx, "web_click", {"ref": "css=#checkout"})
            return await call_tool(ctx, "web_currentUrl")
    """
    request: Any = getattr(ctx, "request_context", ctx)  # the SDK's RequestContext (or a stand-in)
    params = getattr(request, "params", None)
    meta = params.get("_meta") if isinstance(params, Mapping) else getattr(request, "meta", None)
    envelope = (meta or {}).get("trailblaze") if isinstance(meta, Mapping) else None
    if not isinstance(envelope, Mapping) or "invocationId" not in envelope:
        raise RuntimeError("call_tool needs a call made by a trail (its _meta.trailblaze is missing)")
    from mcp.shared.message import ServerMessageMetadata

    _Reply = _reply_model()

    reply = await request.session.send_request(
        _CallToolRequest(
            {
                "invocationId": envelope["invocationId"],
                "callbackToken": envelope.get("callbackToken"),
                "name": name,
                "arguments": dict(arguments or {}),
            }
        ),
        _Reply,
        metadata=ServerMessageMetadata(related_request_id=request.request_id),
    )
    answer: JsonObject = reply.model_dump()
    if not answer.get("success"):
        raise ToolCallFailed(name, str(answer.get("errorMessage") or f"{name} failed"))
    structured = answer.get("structuredContent")
    return structured if structured is not None else answer.get("textContent", "")


def _reply_model() -> type[BaseModel]:
    from pydantic import BaseModel, ConfigDict

    class Reply(BaseModel):
        model_config = ConfigDict(extra="allow")

    return Reply


class _CallToolRequest:
    """The ``trailblaze/callTool`` request, in the shape the SDK's ``send_request`` sends."""

    method = "trailblaze/callTool"

    def __init__(self, params: JsonObject) -> None:
        self.params = params

    def model_dump(self, **_: object) -> JsonObject:
        return {"method": self.method, "params": self.params}
