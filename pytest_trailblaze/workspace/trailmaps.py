"""The trailmaps and targets of a workspace: which trailmaps ``targets:`` selects, their
manifests, their naming and scoping findings, legacy ``targets/*.yaml`` files and the MCP server
scripts targets name."""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path

from yaml.nodes import Node

from ..core.errors import Problem, SourceSpan
from ..core.trail.naming import SCOPING_TAG, check_trailmap_id, unscoped_tools
from ..core.trail.yamlsource import Source, did_you_mean
from .entries import EntrySteps
from .load_steps import CONFIG_FILE, shown_path
from .model import Target
from .schema import LegacyTarget, McpServerSpec, TrailmapManifest, node_at, validate
from .servers import outside_script

FRAMEWORK_IDS = {"trailblaze", "web", "mobile", "android", "compose", "revyl"}
TOOL_PATTERNS = ("tools/**/*.tool.yaml", "trailheads/**/*.trailhead.yaml", "shortcuts/**/*.shortcut.yaml")


class TrailmapSteps(EntrySteps):
    """Adding the selected trailmaps and the targets of the workspace being loaded."""

    def selected(
        self, manifests: dict[str, tuple[TrailmapManifest, Node, Source]], broken: Collection[str] = ()
    ) -> list[str]:
        """The trailmaps ``targets:`` asks for (all when it is empty), plus their dependencies.

        A trailmap whose manifest has errors is skipped quietly: its own problems say what is wrong.
        """
        wanted = list(self.ws.config.targets) or list(manifests)
        chosen: list[str] = []
        while wanted:
            trailmap_id = wanted.pop(0)
            if trailmap_id in chosen or (trailmap_id in FRAMEWORK_IDS and trailmap_id not in manifests):
                continue
            if trailmap_id in broken and trailmap_id not in manifests:
                continue
            if trailmap_id not in manifests:
                self.missing_trailmap(trailmap_id, list(manifests))
                continue
            chosen.append(trailmap_id)
            wanted.extend(manifests[trailmap_id][0].dependencies)
        return chosen

    def duplicate_trailmap(self, loaded: tuple[TrailmapManifest, Node, Source], first: Path) -> None:
        manifest, node, src = loaded
        self.problem(
            src.span(node_at(node, ["id"])[0]),
            f"trailmap id '{manifest.id}' is declared twice",
            why=f"also declared by {shown_path(first)}",
            fix="give each trailmap its own id (the folder name, by convention)",
        )

    def missing_trailmap(self, trailmap_id: str, known: list[str]) -> None:
        hint = did_you_mean(trailmap_id, known)
        span = SourceSpan(shown_path(self.dir / CONFIG_FILE), 1, 1)
        if self.config_node is not None:
            src, node = self.config_node
            listed = node_at(node, ["targets"])[0]
            entry = next(
                (n for n in getattr(listed, "value", []) if getattr(n, "value", None) == trailmap_id), listed
            )
            span = src.span(entry)
        self.problem(
            span,
            f"trailmap '{trailmap_id}' is listed but trailmaps/{trailmap_id}/trailmap.yaml does not exist",
            fix=hint or f"create trailmaps/{trailmap_id}/trailmap.yaml, or remove '{trailmap_id}'",
        )

    # -- trailmaps --------------------------------------------------------------------------------
    def read_manifest(self, path: Path) -> tuple[TrailmapManifest, Node, Source] | None:
        src, node = self.read(path)
        manifest = validate(src, node, TrailmapManifest, "trailmap.yaml") if node is not None else None
        self.keep(src)
        return (manifest, node, src) if manifest is not None and node is not None else None

    def add_trailmap(self, loaded: tuple[TrailmapManifest, Node, Source], path: Path) -> None:
        manifest, node, src = loaded
        self.ws.trailmaps[manifest.id] = path
        self.added.append((manifest, node, src, path))
        self.ws.exports[manifest.id] = list(manifest.exports)
        self.ws.dependencies[manifest.id] = list(manifest.dependencies)
        self.check_scoping(manifest, node, src)
        if manifest.id == "trailblaze" and manifest.defaults:
            self.ws.defaults = {k: v for k, v in manifest.defaults.items() if v is not None}
        listed = node_at(node, ["toolsets"])[0]
        for index, pattern in enumerate(("toolsets/*.yaml", *manifest.toolsets)):
            at = src.span(node_at(listed, [index - 1])[0]) if index else src.span(node)
            for toolset_path in self.matches(path.parent, pattern, at, "toolsets"):
                self.add_toolset(toolset_path)
        for pattern in TOOL_PATTERNS:
            for tool_path in self.matches(path.parent, pattern, src.span(node), "tool files"):
                self.add_tool_file(tool_path, manifest.id)
        if manifest.target is not None:
            target_node, _ = node_at(node, ["target"])
            t = manifest.target
            self.check_mcp_scripts(t.mcp_servers, path, src, node_at(node, ["target", "mcp_servers"])[0])
            self.add_target(
                Target(
                    t.id or manifest.id,
                    t.display_name,
                    path,
                    src.span(target_node),
                    {key: config for key, config in t.platforms.items()},
                    list(t.tools),
                    list(t.mcp_servers),
                    list(manifest.dependencies),
                    script_roots=self.scripts,
                    exempt=_exemption(manifest),
                )
            )

    def check_scoping(self, manifest: TrailmapManifest, node: Node, src: Source) -> None:
        """``[TrailmapScopingCheck]``: one finding per trailmap and file; errors when strict."""
        if manifest.id == "trailblaze":
            return
        reasons = []
        bad_id = check_trailmap_id(manifest.id)
        if bad_id:
            reasons.append(bad_id)
        tools = manifest.target.tools if manifest.target else []
        unscoped = unscoped_tools(manifest.id, tools)
        if unscoped:
            reasons.append(f"target.tools {', '.join(unscoped)} lack the '{manifest.id}_' prefix")
        key = f"{manifest.id}@{src.path}"
        if not reasons or (key in self.loader.warned and not self.loader.strict):
            return
        self.loader.warned.add(key)
        span = src.span(node_at(node, ["target", "tools"] if unscoped and not bad_id else ["id"])[0])
        self.problem(
            span,
            f"{SCOPING_TAG} trailmap '{manifest.id}': {'; '.join(reasons)}",
            why="tools owned by trailmap X are named X_<localName> so recordings stay unambiguous",
            fix=f"rename them to '{manifest.id}_<name>'" if unscoped else "rename the trailmap id",
            warn=not self.loader.strict,
        )

    def add_target(self, target: Target) -> None:
        self.add_unique(
            self.ws.targets,
            target.id,
            target,
            f"target '{target.id}' is declared twice",
            "rename or remove one of them",
        )

    def add_legacy_target(self, path: Path) -> None:
        src, node = self.read(path)
        legacy = validate(src, node, LegacyTarget, path.name) if node is not None else None
        self.keep(src)
        if legacy is None or node is None:
            return
        display = legacy.display_name or legacy.id
        self.check_mcp_scripts(legacy.mcp_servers, path, src, node_at(node, ["mcp_servers"])[0])
        self.add_target(
            Target(
                legacy.id,
                display,
                path,
                src.span(node),
                {key: config for key, config in legacy.platforms.items()},
                [t for t in legacy.tools if isinstance(t, str)],
                list(legacy.mcp_servers),
                script_roots=self.scripts,
            )
        )

    def check_mcp_scripts(
        self, servers: list[McpServerSpec], declared_in: Path, src: Source, listed: Node
    ) -> None:
        """``script:`` paths resolve against the declaring file's folder; one that leaves the
        workspace root (symlinks followed) or is missing is an error at its line, found without
        running anything."""
        for index, server in enumerate(servers):
            if server.script is None:
                continue
            script = (declared_in.parent / server.script).resolve()
            entry = node_at(listed, [index, "script"])[0]
            outside = outside_script(server.script, script, self.scripts)
            if outside is not None:
                what, why, fix = outside
                self.problem(src.span(entry), what, fix=fix, why=why)
            elif not script.is_file():
                self.ws.problems.append(
                    Problem(
                        src.span(entry),
                        f"MCP server script {server.script} does not exist",
                        why=f"it resolves to {script}, relative to {declared_in.name}",
                        fix="fix the path; relative paths start at the declaring file's folder",
                    )
                )


def _exemption(manifest: TrailmapManifest) -> str | None:
    """``trail_validation.exempt``: a reason; a blank one is no exemption (as upstream)."""
    reason = manifest.trail_validation.exempt if manifest.trail_validation else None
    return reason.strip() if reason and reason.strip() else None
