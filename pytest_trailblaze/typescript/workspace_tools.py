"""A workspace's TypeScript tools, added by the workspace loader once its tool files are read
(the session hands ``add_ts_tools`` to the loader as its ``scripted_tools``).

Per trailmap: discovery (``discovery``), then ``TsTool``s in the workspace's tools, then the
names its target lists checked: a listed name no file exports is an error at its line (upstream
reads ``target.tools`` / ``platforms.<p>.tools`` as scripted tools; a ``*.tool.yaml`` tool listed
there is accepted, and a target with MCP servers may list their tools, known only once they run).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path

from yaml.nodes import Node, SequenceNode

from ..core.errors import Problem
from ..core.tooling.tooldef import Tool
from ..core.trail.naming import check_tool_name
from ..core.trail.yamlsource import Source, did_you_mean
from ..workspace.loader import LoadedTrailmap
from ..workspace.model import Workspace
from ..workspace.schema import TrailmapManifest, node_at
from .clientdts import LOOSE_ENTRY, TypeWriter, builtin_digest, map_entries
from .discovery import ToolMap, TsToolDef, discover
from .sidecars import is_sidecar
from .ts_tools import TsTool


def add_ts_tools(
    ws: Workspace, trailmaps: Iterable[LoadedTrailmap], builtin_names: frozenset[str], *, strict: bool = False
) -> None:
    """Discover every trailmap's TypeScript tools into ``ws``; problems into ``ws.problems``
    (the naming convention's findings as warnings, errors when ``strict``)."""
    trailmaps = list(trailmaps)
    tool_map = _collection_map(ws)
    taken = {tool.name: _where(tool) for tool in ws.tools}
    for manifest, _, _, path in trailmaps:
        found = discover(manifest.id, path.parent, tool_map, ws.code, ws.max_file_bytes)
        ws.problems.extend(found.problems)
        ws.unlisted.setdefault(_target_id(manifest), []).extend((None, p) for p in found.missing)
        for definition in found.tools:
            clash = _clash(definition, builtin_names, taken)
            if clash is not None:
                ws.problems.append(clash)
                continue
            taken[definition.name] = str(definition.span)
            ws.problems += [
                Problem(
                    definition.span,
                    f.what,
                    f.why,
                    f.fix,
                    "error" if strict or f.severity == "error" else "warning",
                )
                for f in check_tool_name(definition.name)
            ]
            ws.ts_tools[definition.name] = definition
            ws.tools.append(TsTool(definition))
    for loaded in trailmaps:
        manifest = loaded[0]
        for platform, problem in listed_problems(ws, *loaded):
            if platform == "any-rule":
                ws.problems.append(problem)
            else:
                ws.unlisted.setdefault(_target_id(manifest), []).append((platform, problem))
    for key in [k for k, v in ws.unlisted.items() if not v]:
        del ws.unlisted[key]


def _target_id(manifest: TrailmapManifest) -> str:
    return (manifest.target.id if manifest.target else None) or manifest.id


def _where(tool: Tool) -> str:
    definition = getattr(tool, "definition", None)
    return str(definition.span) if definition is not None else tool.descriptor.source


def _clash(definition: TsToolDef, builtin_names: frozenset[str], taken: dict[str, str]) -> Problem | None:
    if definition.name in builtin_names:
        where = "the built-in tool of that name"
    elif definition.name in taken:
        where = f"the tool of {taken[definition.name]}"
    else:
        return None
    return Problem(
        definition.span,
        f"tool '{definition.name}' collides with {where}",
        why="tool names are global within a session",
        fix=f"rename the export, e.g. '{definition.trailmap}_{definition.name}'",
    )


def _collection_map(ws: Workspace) -> ToolMap:
    """The tools ``ctx.tools`` can call as collection knows them: built-in and workspace tools,
    and any other name (a conftest's tools and MCP tools are known only at run time)."""
    digest = hashlib.sha256(builtin_digest().encode())
    for definition in sorted(ws.tool_defs.values(), key=lambda d: str(d.path)):
        try:
            digest.update(definition.path.read_bytes())
        except OSError:
            continue

    def build() -> tuple[str, str]:
        from ..tools import builtin_tools

        writer = TypeWriter()
        known = [t.descriptor for t in (*builtin_tools(), *ws.tools) if not isinstance(t, TsTool)]
        members = map_entries(known, writer)
        return writer.declarations(), f"{members}\n{LOOSE_ENTRY}"

    return ToolMap(f"collection:{digest.hexdigest()[:24]}", build)


def listed_problems(
    ws: Workspace, manifest: TrailmapManifest, node: Node, src: Source, path: Path
) -> list[tuple[str | None, Problem]]:
    """Names under ``target.tools`` / ``platforms.<p>.tools`` that no file provides (with the
    platform of the list, None for every platform), and tools listed under a platform they do not
    run on alone (``"any-rule"``: a manifest error, whoever runs)."""
    target = manifest.target
    if target is None:
        return []
    problems: list[tuple[str | None, Problem]] = []
    tools_dir = path.parent / "tools"
    # a descriptor's own problems (a missing script) already say why its tool is not there
    described = {p.stem for p in tools_dir.glob("*.y*ml") if is_sidecar(p)} if tools_dir.is_dir() else set()
    known = set(ws.ts_tools) | set(ws.tool_defs) | described
    places: list[tuple[list[str | int], str | None]] = [(["target", "tools"], None)]
    places += [(["target", "platforms", p, "tools"], p) for p, config in target.platforms.items() if config]
    for where, platform in places:
        listed = node_at(node, where)[0]
        if not isinstance(listed, SequenceNode) or node_at(node, where[:-1])[0] is listed:
            continue
        for entry in listed.value:
            name = str(getattr(entry, "value", ""))
            if name not in known:
                if not target.mcp_servers:
                    problems.append((platform, _unexported(manifest.id, name, src, entry, where, known)))
                continue
            definition = ws.ts_tools.get(name)
            if platform is not None and definition is not None:
                problems += [("any-rule", p) for p in _platform_rule(definition, platform, src, entry)]
    return problems


def _unexported(
    trailmap: str, name: str, src: Source, entry: Node, where: list[str | int], known: set[str]
) -> Problem:
    field = ".".join(str(p) for p in where)
    return Problem(
        src.span(entry),
        f"{field} lists '{name}', but no file of trailmap '{trailmap}' provides it",
        why="listed tools are looked up among the exports of tools/*.ts (`export const name = "
        "trailblaze.tool(...)`), <name>.yaml descriptors and *.tool.yaml files",
        fix=did_you_mean(name, known) or f"add tools/{name}.ts exporting `{name}`, or remove the entry",
    )


def _platform_rule(definition: TsToolDef, platform: str, src: Source, entry: Node) -> list[Problem]:
    supported = definition.spec.get("supportedPlatforms")
    wanted = {"compose": "desktop"}.get(platform, platform)
    if isinstance(supported, list) and [str(p).lower() for p in supported] == [wanted]:
        return []
    said = ", ".join(map(str, supported)) if isinstance(supported, list) and supported else "every platform"
    return [
        Problem(
            src.span(entry),
            f"tool '{definition.name}' is listed under platforms.{platform}.tools but supports {said}",
            why="a tool listed under one platform declares that platform alone "
            f"(supportedPlatforms: ['{wanted}'])",
            fix="list it under target.tools, or set its supportedPlatforms to that platform",
        )
    ]
