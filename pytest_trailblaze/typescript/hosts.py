"""The processes that run a trailmap's TypeScript tools: one per session scope and trailmap.

A host is ``assets/host.mjs`` on Bun (else Node + tsx), started and stopped like an MCP server
(its own process group, the handshake watchdog, stderr kept masked in a log and a tail, the
reaper, close stdin -> SIGTERM -> SIGKILL) on the worker's MCP loop. A tool's call carries the
session in ``_meta.trailblaze``; its ``ctx.tools`` calls come back on the same pipe and run on the
trail's thread (``mcp/callbacks.py``). A host stopped after a call timed out is started afresh
for the next call.
"""

from __future__ import annotations

import json
import re
from collections.abc import Hashable
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.errors import ConfigurationError, FatalToolError, ToolFailure, ToolServerError
from ..core.jsondata import JsonObject
from ..core.system import waits
from ..core.tooling.context import DeviceInfo, ToolContext
from ..core.tooling.tooldef import ToolResult
from ..mcp.callbacks import envelope
from ..mcp.launch import LaunchSpec
from ..mcp.results import memory_writes
from ..mcp.server import McpServer, new_session_id
from ..mcp.toolsets import McpToolsets, device_environment
from . import ASSETS
from .discovery import shown
from .runtime import find_runtime

if TYPE_CHECKING:
    import mcp_types as types

    from ..workspace.model import Target
    from .ts_tools import TsTool

HOST = ASSETS / "host.mjs"
#: Stack lines: ``at fn (file:line:col)`` (V8, Bun) and ``fn@file:line:col``.
_FRAME = re.compile(r"(?:\(|at |@)((?:file://)?/[^():\s]+):(\d+):(\d+)\)?\s*$")


class TsHosts:
    """This worker's TypeScript hosts, by (session scope, tools folder); a companion of its
    ``McpToolsets`` (the same loop, log folder, masking, timeouts and teardown).

    A session's hosts start in the background as soon as its registry is built (the browser
    starts meanwhile), so a trail's first TypeScript call finds its host ready."""

    def __init__(self, mcp: McpToolsets) -> None:
        self.mcp = mcp
        self._hosts: dict[tuple[Hashable, Path], McpServer] = {}
        self._starting: dict[tuple[Hashable, Path], Future[McpServer]] = {}
        self._starter = ThreadPoolExecutor(max_workers=2, thread_name_prefix="trailblaze-ts-host")
        self._sessions: dict[Hashable, str] = {}
        self._logs: dict[Hashable, list[Path]] = {}

    @classmethod
    def of(cls, mcp: McpToolsets) -> TsHosts:
        return mcp.companion(cls, cls)

    def binding(
        self, scope: Hashable, target: Target | None, device: DeviceInfo, tools: list[TsTool]
    ) -> TsBinding:
        """What a session's TypeScript tools call through: its hosts, its target and device."""
        manifests: dict[Path, dict[str, dict[str, str]]] = {}
        for tool in tools:
            d = tool.definition
            manifests.setdefault(d.tools_dir, {})[d.name] = {"file": str(d.file), "export": d.export}
        session = self._sessions.setdefault(scope, new_session_id(self.mcp.worker))
        binding = TsBinding(self, scope, session, target, device, manifests)
        for tools_dir in manifests:
            key = (scope, tools_dir)
            if key not in self._hosts and key not in self._starting:
                self._starting[key] = self._starter.submit(self._start, binding, tools_dir)
        return binding

    def ready(self) -> None:
        """Wait until the hosts starting in the background are up (or have failed)."""
        for starting in list(self._starting.values()):
            with suppress(Exception):  # a host that failed says so when a tool calls it
                waits.result(starting)

    def server(self, binding: TsBinding, tools_dir: Path) -> McpServer:
        """The running host of the binding's scope and ``tools_dir`` (started now if it is not, or
        afresh if it was stopped after a timeout)."""
        key = (binding.scope, tools_dir)
        starting = self._starting.pop(key, None)
        if starting is not None:
            self._hosts[key] = waits.result(starting)  # its start-up error, if any, is the call's
        running = self._hosts.get(key)
        if running is not None and not running.broken:
            return running
        if running is not None:
            running.stop()
        self._hosts[key] = self._start(binding, tools_dir)
        return self._hosts[key]

    def _start(self, binding: TsBinding, tools_dir: Path) -> McpServer:
        try:
            runtime = find_runtime((tools_dir.resolve(),))
        except ConfigurationError as exc:
            raise FatalToolError(str(exc)) from None
        trailmap = tools_dir.parent.name
        launch = LaunchSpec(
            f"ts-{trailmap}",
            runtime.argv(HOST),
            tools_dir,
            tools_dir,
            {"TRAILBLAZE_TS_TOOLS": json.dumps(binding.manifests[tools_dir]), **runtime.environment()},
        )
        env = device_environment(binding.device, binding.session)
        try:
            server = self.mcp.start_server(launch, env, binding.session)
        except ToolServerError as exc:
            raise FatalToolError(
                f"the TypeScript tools of trailmap '{trailmap}' could not start:\n{exc}"
            ) from None
        self._logs.setdefault(binding.scope, []).append(server.connection.log_path)
        return server

    def logs(self, scope: Hashable) -> list[Path]:
        return [path for path in self._logs.get(scope, []) if path.exists()]

    def close(self) -> None:
        """Stop the hosts; one still starting is left to the loop's close, which kills it."""
        for key, starting in list(self._starting.items()):
            if starting.done() and starting.exception() is None:
                self._hosts.setdefault(key, starting.result())
        self._starter.shutdown(wait=False, cancel_futures=True)
        for server in self._hosts.values():
            server.stop()
        self._hosts.clear()
        self._starting.clear()


