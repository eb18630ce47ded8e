"""MCP subprocess tool servers (docs/guides/mcp.md).

This package's top level stays light: Python MCP servers import ``trailblaze_context`` from it,
and a server process should not pay for the client machinery.
"""

from __future__ import annotations

from .sdk_context import DeviceContext, ToolCallFailed, TrailblazeContext, call_tool, trailblaze_context

__all__ = ["DeviceContext", "ToolCallFailed", "TrailblazeContext", "call_tool", "trailblaze_context"]
