"""An MCP tool server in Python (the official SDK's MCPServer) for the sample app's trails.

Its tools become callable from recordings like built-in tools, under these exact names.
"""

from __future__ import annotations

import os

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from pytest_trailblaze.mcp import trailblaze_context

server = MCPServer("sample-app-python")


@server.tool()
def sampleApp_greeting(name: str) -> str:
    """Greet someone by name."""
    return f"Hello, {name}!"


@server.tool()
def sampleApp_assertDevice(platform: str, ctx: Context) -> str:
    """Check the device the trail runs on, as the trail reports it in _trailblazeContext."""
    tb = trailblaze_context(ctx)
    if tb is None:
        raise ToolError("the call carried no _trailblazeContext")
    if tb.device.platform != platform:
        raise ToolError(f"expected a {platform} device, the trail runs on {tb.device.platform}")
    session = os.environ.get("TRAILBLAZE_SESSION_ID", "?")
    size = f"{tb.device.width_pixels}x{tb.device.height_pixels}"
    return f"{tb.device.platform} {size} in {session}, user={tb.memory.get('user')}"


@server.tool(meta={"trailblaze/supportedPlatforms": ["android"]})
def sampleApp_android_openSettings() -> str:
    """Only registered for android sessions: its _meta limits it to that platform."""
    return "settings opened"


@server.tool(meta={"trailblaze/toolset": "sampleApp_support"})
def sampleApp_supportHours() -> str:
    """Pushed into the sampleApp_support toolset, which the target offers to agents."""
    return "Mon-Fri 9:00-17:00"


if __name__ == "__main__":
    server.run()
