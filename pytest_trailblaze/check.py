"""Static checks of trails and workspaces, without a device: the engine of ``trailblaze check``.

A trail is checked per platform it records for: its file must load, its ``config.target`` must
exist in its workspace, every recorded tool must exist and run on that platform, arguments must
match the tool's schema (values that carry ``{{tokens}}`` are only known at run time, so their
type is not judged), and every ``{{args.x}}`` it uses must be declared in ``config.args``. Each
workspace met on the way is checked once: its files, tool definitions, naming and scoping.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Hashable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from .core.context import DeviceInfo
from .core.devices import platform_of
from .core.errors import (
    Problem,
    RegistryError,
    ToolError,
    ToolServerError,
    TrailblazeError,
    TrailLoadError,
    first_line,
)
from .core.loader import TRAIL_FILE_PATTERNS, load_trail
from .core.model import ANY_DEVICE, SourceSpan, Step, ToolCall, Trail
from .core.registry import ANNOTATION_ARGS, ToolRegistry
from .core.tokens import args_references, strings_in
from .core.tooldef import PythonTool, Tool, explain
from .mcp.server import handshake_timeout_default
from .mcp.tools import naming_findings
from .mcp.toolsets import McpToolsets
from .tools import builtin_tools
from .workspace import Target, Workspace, WorkspaceLoader, find_config_dir, trail_target
from .workspace.tools import parameters_model

DEFAULT_DRIVERS = {"web": "playwright-native"}


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
    ) -> None:
        self.builtins = builtin_tools()
        self.loader = WorkspaceLoader(builtin_names=(t.name for t in self.builtins), strict=strict)
        self.config_dir = config_dir
        self.report = CheckReport()
        self.servers = servers
        self.log_dir = log_dir or Path(tempfile.gettempdir()) / "trailblaze-check-logs"
        self._mcp: McpToolsets | None = None
        self._noted: set[Problem] = set()
        self._registries: dict[tuple[Any, ...], ToolRegistry | ToolServerError] = {}

    def run(self, paths: Iterable[Path]) -> CheckReport:
        paths = list(paths)
        try:
            for config_dir in workspaces_under(paths):
                self.workspace(config_dir)
            for path in trail_files(paths):
                self.check_file(path)
        finally:
            if self._mcp is not None:
                self._mcp.close()
        return self.report

    def workspace(self, config_dir: Path) -> Workspace:
        fresh = not self.loader.is_loaded(config_dir)
        ws = self.loader.load(config_dir)
        if fresh:
            self.report.workspaces += 1
            self.report.problems.extend(ws.problems)
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
                    self.builtins, ws, target, discovery_device(platform), mcp, key
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
            self._mcp = McpToolsets(
                self.log_dir, handshake_timeout=handshake_timeout_default(), call_timeout=30.0, worker="check"
            )
        return self._mcp

    def check_file(self, path: Path) -> None:
        self.report.files += 1
        try:
            trail = load_trail(path)
        except TrailLoadError as exc:
            self.report.problems.extend(exc.problems)
            return
        self.report.trails += 1
        config_dir = find_config_dir(path, self.config_dir)
        ws = self.workspace(config_dir) if config_dir else None
        # A broken workspace is reported once (above); its trails are still checked against what loaded.
        target, unknown = trail_target(trail, ws)
        if unknown is not None:
            self.report.problems.append(unknown)
        unverified = target is not None and bool(target.mcp_servers) and not self.servers
        for platform in trail.platforms() or ("web",):
            registry = self.registry(ws, target, platform)
            if isinstance(registry, TrailblazeError):
                span = trail.config.spans.get("target") or SourceSpan(trail.path, 1, 1)
                fix = "rename one of them" if isinstance(registry, RegistryError) else "fix the MCP server"
                what = f"cannot check the tools of target '{target.id if target else ''}'"
                self.report.problems.append(Problem(span, what, why=first_line(registry), fix=fix))
                continue
            self.report.problems.extend(check_platform(trail, registry, platform, unverified=unverified))
        self.report.problems.extend(_undeclared_args(trail))


def discovery_registry(
    builtins: Iterable[Tool],
    ws: Workspace | None,
    target: Target | None,
    device: DeviceInfo,
    mcp: Callable[[], McpToolsets] | None,
    scope: Hashable,
) -> tuple[ToolRegistry, list[Problem]]:
    """The tools a session of ``target`` on ``device`` offers, as ``check`` and ``toolbox`` see them,
    and naming advice on what its MCP servers advertise (servers are started only when ``mcp`` is given).

    Raises ``ToolServerError`` when a server cannot start and ``RegistryError`` on a name collision.
    """
    registry = ToolRegistry(platform=device.platform, driver_key=device.driver_key)
    registry.register_all(builtins)
    registry.register_all(ws.tools if ws else ())
    if mcp is None or target is None or not target.mcp_servers:
        return registry, []
    served = mcp().tools_for(scope, target, device, "host")
    registry.register_all(served)
    return registry, naming_findings(served, target.span)


def discovery_device(platform: str) -> DeviceInfo:
    """The nominal device ``check`` and ``toolbox`` give MCP servers they start to list tools."""
    width, height = {"web": (1280, 800), "android": (1080, 2400), "ios": (1179, 2556)}.get(
        platform, (1280, 800)
    )
    return DeviceInfo(platform, DEFAULT_DRIVERS.get(platform, ""), width, height)


def workspaces_under(paths: Iterable[Path]) -> list[Path]:
    """Workspace config folders (``trails/config``) inside the given folders or above them."""
    found = []
    for path in paths:
        if not path.is_dir():
            continue
        inside = sorted(p.parent for p in path.rglob("trailblaze.yaml") if _is_config_dir(p.parent))
        around = find_config_dir(path)
        found += [*inside, *([around] if around else [])]
        if (path / "trailblaze.yaml").is_file():
            found.append(path)
    return list(dict.fromkeys(p.resolve() for p in found))


def _is_config_dir(folder: Path) -> bool:
    return folder.name == "config" and folder.parent.name == "trails"


def trail_files(paths: Iterable[Path], patterns: tuple[str, ...] = TRAIL_FILE_PATTERNS) -> Iterator[Path]:
    """Trail files under ``paths`` (files are taken as given), sorted, never ``trailblaze.yaml``."""
    for path in paths:
        if path.is_file():
            yield path
            continue
        found = {p for pattern in patterns for p in path.rglob(pattern) if p.name != "trailblaze.yaml"}
        yield from sorted(f for f in found if not any(p.startswith(".") for p in f.relative_to(path).parts))


def check_platform(
    trail: Trail, registry: ToolRegistry, platform: str, *, unverified: bool = False
) -> list[Problem]:
    """Problems of the calls a trail records for one platform."""
    problems = []
    for step in _steps(trail):
        for call in _calls_for(step, platform):
            found = check_call(call, registry, platform)
            if unverified and call.name not in registry:
                found = [
                    Problem(
                        call.span,
                        f"tool '{call.name}' not checked (on {platform})",
                        why="no built-in or workspace tool has this name, and MCP servers were not started",
                        fix="run without --no-servers to check it",
                        severity="warning",
                    )
                ]
            problems.extend(found)
    return problems


def _steps(trail: Trail) -> list[Step]:
    return [s for s in (trail.trailhead, *trail.steps) if s is not None]


def _calls_for(step: Step, platform: str) -> list[ToolCall]:
    if not step.recording:
        return []
    return [
        call
        for key, calls in step.recording.items()
        if key == ANY_DEVICE or platform_of(key) == platform
        for call in calls
    ]


def check_call(call: ToolCall, registry: ToolRegistry, platform: str) -> list[Problem]:
    """Problems of one recorded call for ``platform``."""
    try:
        tool = registry.check(call.name)
    except ToolError as exc:
        lines = str(exc).splitlines()
        why = next((line.split("why: ", 1)[1] for line in lines if "why: " in line), "")
        fix = next((line.split("fix: ", 1)[1] for line in lines if "fix: " in line), "")
        return [Problem(call.span, f"{lines[0]} (on {platform})", why, fix)]
    model = _model_of(tool)
    if model is None:
        return []
    args = {k: v for k, v in call.args.items() if k not in ANNOTATION_ARGS}
    try:
        model.model_validate(args)
    except ValidationError as exc:
        return _argument_problems(call, exc, tool.name, model)
    return []


def _model_of(tool: Tool) -> Any:
    if isinstance(tool, PythonTool):
        return tool.model
    params = getattr(tool, "params", None)
    return parameters_model(tool.name, params) if params is not None and not tool.unavailable else None


def _argument_problems(call: ToolCall, exc: ValidationError, name: str, model: Any) -> list[Problem]:
    problems = []
    for error in exc.errors():
        if any("{{" in text or "${" in text for text in strings_in(error.get("input"))):
            continue  # known only at run time, after interpolation
        single = ValidationError.from_exception_data(exc.title, [error])  # type: ignore[list-item]
        span = call.arg_spans.get(str(error["loc"][0]), call.span) if error["loc"] else call.span
        fields = ", ".join(model.model_fields) or "none"
        fix = (
            f"'{name}' takes: {fields}"
            if error["type"] in ("missing", "extra_forbidden")
            else ("give the argument a value of the expected type")
        )
        problems.append(Problem(span, explain(single, name, model), fix=fix))
    return problems


def _undeclared_args(trail: Trail) -> list[Problem]:
    declared = trail.config.args
    problems = []
    for step in _steps(trail):
        for call in step.calls():
            for name in args_references(call.args):
                if name not in declared:
                    problems.append(
                        Problem(
                            call.span,
                            f"'{call.name}' uses {{{{args.{name}}}}}, which the trail does not declare",
                            fix=f"declare it under config.args, e.g. `{name}: string`",
                        )
                    )
    return problems
