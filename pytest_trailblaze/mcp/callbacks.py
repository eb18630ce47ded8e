"""Tools calling tools: the ``trailblaze/callTool`` request a server sends back during a call.

A TypeScript tool's ``ctx.tools.<name>(args)`` (and any MCP server we run, through our
``@trailblaze/scripting`` or ``pytest_trailblaze.mcp.call_tool``) sends a JSON-RPC request to us over
the same stdio pipe as the call itself: no port, no socket, so no other process or user can reach
it. The request must also carry the call's invocation id, live only while that call runs, and the
server's per-session secret: a server cannot call in outside a call it is serving.

The inner call runs on the trail's thread (Playwright's sync API lives there) through
``ctx.run``: the same registry, validation, masking, hooks and step log as any call, re-entry depth
bounded. Only the public memory and the names of secrets cross to the server; texts it gets back
are masked.
"""

from __future__ import annotations

import hmac
import queue
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..core.errors import FatalToolError, ToolError
from ..core.jsondata import JsonObject, JsonValue, as_json
from ..core.tooling.context import ToolContext

if TYPE_CHECKING:  # the SDK loads only when a server is used
    import asyncio

    from mcp_types import CallToolResult, RequestId

    from ..workspace.model import Target

CALL_TOOL = "trailblaze/callTool"
#: JSON-RPC error codes of our replies.
REFUSED = -32001
UNKNOWN_METHOD = -32601


@dataclass(frozen=True)
class Callback:
    """A ``trailblaze/callTool`` request, accepted: which tool, with what, and the memory written."""

    request_id: RequestId
    name: str
    arguments: JsonObject
    memory_delta: dict[str, str] = field(default_factory=dict)
    memory_deletions: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Finished:
    """The call itself ended (its task is done): the loop on the trail's thread stops waiting."""

    task: asyncio.Task[CallToolResult]


class CallbackRouter:
    """The calls in progress on one server connection and the secret its callbacks must carry."""

    def __init__(self) -> None:
        self.secret = secrets.token_urlsafe(24)
        self._live: dict[str, queue.SimpleQueue[Callback | Finished]] = {}

    def open(self) -> tuple[str, queue.SimpleQueue[Callback | Finished]]:
        """A new call: its invocation id and the queue its callbacks (then its end) arrive on."""
        invocation = secrets.token_hex(8)
        events: queue.SimpleQueue[Callback | Finished] = queue.SimpleQueue()
        self._live[invocation] = events
        return invocation, events

    def close(self, invocation: str) -> None:
        self._live.pop(invocation, None)

    def receive(self, request_id: RequestId, method: str, params: object) -> tuple[int, str] | None:
        """Route a request from the server; an error ``(code, message)`` to send back when refused."""
        if method != CALL_TOOL:
            return UNKNOWN_METHOD, f"method not found: {method}"
        params = params if isinstance(params, Mapping) else {}
        token = params.get("callbackToken")
        if not isinstance(token, str) or not hmac.compare_digest(token, self.secret):
            return REFUSED, "callback refused: it does not carry this session's secret"
        events = self._live.get(str(params.get("invocationId")))
        if events is None:
            return (
                REFUSED,
                "callback refused: it names no call in progress (a tool may call tools only while it runs)",
            )
        name, arguments = params.get("name"), params.get("arguments", {})
        if not isinstance(name, str) or not name or not isinstance(arguments, Mapping):
            return REFUSED, "callback refused: it needs `name` (text) and `arguments` (an object)"
        found_delta, found_deleted = params.get("memoryDelta"), params.get("memoryDeletions")
        delta: Mapping[object, object] = found_delta if isinstance(found_delta, Mapping) else {}
        deleted: list[object] = found_deleted if isinstance(found_deleted, list) else []
        events.put(
            Callback(
                request_id,
                name,
                dict(arguments),
                {str(k): v for k, v in delta.items() if isinstance(v, str)},
                [str(k) for k in deleted if isinstance(k, str)],
            )
        )
        return None


def envelope(ctx: ToolContext, session_id: str, target: Target | None = None) -> JsonObject:
    """``_meta.trailblaze`` of a call: what the tool may know of the session (no secret values)."""
    memory = ctx.memory
    public = memory.public()
    secret_keys: list[JsonValue] = list(memory.secret_keys())
    found: JsonObject = {
        "sessionId": session_id,
        "device": ctx.device.as_context(),
        "memory": dict(public),
        "secretKeys": secret_keys,
    }
    base_url = None
    if target is not None:
        config = target.platform(ctx.device.platform)
        app_ids: list[JsonValue] = list(config.app_ids) if config else []
        base_url = config.base_url if config else None
        shown: JsonObject = {"id": target.id, "displayName": target.display_name, "appIds": app_ids}
        if base_url:
            shown["baseUrls"] = [base_url]
        found["target"] = shown
    base = public.get("baseUrl") or base_url
    if base:
        found["baseUrl"] = base
    return found


def serve(ctx: ToolContext, callback: Callback) -> tuple[JsonObject, BaseException | None]:
    """Run a callback's tool on the trail's thread; the reply, and a fatal error to raise once the
    outer call has ended (the tool is told it failed, so it can unwind first)."""
    memory = ctx.memory
    for key, value in callback.memory_delta.items():
        memory.set(key, value)
    for key in callback.memory_deletions:
        memory.delete(key)
    fatal: BaseException | None = None
    try:
        result = ctx.run(callback.name, callback.arguments)
    except FatalToolError as exc:
        reply: JsonObject = {"success": False, "errorMessage": memory.mask(str(exc))}
        fatal = exc
    except ToolError as exc:
        reply = {"success": False, "errorMessage": memory.mask(str(exc))}
    except Exception as exc:  # a broken tool of ours or the user's: the trail cannot trust what follows
        reply = {"success": False, "errorMessage": memory.mask(f"{type(exc).__name__}: {exc}")}
        fatal = exc
    else:
        reply = {"success": True, "textContent": memory.mask(result.message)}
        if result.data is not None:
            reply["structuredContent"] = memory.mask(as_json(result.data))
    reply["memory"] = dict(memory.public())
    reply["secretKeys"] = list(memory.secret_keys())
    return reply, fatal
