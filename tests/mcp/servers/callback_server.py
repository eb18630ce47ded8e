"""A Python MCP server whose tools call the trail's tools back (``pytest_trailblaze.mcp.call_tool``),
and one that forges the callback: no secret, a wrong one, a call that is not running."""

from __future__ import annotations

import json
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.message import ServerMessageMetadata

from pytest_trailblaze.mcp import ToolCallFailed, call_tool

server = MCPServer("callback-fixture")


@server.tool()
async def cbpy_call(ctx: Context, name: str, arguments: dict[str, Any]) -> str:
    """Call a trail tool; report its result or its failure."""
    try:
        return json.dumps({"ok": await call_tool(ctx, name, arguments)})
    except ToolCallFailed as failure:
        return json.dumps({"failed": str(failure), "tool": failure.tool})


class _Forged:
    method = "trailblaze/callTool"

    def __init__(self, params: dict[str, Any]) -> None:
        self.params = params

    def model_dump(self, **_: Any) -> dict[str, Any]:
        return {"method": self.method, "params": self.params}


@server.tool()
async def cbpy_forge(ctx: Context, how: str) -> str:
    """Send a callback that must be refused: how = "no-secret" | "wrong-secret" | "stale-call"."""
    request = ctx.request_context
    envelope = (request.params.get("_meta") or {}).get("trailblaze") or {}
    params: dict[str, Any] = {"name": "assertEquals", "arguments": {"actual": "1", "expected": "1"}}
    params["invocationId"] = "not-a-running-call" if how == "stale-call" else envelope.get("invocationId")
    if how == "wrong-secret":
        params["callbackToken"] = "guessed"
    elif how == "stale-call":
        params["callbackToken"] = envelope.get("callbackToken")
    from pydantic import BaseModel, ConfigDict

    class Reply(BaseModel):
        model_config = ConfigDict(extra="allow")

    try:
        await request.session.send_request(
            _Forged(params), Reply, metadata=ServerMessageMetadata(related_request_id=request.request_id)
        )
    except Exception as exc:
        return f"refused: {exc}"
    return "accepted"


if __name__ == "__main__":
    server.run()
