"""The static checks collection runs on every trail (``core.staticcheck``), with the tools a
session would have that are known without starting anything.

Known at collection: the built-in tools, the workspace's tool files, and the tools that
``pytest_trailblaze_register_tools`` added so far (plugins, and ``conftest.py`` files in the
trail's folder or above: pytest loads those before it collects the trail). Not known: the tools
of a target's MCP servers, which exist only once a server runs. So a name is judged only when it
cannot be such a tool (the trail's target declares no MCP server), and only for the platforms
this run can drive; a platform without a driver is skipped at run time whatever its recordings
hold, and ``trailblaze check`` judges every platform. Arguments of known tools and ``{{args.x}}``
references are judged everywhere.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ..core.errors import Problem, RegistryError, SourceSpan, first_line
from ..core.tooling.registry import ToolRegistry
from ..core.tooling.staticcheck import CallScope, trail_problems
from ..core.trail.model import Trail
from ..workspace import Target, Workspace
from ..workspace.exemption import exempted
from .registries import ToolCatalog, assemble


class Preflight:
    """The static checks of a run's trails, with a registry per (workspace, platform) built once.

    ``catalog``: the tools hook-registered so far (it grows as ``conftest.py`` files load);
    ``drivable``: whether the run has a driver for a platform, asked each time for the same reason.
    """

    def __init__(self, catalog: ToolCatalog, drivable: Callable[[str], bool]) -> None:
        self.catalog = catalog
        self.drivable = drivable
        self._registries: dict[tuple[Path | None, str, int], ToolRegistry | RegistryError] = {}

    def problems(
        self, trail: Trail, workspace: Workspace | None, target: Target | None, platforms: tuple[str, ...]
    ) -> list[Problem]:
        """Every problem of the trail's calls known before a device starts, for its item platforms."""
        problems: list[Problem] = []
        scopes = {}
        declared = frozenset(trail.config.args)
        for platform in platforms:
            registry = self.registry(workspace, platform)
            if isinstance(registry, RegistryError):
                span = trail.span or SourceSpan(trail.path, 1, 1)
                why = "tool names are global within a session, so no session of this trail can start"
                problems.append(Problem(span, first_line(registry), why=why, fix="rename one of them"))
                continue
            judged = names_are_known(trail, target) and self.drivable(platform)
            scopes[platform] = CallScope(registry, declared, unknown="error" if judged else "ignore")
            if workspace is not None and self.drivable(platform):  # a listed tool no file provides
                problems += [p for p in workspace.listing_problems(target, platform) if p not in problems]
        return problems + exempted(trail_problems(trail, scopes), target)

    def registry(self, workspace: Workspace | None, platform: str) -> ToolRegistry | RegistryError:
        """Built-in, workspace and hook-registered tools for ``platform``, built once per combination."""
        catalog = self.catalog.tools()
        key = (workspace.config_dir if workspace else None, platform, len(catalog))
        if key not in self._registries:
            tools = workspace.tools if workspace else ()
            try:
                self._registries[key] = assemble(platform, tools, catalog=catalog)
            except RegistryError as exc:
                self._registries[key] = exc
        return self._registries[key]


def names_are_known(trail: Trail, target: Target | None) -> bool:
    """No tool name of this trail can belong to an MCP server (nor to a target we could not find)."""
    if target is not None:
        return not target.mcp_servers
    return trail.config.target is None


def drivable(platform: str, *, driver_hook: bool, appium: bool) -> bool:
    """Whether a run has a driver for ``platform`` (else its items are skipped at run time): web
    always, any platform when a ``pytest_trailblaze_make_driver`` hook may serve it, android and
    ios when an Appium server is configured."""
    if platform == "web" or driver_hook:
        return True
    return platform in ("android", "ios") and appium
