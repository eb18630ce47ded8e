"""The tools of a session scope: built-in, workspace, hook-registered and MCP tools, in one registry.

Sessions are scoped as upstream (target, platform, driver, agent mode): one registry per
scope per worker, built on first use.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Hashable, Iterable, Mapping
from pathlib import Path
from typing import Protocol, TypeAlias

from ..core.errors import Problem, RegistryError, TrailblazeError
from ..core.tooling.context import DeviceInfo, ToolContext
from ..core.tooling.registry import ToolRegistry
from ..core.tooling.tooldef import Tool, ToolResult
from ..mcp.server_tools import naming_findings
from ..mcp.toolsets import McpToolsets
from ..tools import builtin_tools
from ..workspace import Target, Workspace


class ToolCatalog:
    """Tools contributed by plugins and conftest files, shared by every session registry."""

    def __init__(self) -> None:
        self._tools: list[Tool] = []

    def register(self, tool: Tool) -> None:
        if not isinstance(tool, Tool):
            raise TypeError(f"register() takes a tool made with @trailblaze.tool, not {type(tool).__name__}")
        self._tools.append(tool)

    def tools(self) -> list[Tool]:
        return list(self._tools)


#: A session scope: (workspace config folder, target id, platform, driver key, agent mode).
ScopeKey: TypeAlias = tuple[Path | None, str, str, str, str]


class ToolHooks(Protocol):
    """The ``pytest_trailblaze_*_tool`` hooks (pytest's ``config.hook`` has them)."""

    def pytest_trailblaze_before_tool(
        self, *, name: str, args: Mapping[str, object], context: ToolContext
    ) -> object: ...

    def pytest_trailblaze_after_tool(
        self, *, name: str, args: Mapping[str, object], result: ToolResult, context: ToolContext
    ) -> object: ...

    def pytest_trailblaze_tool_error(
        self, *, name: str, args: Mapping[str, object], error: BaseException, context: ToolContext
    ) -> object: ...


class HookObserver:
    """Forwards every tool call of a registry to the ``pytest_trailblaze_*_tool`` hooks."""

    def __init__(self, hook: ToolHooks) -> None:
        self.hook = hook

    def before_tool(self, name: str, args: Mapping[str, object], ctx: ToolContext) -> None:
        self.hook.pytest_trailblaze_before_tool(name=name, args=args, context=ctx)

    def after_tool(self, name: str, args: Mapping[str, object], result: ToolResult, ctx: ToolContext) -> None:
        self.hook.pytest_trailblaze_after_tool(name=name, args=args, result=result, context=ctx)

    def tool_error(
        self, name: str, args: Mapping[str, object], error: BaseException, ctx: ToolContext
    ) -> None:
        self.hook.pytest_trailblaze_tool_error(name=name, args=args, error=error, context=ctx)


def assemble(
    platform: str,
    workspace_tools: Iterable[Tool] = (),
    *,
    catalog: Iterable[Tool] = (),
    builtins: Iterable[Tool] | None = None,
    driver_key: str = "",
    agent_mode: str = "host",
) -> ToolRegistry:
    """A session's registry before its MCP servers' tools: the built-in tools (``builtins``, else
    all of them), the workspace's, then those hook-registered (``catalog``). A name two of them
    give is a ``RegistryError`` naming both sources; a tool the platform, driver or agent mode
    cannot run is left out."""
    registry = ToolRegistry(platform=platform, driver_key=driver_key, agent_mode=agent_mode)
    registry.register_all(builtin_tools() if builtins is None else builtins)
    registry.register_all(workspace_tools)
    registry.register_all(catalog)
    return registry


def advise(problem: Problem, fallback_path: str, category: type[Warning] = UserWarning) -> None:
    """Show advice as a warning (of ``category``) located at the file and line it is about."""
    span = problem.span
    path, line = (span.path, span.line) if span else (fallback_path, 0)
    warnings.warn_explicit(category(problem.format()), category, path, line)


class SessionRegistries:
    """Registries per session scope for this worker: (workspace, target, platform, driver, agent mode).

    A scope's registry holds the built-in tools, the workspace's tools, the catalog's tools and
    the tools of the target's MCP servers (started when the scope's first trail needs them). A
    scope that failed to build fails the same way for every later trail, without retrying.
    ``hook`` gets every tool call (``pytest_trailblaze_*_tool``); ``warn`` shows naming advice
    on servers' tools (``advise``: a Python warning, unless the host shows advice its own way).
    """

    def __init__(
        self,
        catalog: ToolCatalog,
        hook: ToolHooks,
        mcp: McpToolsets,
        *,
        strict: bool = False,
        warn: Callable[[Problem, str], None] = advise,
    ) -> None:
        self.catalog = catalog
        self.hook = hook
        self.mcp = mcp
        #: ``--trailblaze-strict``: naming findings on servers' tools are errors of the scope's trails.
        self.strict = strict
        self.warn = warn
        self._registries: dict[ScopeKey, ToolRegistry] = {}
        self._failures: dict[ScopeKey, TrailblazeError] = {}

    def server_logs(
        self, workspace: Workspace | None, target: Target | None, device: DeviceInfo, agent_mode: str
    ) -> list[Path]:
        """The log files of the MCP servers of a scope (copied into its trails' artifacts)."""
        return self.mcp.logs(self.scope(workspace, target, device, agent_mode))

    @staticmethod
    def scope(
        workspace: Workspace | None, target: Target | None, device: DeviceInfo, agent_mode: str
    ) -> ScopeKey:
        return (
            workspace.config_dir if workspace else None,
            target.id if target else "",
            device.platform,
            device.driver_key,
            agent_mode,
        )

    def get(
        self, *, workspace: Workspace | None, target: Target | None, device: DeviceInfo, agent_mode: str
    ) -> ToolRegistry:
        key = self.scope(workspace, target, device, agent_mode)
        if key in self._failures:
            raise type(self._failures[key])(str(self._failures[key]))
        if key not in self._registries:
            try:
                self._registries[key] = self._build(key, workspace, target, device, agent_mode)
            except TrailblazeError as exc:
                self._failures[key] = exc
                raise
        self.mcp.check_alive(key)
        return self._registries[key]

    def _build(
        self,
        key: ScopeKey,
        workspace: Workspace | None,
        target: Target | None,
        device: DeviceInfo,
        agent_mode: str,
    ) -> ToolRegistry:
        tools = self._workspace_tools(key, workspace, target, device)
        catalog, platform, driver_key = self.catalog.tools(), device.platform, device.driver_key
        registry = assemble(platform, tools, catalog=catalog, driver_key=driver_key, agent_mode=agent_mode)
        if target is not None and target.mcp_servers:
            served = self.mcp.tools_for(key, target, device, agent_mode)
            findings = naming_findings(served, target.span, strict=self.strict)
            if self.strict and findings:  # as `trailblaze check --strict` reports them: errors
                raise RegistryError("\n".join(finding.format() for finding in findings))
            for finding in findings:
                self.warn(finding, str(target.source))
            registry.register_all(served)
        registry.observers.append(HookObserver(self.hook))
        return registry

    def _workspace_tools(
        self, key: ScopeKey, workspace: Workspace | None, target: Target | None, device: DeviceInfo
    ) -> list[Tool]:
        """The workspace's tools, its TypeScript tools bound to this scope's hosts."""
        tools = list(workspace.tools) if workspace else []
        if not workspace or not workspace.ts_tools:
            return tools
        # Imported here, not at the top: TypeScript hosts and discovery cost every process about
        # 11 ms of start-up (python -X importtime) that only workspaces with TypeScript tools need.
        from ..typescript.hosts import TsHosts
        from ..typescript.ts_tools import TsTool, bind

        scripted = [t for t in tools if isinstance(t, TsTool)]
        return bind(tools, TsHosts.of(self.mcp).binding(key, target, device, scripted))


DEFAULT_DRIVERS = {"web": "playwright-native"}


def discovery_registry(
    builtins: Iterable[Tool],
    ws: Workspace | None,
    target: Target | None,
    device: DeviceInfo,
    mcp: Callable[[], McpToolsets] | None,
    scope: Hashable,
    *,
    strict: bool = False,
) -> tuple[ToolRegistry, list[Problem]]:
    """The tools a session of ``target`` on ``device`` offers, as ``check`` and ``toolbox`` see them,
    and naming advice on what its MCP servers advertise (servers are started only when ``mcp`` is given).

    Raises ``ToolServerError`` when a server cannot start and ``RegistryError`` on a name collision.
    """
    tools = ws.tools if ws else ()
    registry = assemble(device.platform, tools, builtins=builtins, driver_key=device.driver_key)
    if mcp is None or target is None or not target.mcp_servers:
        return registry, []
    served = mcp().tools_for(scope, target, device, "host")
    registry.register_all(served)
    return registry, naming_findings(served, target.span, strict=strict)


def discovery_device(platform: str) -> DeviceInfo:
    """The nominal device ``check`` and ``toolbox`` give MCP servers they start to list tools."""
    width, height = {"web": (1280, 800), "android": (1080, 2400), "ios": (1179, 2556)}.get(
        platform, (1280, 800)
    )
    return DeviceInfo(platform, DEFAULT_DRIVERS.get(platform, ""), width, height)
