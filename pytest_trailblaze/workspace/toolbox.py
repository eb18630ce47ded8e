"""The toolbox: the tools an agent is offered in a session (docs/upstream.md, The toolbox).

It is the union of the always-enabled toolsets, the target's platform toolsets (or the framework
defaults when the target names none), the tools the target and its platform list, and the tools
that joined an enabled toolset themselves; minus ``excluded_tools``, minus what the session
cannot run or what is hidden from agents (``surface_to_llm: false``). Replay is not limited by
it: a recording may call any registered tool.
"""

from __future__ import annotations

from ..core.tooling.registry import ToolRegistry, driver_allowed
from ..core.tooling.tooldef import ToolDescriptor
from .model import PLATFORM_KEY, Target, Workspace
from .schema import PlatformConfig, ToolsetConfig


def enabled_toolsets(ws: Workspace, target: Target | None, platform: str, driver_key: str) -> list[str]:
    """Ids of the toolsets enabled for the session, always-enabled ones first."""
    config = target.platform(platform) if target is not None else None
    default = ws.defaults.get(PLATFORM_KEY.get(platform, platform)) or PlatformConfig()
    chosen = (
        config.tool_sets if config is not None and config.tool_sets is not None else default.tool_sets or []
    )
    always = [t.id for t in ws.toolsets.values() if t.always_enabled]
    ids = list(dict.fromkeys([*always, *chosen]))
    # A toolset no file declares exists once a tool pushes itself into it (MCP `trailblaze/toolset`).
    return [i for i in ids if i not in ws.toolsets or _fits(ws.toolsets[i], platform, driver_key)]


def _fits(toolset: ToolsetConfig, platform: str, driver_key: str) -> bool:
    if toolset.platforms and platform not in {p.lower() for p in toolset.platforms}:
        return False
    if toolset.drivers and driver_key:
        return driver_allowed({d.lower() for d in toolset.drivers}, driver_key, platform)
    return True


def _offered_by_itself(
    descriptor: ToolDescriptor, ws: Workspace, target: Target | None, toolsets: list[str]
) -> bool:
    """Non-built-in tools join the toolbox through their toolset; without one, workspace tool files
    join only their own trailmap's target, TypeScript tools only where a target lists them, and
    tools from hooks or the target's servers always join."""
    if descriptor.source == "builtin":
        return False
    if descriptor.source.startswith("typescript:"):
        return descriptor.toolset is not None and descriptor.toolset in toolsets
    if descriptor.toolset is not None:
        return descriptor.toolset in toolsets
    definition = ws.tool_defs.get(descriptor.name)
    return definition is None or (target is not None and definition.trailmap == target.id)


def _dependencies(ws: Workspace, target: Target) -> list[str]:
    """The trailmaps a target depends on, transitively, in the order met."""
    seen: list[str] = []
    pending = list(target.dependencies)
    while pending:
        trailmap = pending.pop(0)
        if trailmap in seen:
            continue
        seen.append(trailmap)
        pending += [d for d in ws.dependencies.get(trailmap, []) if d not in seen]
    return seen


def toolbox(
    ws: Workspace, target: Target | None, registry: ToolRegistry, *, show_hidden: bool = False
) -> list[ToolDescriptor]:
    """Descriptors of the tools offered to an agent in the registry's session."""
    toolsets = enabled_toolsets(ws, target, registry.platform, registry.driver_key)
    names = [name for ts in toolsets if ts in ws.toolsets for name in ws.toolsets[ts].tools]
    config = target.platform(registry.platform) if target is not None else None
    if target is not None:
        names += [*(config.tools if config else []), *target.tools]
        names += [name for dependency in _dependencies(ws, target) for name in ws.exports.get(dependency, [])]
    names += [d.name for d in registry.descriptors() if _offered_by_itself(d, ws, target, toolsets)]
    excluded = set(config.excluded_tools) if config else set()
    offered = []
    for name in dict.fromkeys(names):
        if name in excluded or name not in registry:
            continue
        tool = registry.get(name)
        if registry.unsupported_reason(tool) is None and (show_hidden or tool.descriptor.surface_to_llm):
            offered.append(tool.descriptor)
    return sorted(offered, key=lambda d: d.name)


def callable_tools(registry: ToolRegistry) -> list[ToolDescriptor]:
    """Every tool a recording can call in the registry's session (``trailblaze toolbox --all``):
    the toolbox, plus tools hidden from agents and tools of toolsets the session does not enable."""
    tools = (registry.get(name) for name in registry.names())
    return [tool.descriptor for tool in tools if registry.unsupported_reason(tool) is None]
