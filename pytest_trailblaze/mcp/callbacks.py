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
from typing import Any

from ..core.errors import FatalToolError, ToolError
from ..core.tooling.context import ToolContext

CALL_TOOL = "trailblaze/callTool"
#: JSON-RPC error codes of our replies.
REFUSED = -32001
UNKNOWN_METHOD = -32601


@dataclass(frozen=True)
class Callback:
    """A ``trailblaze/callTool`` request, accepted: which tool, with what, and the memory written."""

    request_id: Any
    name: str
    arguments: dict[str, Any]
    memory_delta: dict[str, str] = field(default_factory=dict)
    memory_deletions: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Finished:
    """The call itself ended (its task is done): the loop on the trail's thread stops waiting."""

    task: Any


class CallbackRouter:
    """The calls in progress on one server connection and the secret its callbacks must carry."""

    def __init__(self) -> None:
        self.secret = secrets.token_urlsafe(24)
        self._live: dict[str, queue.SimpleQueue[Any]] = {}

    def open(self) -> tuple[str, queue.SimpleQueue[Any]]:
        """A new call: its invocation id and the queue its callbacks (then its end) arrive on."""
        invocation = secrets.token_hex(8)
        events: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._live[invocation] = events
        return invocation, events

    def close(self, invocation: str) -> None:
        self._live.pop(invocation, None)

    def receive(self, request_id: Any, method: str, params: Any) -> tuple[int, str] | None:
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
        delta = params.get("memoryDelta") if isinstance(params.get("memoryDelta"), Mapping) else {}
        deleted = params.get("memoryDeletions") if isinstance(params.get("memoryDeletions"), list) else []
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


def envelope(ctx: ToolContext, session_id: str, target: Any = None) -> dict[str, Any]:
    """``_meta.trailblaze`` of a call: what the tool may know of the session (no secret values)."""
    memory = ctx.memory
    public = memory.public()
    found: dict[str, Any] = {
        "sessionId": session_id,
        "device": ctx.device.as_context(),
        "memory": public,
        "secretKeys": memory.secret_keys(),
    }
    if target is not None:
        config = target.platform(ctx.device.platform)
        app_ids = list(config.app_ids) if config else []
        base_url = config.base_url if config else None
        found["target"] = {
            "id": target.id,
            "displayName": target.display_name,
            "appIds": app_ids,
            **({"baseUrls": [base_url]} if base_url else {}),
        }
    base = public.get("baseUrl") or (found.get("target", {}).get("baseUrls") or [None])[0]
    if base:
        found["baseUrl"] = base
    return found


def serve(ctx: ToolContext, callback: Callback) -> tuple[dict[str, Any], BaseException | None]:
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
        reply: dict[str, Any] = {"success": False, "errorMessage": memory.mask(str(exc))}
        fatal = exc
    except ToolError as exc:
        reply = {"success": False, "errorMessage": memory.mask(str(exc))}
    except Exception as exc:  # a broken tool of ours or the user's: the trail cannot trust what follows
        reply = {"success": False, "errorMessage": memory.mask(f"{type(exc).__name__}: {exc}")}
        fatal = exc
    else:
        reply = {"success": True, "textContent": memory.mask(result.message)}
        if result.data is not None:
            reply["structuredContent"] = memory.mask(result.data)
    reply["memory"] = memory.public()
    reply["secretKeys"] = memory.secret_keys()
    return reply, fatal
