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

from typing import Any

import pytest

from ..core.errors import Problem, RegistryError, SourceSpan, first_line
from ..core.tooling.registry import ToolRegistry
from ..core.tooling.staticcheck import CallScope, trail_problems
from ..core.trail.model import Trail
from ..plugin.options import SETTINGS_KEY
from ..tools import builtin_tools
from ..workspace import Target, Workspace
from ..workspace.exemption import exempted

_REGISTRIES_KEY = pytest.StashKey[dict[tuple[Any, ...], "ToolRegistry | RegistryError"]]()


def static_problems(
    config: pytest.Config,
    trail: Trail,
    workspace: Workspace | None,
    target: Target | None,
    platforms: tuple[str, ...],
) -> list[Problem]:
    """Every problem of the trail's calls known before a device starts, for its item platforms."""
    problems: list[Problem] = []
    scopes = {}
    declared = frozenset(trail.config.args)
    for platform in platforms:
        registry = static_registry(config, workspace, platform)
        if isinstance(registry, RegistryError):
            span = trail.span or SourceSpan(trail.path, 1, 1)
            why = "tool names are global within a session, so no session of this trail can start"
            problems.append(Problem(span, first_line(registry), why=why, fix="rename one of them"))
            continue
        judged = names_are_known(trail, target) and drivable(config, platform)
        scopes[platform] = CallScope(registry, declared, unknown="error" if judged else "ignore")
        if workspace is not None and drivable(config, platform):  # a listed tool no file provides
            problems += [p for p in workspace.listing_problems(target, platform) if p not in problems]
    return problems + exempted(trail_problems(trail, scopes), target)


def names_are_known(trail: Trail, target: Target | None) -> bool:
    """No tool name of this trail can belong to an MCP server (nor to a target we could not find)."""
    if target is not None:
        return not target.mcp_servers
    return trail.config.target is None


def drivable(config: pytest.Config, platform: str) -> bool:
    """Whether this run has a driver for ``platform`` (else its items are skipped at run time)."""
    if platform == "web" or config.hook.pytest_trailblaze_make_driver.get_hookimpls():
        return True
    return platform in ("android", "ios") and config.stash[SETTINGS_KEY].appium.configured


def static_registry(
    config: pytest.Config, workspace: Workspace | None, platform: str
) -> ToolRegistry | RegistryError:
    """Built-in, workspace and hook-registered tools for ``platform``, built once per combination."""
    from ..plugin.collection import CATALOG_KEY  # collection imports this module

    catalog = config.stash[CATALOG_KEY].tools()
    key = (workspace.config_dir if workspace else None, platform, len(catalog))
    registries = config.stash.setdefault(_REGISTRIES_KEY, {})
    if key not in registries:
        registry = ToolRegistry(platform=platform)
        try:
            registry.register_all(builtin_tools())
            registry.register_all(workspace.tools if workspace else ())
            registry.register_all(catalog)
        except RegistryError as exc:
            registries[key] = exc
        else:
            registries[key] = registry
    return registries[key]