@dataclass
class TsBinding:
    """A session's way to run its TypeScript tools."""

    hosts: TsHosts
    scope: Hashable
    session: str
    target: Target | None
    device: DeviceInfo
    manifests: dict[Path, dict[str, dict[str, str]]]

    def call(self, tool: TsTool, ctx: ToolContext, args: JsonObject) -> ToolResult:
        """Run ``tool``; its thrown error fails the step with the message and the ``.ts`` line."""
        definition = tool.definition
        server = self.hosts.server(self, definition.tools_dir)
        meta = envelope(ctx, self.session, self.target)
        result = server.call_result(tool.name, args, ctx=ctx, meta=meta)
        if result.is_error:
            raise ToolFailure(_thrown(tool.name, result, definition.tools_dir, ctx), tool=tool.name)
        writes = memory_writes(result.meta)
        writes.apply(ctx.memory)
        text = next((c.text for c in result.content or [] if c.type == "text"), "")
        return ToolResult(message=text, data=result.structured_content)


def _thrown(name: str, result: types.CallToolResult, tools_dir: Path, ctx: ToolContext) -> str:
    """``tool 'x' threw Error: message`` and where: the first frame of the stack in ``tools/``."""
    error = ((result.meta or {}).get("trailblaze") or {}).get("error") or {}
    text = next((c.text for c in result.content or [] if c.type == "text"), "")
    message = str(error.get("message", text)) if isinstance(error, dict) else text
    kind = str(error.get("name", "Error")) if isinstance(error, dict) else "Error"
    lines = [
        f"tool '{name}' threw {kind}: {message}"
        if kind != "ToolCallError"
        else f"tool '{name}' failed: {message}"
    ]
    where = _location(str(error.get("stack", "")) if isinstance(error, dict) else "", tools_dir)
    if where:
        lines.append(f"  at {where}")
    masked: str = ctx.memory.mask("\n".join(lines))
    return masked


def _location(stack: str, tools_dir: Path) -> str | None:
    root = tools_dir.resolve()
    for line in stack.splitlines()[1:]:
        match = _FRAME.search(line.strip())
        if not match:
            continue
        path = Path(match.group(1).removeprefix("file://"))
        if path.is_relative_to(root) and "node_modules" not in path.parts:
            return f"{shown(path)}:{match.group(2)}:{match.group(3)}"
    return None
