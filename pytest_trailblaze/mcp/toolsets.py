"""The MCP servers of each session scope of this worker: started on first use, reused, stopped at the end.

A session scope is (workspace, target, platform, driver, agent mode), as upstream. A server that
cannot start, or that died, makes every later trail of its scope an ERROR with the same cause
instead of a hang or a slow repeat of the failure.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from pathlib import Path
from typing import Protocol, TypeVar

from ..core.errors import ConfigurationError, ToolServerError
from ..core.masking import Masker
from ..core.tooling.context import DeviceInfo
from ..workspace.model import Target
from ..workspace.schema import McpServerSpec
from .launch import LaunchSpec, resolve_server
from .server import McpServer, Portal, new_session_id
from .server_tools import McpTool, skip_reason


class Companion(Protocol):
    """A helper that shares the servers' loop: its logs are listed with theirs, it closes first."""

    def logs(self, scope: Hashable) -> list[Path]: ...

    def close(self) -> None: ...


T = TypeVar("T", bound=Companion)


def device_environment(device: DeviceInfo, session_id: str) -> dict[str, str]:
    """The ``TRAILBLAZE_*`` variables a server sees (docs/guides/mcp.md)."""
    return {
        "TRAILBLAZE_DEVICE_PLATFORM": device.platform.upper(),
        "TRAILBLAZE_DEVICE_DRIVER": device.driver_key,
        "TRAILBLAZE_DEVICE_WIDTH_PX": str(device.width),
        "TRAILBLAZE_DEVICE_HEIGHT_PX": str(device.height),
        "TRAILBLAZE_SESSION_ID": session_id,
    }


class McpToolsets:
    """Every MCP server this worker started, by session scope."""

    def __init__(
        self,
        log_dir: Path,
        *,
        handshake_timeout: float,
        call_timeout: float,
        worker: str = "main",
        masker: Masker | None = None,
    ) -> None:
        self.log_dir = log_dir
        #: Masks the run's secrets in what servers write to their logs and stderr tails.
        self.masker = masker or Masker()
        self.handshake_timeout = handshake_timeout
        self.call_timeout = call_timeout
        self.worker = worker
        self.portal = Portal()
        self._servers: dict[Hashable, list[McpServer]] = {}
        self._failures: dict[Hashable, str] = {}
        self._tools: dict[Hashable, list[McpTool]] = {}
        self._companions: list[Companion] = []

    def companion(self, kind: type[T], make: Callable[[McpToolsets], T]) -> T:
        """The one ``kind`` helper of this worker (made by ``make`` on first use) that shares its
        servers' loop, logs and teardown: the TypeScript tool hosts."""
        for found in self._companions:
            if isinstance(found, kind):
                return found
        made = make(self)
        self._companions.append(made)
        return made

    def tools_for(
        self, scope: Hashable, target: Target, device: DeviceInfo, agent_mode: str
    ) -> list[McpTool]:
        """Start the target's servers for ``scope`` (once) and return their registrable tools."""
        if scope in self._failures:
            raise ToolServerError(self._failures[scope])
        if scope in self._tools:
            return list(self._tools[scope])
        session_id = new_session_id(self.worker)
        env = device_environment(device, session_id)
        servers: list[McpServer] = []
        self._servers[scope] = servers
        tools: list[McpTool] = []
        try:
            for spec in target.mcp_servers:
                server = self._start(spec, target, env, session_id)
                servers.append(server)
                tools += [
                    McpTool(server, t, session_id=session_id, target=target)
                    for t in server.tools
                    if skip_reason(
                        t.meta, platform=device.platform, driver_key=device.driver_key, agent_mode=agent_mode
                    )
                    is None
                ]
        except ToolServerError as exc:
            self._failures[scope] = str(exc)
            raise
        self._tools[scope] = tools
        return tools

    def _start(self, spec: McpServerSpec, target: Target, env: dict[str, str], session_id: str) -> McpServer:
        try:
            launch = resolve_server(spec, target.source, target.script_roots)
        except ConfigurationError as exc:
            raise ToolServerError(f"MCP server of target '{target.id}' ({target.source}): {exc}") from None
        return self.start_server(launch, env, session_id)

    def start_server(self, launch: LaunchSpec, env: dict[str, str], session_id: str) -> McpServer:
        """Start a server on this worker's loop, its log beside the others (``ToolServerError``
        when it cannot start)."""
        log_path = self.log_dir / f"{session_id}-{launch.name}.log"
        server = McpServer(
            launch,
            portal=self.portal,
            device_env=env,
            log_path=log_path,
            handshake_timeout=self.handshake_timeout,
            call_timeout=self.call_timeout,
            masker=self.masker,
        )
        server.start()
        return server

    def check_alive(self, scope: Hashable) -> None:
        """Raise the cause when a server of ``scope`` died or was stopped after a timeout."""
        if scope in self._failures:
            raise ToolServerError(self._failures[scope])
        cause = next((s.broken for s in self._servers.get(scope, []) if s.broken), None)
        if cause is not None:
            self._failures[scope] = cause
            raise ToolServerError(cause)

    def logs(self, scope: Hashable) -> list[Path]:
        found = [s.connection.log_path for s in self._servers.get(scope, [])]
        found = [path for path in found if path.exists()]
        return found + [path for companion in self._companions for path in companion.logs(scope)]

    def close(self) -> None:
        """Stop every server (close stdin, 5 s, SIGTERM, 2 s, SIGKILL), then the event loop."""
        try:
            for companion in self._companions:
                companion.close()
            for servers in self._servers.values():
                for server in servers:
                    server.stop()
        finally:
            self._servers.clear()
            self._tools.clear()
            self._companions.clear()
            self.portal.close()
