"""Static checks of trails and workspaces, without a device: the engine of ``trailblaze check``.

A trail is checked per platform it records for: its file must load, its ``config.target`` must
exist in its workspace, and its calls pass the static checks collection runs too
(``core.staticcheck``: tools exist and run on the platform, arguments match the tool's schema at
every depth of composition, ``{{args.x}}`` is declared). Unlike collection, ``check`` starts the
targets' MCP servers, so calls to their tools are checked against the advertised ``inputSchema``.
Each workspace met on the way is checked once: its files, tool definitions (the calls of composed
tools included, whoever calls them), naming and scoping.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass, field
from fnmatch import fnmatch
from pathlib import Path

from .core.errors import (
    Problem,
    RegistryError,
    SourceSpan,
    ToolServerError,
    TrailblazeError,
    TrailLoadError,
    first_line,
)
from .core.system.files import DEFAULT_MAX_BYTES
from .core.tooling.composition import Composed
from .core.tooling.memory import expansion_problems
from .core.tooling.registry import ToolRegistry
from .core.tooling.staticcheck import CallScope, definition_problems, path_problem, trail_problems, unique
from .core.tooling.tooldef import ToolDescriptor
from .core.trail.filenames import TRAIL_FILE_PATTERNS
from .core.trail.model import Trail
from .core.trail.parse import load_trail, script_problems
from .mcp.server import handshake_timeout_default
from .mcp.serverlog import CommandLogs
from .mcp.toolsets import McpToolsets
from .session.registries import discovery_device, discovery_registry
from .session.trail_walk import trail_files, workspaces_under
from .session.workspaces import load_workspace, loader_of
from .tools import builtin_tools
from .typescript.checks import TsCheckOptions, check_typescript
from .workspace import Target, Workspace, code_roots, find_config_dir, trail_target
from .workspace.exemption import exempted


@dataclass
class CheckReport:
    """What a check found."""

    files: int = 0
    trails: int = 0
    workspaces: int = 0
    problems: list[Problem] = field(default_factory=list)

    def findings(self, *, strict: bool) -> list[Problem]:
        """Problems that fail the check: errors, and warnings too when ``strict``."""
        return [p for p in self.problems if strict or p.severity == "error"]


class Checker:
    """Checks trails, loading each workspace once and building one registry per scope.

    A target's MCP servers are started (with a nominal device, see ``discovery_device``) so that
    calls to their tools are checked like any other, and stopped when the check ends; with
    ``servers=False`` they are not, and calls no other source knows become warnings.
    """

    def __init__(
        self,
        *,
        config_dir: Path | None = None,
        strict: bool = False,
        servers: bool = True,
        log_dir: Path | None = None,
        allow_outside_code: bool = False,
        max_file_bytes: int = DEFAULT_MAX_BYTES,
        typescript: TsCheckOptions | None = None,
    ) -> None:
        self.builtins = builtin_tools()
        self.max_file_bytes = max_file_bytes
        #: What to do for TypeScript tools: run their tests, type-check them (both by default).
        self.typescript = typescript or TsCheckOptions()
        self.loader = loader_of(
            strict=strict, allow_outside_code=allow_outside_code, max_file_bytes=max_file_bytes
        )
        self.config_dir = config_dir
        self.strict = strict
        self.report = CheckReport()
        self.servers = servers
        #: Server logs go to ``log_dir``, or (made when the first server starts) to a folder of this
        #: check's own that ``run`` removes unless a problem names a log in it.
        self.log_dir = log_dir
        self._own_logs: CommandLogs | None = None
        self._mcp: McpToolsets | None = None
        self._noted: set[Problem] = set()
        self._workspaces: list[Workspace] = []
        self._registries: dict[
            tuple[Path | None, str, str], ToolRegistry | ToolServerError | RegistryError
        ] = {}

    def run(self, paths: Iterable[Path]) -> CheckReport:
        paths = list(paths)
        try:
            for config_dir in workspaces_under(paths):
                self.workspace(config_dir)
            for path, root in trail_files(paths):
                self.check_file(path, root)
            self.check_definitions()
            self.check_scripted_tools()
        finally:
            if self._mcp is not None:
                self._mcp.close()
            if self._own_logs is not None:  # also when the check was interrupted
                self._own_logs.finish(problem.format() for problem in self.report.problems)
        self.report.problems = unique(self.report.problems)
        return self.report

    def workspace(self, config_dir: Path) -> Workspace:
        ws, fresh = load_workspace(self.loader, config_dir)
        if fresh:
            self.report.workspaces += 1
            self.report.problems.extend(ws.problems)
            self.report.problems.extend(p for listed in ws.unlisted.values() for _, p in listed)
            self._workspaces.append(ws)
        return ws

    def registry(
        self, ws: Workspace | None, target: Target | None, platform: str
    ) -> ToolRegistry | TrailblazeError:
        """The registry a session would have, or why the target's tools cannot be known."""
        key = (ws.config_dir if ws else None, target.id if target else "", platform)
        if key not in self._registries:
            mcp = self.mcp if self.servers else None
            try:
                registry, findings = discovery_registry(
                    self.builtins, ws, target, discovery_device(platform), mcp, key, strict=self.strict
                )
            except (ToolServerError, RegistryError) as exc:
                self._registries[key] = exc
                return exc
            self.note_names(findings)
            self._registries[key] = registry
        return self._registries[key]

    def note_names(self, findings: list[Problem]) -> None:
        """Naming advice on a server's tools, once per tool, at the target that declares the server."""
        for finding in findings:
            if finding not in self._noted:
                self._noted.add(finding)
                self.report.problems.append(finding)

    def mcp(self) -> McpToolsets:
        if self._mcp is None:
            if self.log_dir is None:
                self._own_logs = CommandLogs("check")
                self.log_dir = self._own_logs.path
            self._mcp = McpToolsets(
                self.log_dir, handshake_timeout=handshake_timeout_default(), call_timeout=30.0, worker="check"
            )
        return self._mcp

    def check_file(self, path: Path, root: Path | None = None) -> None:
        """Check one trail file; ``root``: the folder it was found in (a link may not leave it)."""
        self.report.files += 1
        broken = path_problem(path, _pattern_of(path))
        if broken is not None:
            self.report.problems.append(broken)
            return
        try:
            trail = load_trail(path, limit=self.max_file_bytes, root=root)
        except TrailLoadError as exc:
            self.report.problems.extend(exc.problems)
            return
        self.report.trails += 1
        config_dir = find_config_dir(path, self.config_dir)
        ws = self.workspace(config_dir) if config_dir else None
        code = code_roots(Path.cwd(), config_dir, self.loader.allow_outside_code)
        self.report.problems.extend(script_problems(trail, path.parent, code))
        defaults = {name: decl.default for name, decl in trail.config.args.items() if not decl.required}
        self.report.problems.extend(expansion_problems(trail.config.args, defaults))
        # A broken workspace is reported once (above); its trails are still checked against what loaded.
        target, unknown = trail_target(trail, ws)
        if unknown is not None:
            self.report.problems.append(unknown)
        scopes = {}
        for platform in trail.platforms() or ("web",):
            registry = self.registry(ws, target, platform)
            if isinstance(registry, TrailblazeError):
                self.report.problems.append(_unknowable(trail, target, registry))
                continue
            scopes[platform] = self.scope(trail, target, registry)
        self.report.problems.extend(exempted(trail_problems(trail, scopes), target))

    def check_scripted_tools(self) -> None:
        """Each workspace's TypeScript tools: editor typings written, types checked, tests run."""
        for ws in self._workspaces:
            if ws.ts_tools or any((p.parent / "tools").is_dir() for p in ws.trailmaps.values()):
                found = check_typescript(ws, functools.partial(self.callable, ws), self.typescript)
                self.report.problems.extend(found)

    def callable(self, ws: Workspace, target: Target | None) -> tuple[list[ToolDescriptor], bool]:
        """The tools a target's sessions can call (its first platform's registry), and whether more
        may exist than listed (servers not started, or not startable)."""
        platforms = list(target.platforms) if target else []
        platform = {"compose": "desktop"}.get(platforms[0], platforms[0]) if platforms else "web"
        registry = self.registry(ws, target, platform)
        has_servers = target is not None and bool(target.mcp_servers)
        if isinstance(registry, TrailblazeError):
            fallback = ToolRegistry(platform=platform)
            fallback.register_all([*self.builtins, *ws.tools])
            return fallback.descriptors(), True
        return registry.descriptors(), has_servers and not self.servers

    def scope(self, trail: Trail, target: Target | None, registry: ToolRegistry) -> CallScope:
        """Unknown names are errors, unless the target's MCP servers were not started."""
        unverified = target is not None and bool(target.mcp_servers) and not self.servers
        return CallScope(
            registry,
            frozenset(trail.config.args),
            unknown="warn" if unverified else "error",
            unverified=(
                "no built-in or workspace tool has this name, and MCP servers were not started",
                "run without --no-servers to check it",
            ),
        )

    def check_definitions(self) -> None:
        """The calls of every composed tool, whoever calls them (a trail's calls are checked with
        their own arguments in ``check_file``; what both find is reported once)."""
        for ws in self._workspaces:
            names = not any(t.mcp_servers for t in ws.targets.values())
            registry = ToolRegistry(platform="web")
            registry.register_all(self.builtins)
            try:
                registry.register_all(ws.tools)
            except RegistryError:
                continue  # reported by the workspace loader
            for tool in ws.tools:
                if isinstance(tool, Composed):
                    self.report.problems.extend(definition_problems(tool, tool.name, registry, names=names))


def _unknowable(trail: Trail, target: Target | None, error: TrailblazeError) -> Problem:
    span = trail.config.spans.get("target") or SourceSpan(trail.path, 1, 1)
    fix = "rename one of them" if isinstance(error, RegistryError) else "fix the MCP server"
    what = f"cannot check the tools of target '{target.id if target else ''}'"
    # a server's failure says its command, the last lines of its stderr and its log: keep them
    lines = str(error).strip().splitlines() or [first_line(error)]
    why = "\n".join([lines[0], *(f"  {line}" for line in lines[1:])])
    return Problem(span, what, why=why, fix=fix)


def _pattern_of(path: Path) -> str:
    return next((p for p in TRAIL_FILE_PATTERNS if fnmatch(path.name, p)), TRAIL_FILE_PATTERNS[0])


