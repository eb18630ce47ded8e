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
from typing import Any

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
    def from_arguments(cls, arguments: Mapping[str, Any] | None) -> TrailblazeContext | None:
        raw = (arguments or {}).get(CONTEXT_ARG)
        if not isinstance(raw, Mapping):
            return None
        device = raw.get("device") if isinstance(raw.get("device"), Mapping) else {}
        memory = raw.get("memory") if isinstance(raw.get("memory"), Mapping) else {}
        return cls(
            memory={str(k): str(v) for k, v in memory.items()},
            device=DeviceContext(
                platform=str(device.get("platform", "")),
                width_pixels=int(device.get("widthPixels", 0) or 0),
                height_pixels=int(device.get("heightPixels", 0) or 0),
                driver_type=str(device.get("driverType", "")),
            ),
        )


def trailblaze_context(ctx: Any) -> TrailblazeContext | None:
    """The trail context of the current tool call; ``ctx`` is the SDK's ``Context`` (or its
    request context, or the raw arguments mapping). None when the caller sent none."""
    if isinstance(ctx, Mapping):
        return TrailblazeContext.from_arguments(ctx)
    request = getattr(ctx, "request_context", ctx)
    params = getattr(request, "params", None)
    arguments = params.get("arguments") if isinstance(params, Mapping) else getattr(params, "arguments", None)
    return TrailblazeContext.from_arguments(arguments)
