"""What a loaded workspace holds: targets, toolsets, tool definitions, and the problems found.

The same idea as ``core.trail.model`` one layer up: that module models a trail file, this one the
files of a workspace.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.errors import Problem, SourceSpan
from ..core.system.files import DEFAULT_MAX_BYTES
from ..core.system.pycall import CodeRoots
from ..core.tooling.tooldef import Tool
from ..core.trail.model import ToolCall, Trail
from ..core.trail.yamlsource import did_you_mean
from .framework import FRAMEWORK_DEFAULTS, FRAMEWORK_TOOLSETS
from .schema import McpServerSpec, PlatformConfig, ToolFile, ToolsetConfig, WorkspaceConfig

if TYPE_CHECKING:  # the typescript package reads these models: a loop at import time
    from ..typescript.discovery import TsToolDef

PLATFORM_KEY = {"android": "android", "ios": "ios", "web": "web", "desktop": "compose"}


@dataclass
class Target:
    """A runnable target: a trailmap with a ``target:`` block, or a legacy ``targets/*.yaml``."""

    id: str
    display_name: str
    source: Path
    span: SourceSpan
    platforms: dict[str, PlatformConfig | None] = field(default_factory=dict)
    tools: list[str] = field(default_factory=list)
    mcp_servers: list[McpServerSpec] = field(default_factory=list)
    dependencies: list[str] = field(default_factory=list)
    #: Where its servers' ``script:`` files may lie (``workspace.servers``), set by the loader;
    #: None for a target built in code, whose author chose its scripts.
    script_roots: CodeRoots | None = None
    #: ``trail_validation: {exempt: reason}``: its trails' call findings are reported, not fatal.
    exempt: str | None = None

    def platform(self, platform: str) -> PlatformConfig | None:
        """The target's config for a trail platform (``desktop`` is upstream's ``compose``)."""
        key = PLATFORM_KEY.get(platform, platform)
        if key not in self.platforms:
            return None
        return self.platforms[key] or PlatformConfig()

    def app_ids(self) -> set[str]:
        return {app for config in self.platforms.values() if config for app in config.app_ids}


@dataclass
class ToolDef:
    """A tool definition file: its validated config, where it is, and its expansion."""

    config: ToolFile
    path: Path
    span: SourceSpan
    trailmap: str | None = None
    expansion: tuple[ToolCall, ...] = ()

    @property
    def name(self) -> str:
        return self.config.id

    @property
    def mode(self) -> str:
        """``class``, ``tools``, ``script``, ``metadata`` (navigation metadata only) or ``declared``."""
        bodies = self.config.bodies()
        if bodies:
            return bodies[0]
        if self.config.shortcut is not None or self.config.trailhead is not None:
            return "metadata"
        return "declared"


@dataclass
class Workspace:
    """A ``trails/config`` folder, loaded; ``problems`` holds errors and warnings alike."""

    config_dir: Path | None
    config: WorkspaceConfig = field(default_factory=WorkspaceConfig)
    trailmaps: dict[str, Path] = field(default_factory=dict)
    #: Tool names each trailmap publishes to the trailmaps that depend on it (``exports:``).
    exports: dict[str, list[str]] = field(default_factory=dict)
    dependencies: dict[str, list[str]] = field(default_factory=dict)
    targets: dict[str, Target] = field(default_factory=dict)
    toolsets: dict[str, ToolsetConfig] = field(default_factory=lambda: dict(FRAMEWORK_TOOLSETS))
    tool_defs: dict[str, ToolDef] = field(default_factory=dict)
    defaults: dict[str, PlatformConfig] = field(default_factory=lambda: dict(FRAMEWORK_DEFAULTS))
    problems: list[Problem] = field(default_factory=list)
    #: Where ``llm.models`` (and each model under it) and ``llm.defaults.model`` are written in
    #: ``trailblaze.yaml``, keyed by their path: the session judges them and reports here.
    llm_spans: dict[tuple[str, ...], SourceSpan] = field(default_factory=dict)
    #: Tools built from ``tool_defs`` (compositions, Python callables, unavailable placeholders)
    #: and the trailmaps' TypeScript tools.
    tools: list[Tool] = field(default_factory=list)
    #: The trailmaps' TypeScript tools by name (``typescript.discovery.TsToolDef``).
    ts_tools: dict[str, TsToolDef] = field(default_factory=dict)
    #: Tools a target lists that no file provides, by target id: (platform the list belongs to,
    #: or None for ``target.tools``; the problem). They fail that target's trails on that platform
    #: (wherever it can run) and ``trailblaze check``, not every trail of the workspace.
    unlisted: dict[str, list[tuple[str | None, Problem]]] = field(default_factory=dict)
    #: Where code the workspace's files name may lie (its root, unless outside code is allowed),
    #: set by the loader; TypeScript tool files and their tests are held to it like Python code.
    code: CodeRoots | None = None
    #: The size above which a file of the workspace is refused unread (TypeScript tools included).
    max_file_bytes: int = DEFAULT_MAX_BYTES

    def listing_problems(self, target: Target | None, platform: str) -> list[Problem]:
        """The problems of the tools ``target`` lists for ``platform`` (``desktop`` is ``compose``)."""
        if target is None:
            return []
        key = PLATFORM_KEY.get(platform, platform)
        return [p for where, p in self.unlisted.get(target.id, []) if where in (None, key)]

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "error"]

    @property
    def warnings(self) -> list[Problem]:
        return [p for p in self.problems if p.severity != "error"]

    def resolve_target(self, name: str | None) -> Target | None:
        """A trail's ``config.target``: a target id, else an app id one target declares."""
        name = name or self.config.defaults.target
        if not name:
            return None
        if name in self.targets:
            return self.targets[name]
        by_app = [t for t in self.targets.values() if name in t.app_ids()]
        return by_app[0] if len(by_app) == 1 else None


def trail_target(trail: Trail, ws: Workspace | None) -> tuple[Target | None, Problem | None]:
    """The target a trail's ``config.target`` (or the workspace default) names, or why it names none.

    ``(None, None)``: no workspace or no target wanted. ``(None, problem)``: an unknown name.
    """
    if ws is None:
        return None, None
    wanted = trail.config.target or ws.config.defaults.target
    if not wanted:
        return None, None
    target = ws.resolve_target(wanted)
    if target is not None:
        return target, None
    known = ", ".join(sorted(ws.targets)) or "none"
    return None, Problem(
        trail.config.spans.get("target") or trail.span or SourceSpan(trail.path, 1, 1),
        f"unknown target '{wanted}' in config.target",
        why=f"the workspace {ws.config_dir} has targets: {known}",
        fix=did_you_mean(wanted, ws.targets) or "add the trailmap, or fix the name",
    )
