"""Loading a workspace: ``trails/config/trailblaze.yaml``, trailmaps, legacy targets, toolsets, tools.

Everything is validated at load, before any device starts. Every problem carries its
``file:line:col``; naming and scoping findings that upstream treats as advisory are warnings
(one per trailmap and file, however often the workspace is loaded) unless strict mode is on.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Iterable
from pathlib import Path
from typing import Any

from yaml.nodes import MappingNode, Node, SequenceNode

from ..core.errors import Problem, SourceSpan
from ..core.system.files import DEFAULT_MAX_BYTES, FileRefused, glob_inside, inside, read_source
from ..core.system.pycall import CodeRoots
from ..core.trail.naming import SCOPING_TAG, check_tool_name, check_trailmap_id, unscoped_tools
from ..core.trail.yamlsource import Source, did_you_mean, is_null
from .file_tools import build_tools
from .globs import workspace_matches
from .model import Target, ToolDef, Workspace
from .schema import (
    LegacyTarget,
    ToolsetConfig,
    TrailmapManifest,
    WorkspaceConfig,
    node_at,
    validate,
)
from .servers import mcp_script_roots, outside_script
from .toolfile import read_tool_definition

CONFIG_FILE = "trailblaze.yaml"
FRAMEWORK_IDS = {"trailblaze", "web", "mobile", "android", "compose", "revyl"}
TOOL_PATTERNS = ("tools/**/*.tool.yaml", "trailheads/**/*.trailhead.yaml", "shortcuts/**/*.shortcut.yaml")


def workspace_root(config_dir: Path) -> Path:
    """The folder that holds ``trails/`` (for ``.../trails/config``), else the config folder itself.

    Python files named by the workspace's tool files must be inside it (see ``CodeRoots``).
    """
    config_dir = config_dir.resolve()
    if config_dir.name == "config" and config_dir.parent.name == "trails":
        return config_dir.parent.parent
    return config_dir


def code_roots(project_root: Path, config_dir: Path | None, allow_outside: bool = False) -> CodeRoots:
    """Where Python files named by a trail may lie: the project folder (pytest's rootdir, or the
    current folder for the ``trailblaze`` command) and the root of the trail's workspace."""
    roots = [project_root.resolve(), *([workspace_root(config_dir)] if config_dir is not None else [])]
    return CodeRoots(tuple(dict.fromkeys(roots)), allow_outside)


def find_config_dir(start: Path, override: str | os.PathLike[str] | None = None) -> Path | None:
    """``override`` (option or ``TRAILBLAZE_CONFIG_DIR``), else ``trails/config`` found walking up."""
    chosen = override or os.environ.get("TRAILBLAZE_CONFIG_DIR")
    if chosen:
        return Path(chosen).resolve()
    folder = start if start.is_dir() else start.parent
    for ancestor in (folder, *folder.parents):
        candidate = ancestor / "trails" / "config"
        if (candidate / CONFIG_FILE).is_file():
            return candidate
    return None


class WorkspaceLoader:
    """Loads workspaces (once per folder); remembers which scoping warnings it already gave.

    ``builtin_names`` are the tools the plugin has built in: upstream tool files naming them are
    served by the built-ins, and workspace tools may not reuse their names. Python files that tool
    files name must lie inside the workspace root unless ``allow_outside_code``.
    """

    def __init__(
        self,
        *,
        builtin_names: Iterable[str] = (),
        strict: bool = False,
        allow_outside_code: bool = False,
        max_file_bytes: int = DEFAULT_MAX_BYTES,
    ) -> None:
        self.strict = strict
        self.allow_outside_code = allow_outside_code
        #: Workspace files larger than this are refused (``files.read_source``).
        self.max_file_bytes = max_file_bytes
        self.builtin_names = frozenset(builtin_names)
        self.warned: set[str] = set()
        self._cache: dict[Path, Workspace] = {}

    def is_loaded(self, config_dir: Path) -> bool:
        """Whether ``load`` already read this folder (callers report a workspace's problems once)."""
        return config_dir.resolve() in self._cache

    def load(self, config_dir: Path) -> Workspace:
        key = config_dir.resolve()
        if key not in self._cache:
            self._cache[key] = _Load(self, key).run()
        return self._cache[key]


class _Load:
    """One workspace load."""

    def __init__(self, loader: WorkspaceLoader, config_dir: Path) -> None:
        self.loader = loader
        self.ws = Workspace(config_dir)
        self.dir = config_dir
        #: Every file and glob of the workspace stays inside this folder (links followed).
        self.root = workspace_root(config_dir)
        self.code = CodeRoots((self.root,), loader.allow_outside_code)
        self.ws.code = self.code
        self.ws.max_file_bytes = loader.max_file_bytes
        self.scripts = mcp_script_roots(workspace_root(config_dir), loader.allow_outside_code)
        self.config_node: tuple[Source, Node] | None = None
        #: Trailmaps added, for their TypeScript tools (read once the tool files are).
        self.added: list[tuple[TrailmapManifest, Node, Source, Path]] = []

    # -- files --------------------------------------------------------------------------------
    def read(self, path: Path) -> tuple[Source, Node | None]:
        return read_yaml(path, limit=self.loader.max_file_bytes, root=self.root)

    def keep(self, src: Source) -> None:
        self.ws.problems.extend(src.problems)

    def problem(
        self, span: SourceSpan | None, what: str, fix: str = "", why: str = "", warn: bool = False
    ) -> None:
        severity = "warning" if warn else "error"
        self.ws.problems.append(Problem(span, what, why, fix, severity))

    # -- the whole workspace --------------------------------------------------------------------
    def run(self) -> Workspace:
        config_path = self.dir / CONFIG_FILE
        if not config_path.is_file():
            self.problem(
                SourceSpan(str(self.dir), 1, 1),
                f"no {CONFIG_FILE} in {self.dir}",
                fix="point --trailblaze-config-dir at a folder holding trailblaze.yaml",
            )
            return self.ws
        self.read_config(config_path)
        manifests: dict[str, tuple[TrailmapManifest, Node, Source]] = {}
        paths: dict[str, Path] = {}
        broken: set[str] = set()  # folders whose manifest has errors (already reported)
        for path in glob_inside(self.dir, "trailmaps/*/trailmap.yaml", self.root):
            loaded = self.read_manifest(path)
            if loaded is None:
                broken.add(path.parent.name)
            elif loaded[0].id in manifests:
                self.duplicate_trailmap(loaded, paths[loaded[0].id])
            else:
                manifests[loaded[0].id], paths[loaded[0].id] = loaded, path
        for trailmap_id in self.selected(manifests, broken):
            self.add_trailmap(manifests[trailmap_id], paths[trailmap_id])
        for path in glob_inside(self.dir, "targets/*.yaml", self.root):
            self.add_legacy_target(path)
        self.add_workspace_entries()
        self.ws.tools, problems = build_tools(self.ws, self.loader.builtin_names, self.code)
        self.ws.problems.extend(problems)
        self.add_scripted_tools()
        return self.ws

    def add_scripted_tools(self) -> None:
        """The trailmaps' TypeScript tools (``typescript``), imported only when a trailmap has a
        ``tools/`` folder or lists tools."""
        wanted = [a for a in self.added if (a[3].parent / "tools").is_dir() or _lists_tools(a[0])]
        if wanted:
            from ..typescript.workspace_tools import add_ts_tools

            add_ts_tools(self.ws, wanted, self.loader.builtin_names, strict=self.loader.strict)

    def read_config(self, path: Path) -> None:
        src, node = self.read(path)
        if node is None and not src.problems:
            self.problem(
                SourceSpan(src.path, 1, 1),
                f"{CONFIG_FILE} is empty or only comments; it is ignored",
                fix="list your targets: `targets: [myApp]`",
                warn=True,
            )
        elif node is not None:
            self.ws.config = validate(src, node, WorkspaceConfig, CONFIG_FILE) or WorkspaceConfig()
            self.config_node = (src, node)
            self.check_model(src, node)
        self.keep(src)

    def check_model(self, src: Source, node: Node) -> None:
        """A ``llm: defaults: model:`` the agent could not use is an error at its line, found before
        anything starts, whether or not a command-line model overrides it. Whether the provider's
        client library is installed is checked only when a step needs it, so a replay-only run
        works without the ``agent`` extra."""
        llm = self.ws.config.llm
        models = llm.get("models") if isinstance(llm, dict) else None
        if models is not None:
            from ..agent.models import check_overrides  # no provider SDK: a table

            found = check_overrides(models, "llm.models")
            if found is not None:
                path = ["llm", "models", found[0]] if found[0] else ["llm", "models"]
                span = src.span(node_at(node, path)[0])
                fix = "e.g. `openai/my-model: {vision: true, price: {input: 0.2, output: 1}}`"
                self.problem(span, found[1], fix)
        defaults = llm.get("defaults") if isinstance(llm, dict) else None
        model = defaults.get("model") if isinstance(defaults, dict) else None
        if not model:
            return
        from ..agent.spec import model_problem  # no provider SDK: a table and a split

        problem = model_problem(str(model))
        if problem is not None:
            what, why, fix = problem
            span = src.span(node_at(node, ["llm", "defaults", "model"])[0])
            self.problem(span, f"llm.defaults.model: {what}", fix, why)

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
            why=f"also declared by {_shown(first)}",
            fix="give each trailmap its own id (the folder name, by convention)",
        )

    def missing_trailmap(self, trailmap_id: str, known: list[str]) -> None:
        hint = did_you_mean(trailmap_id, known)
        span = SourceSpan(_shown(self.dir / CONFIG_FILE), 1, 1)
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
        return (manifest, node, src) if manifest is not None else None

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
                    dict(t.platforms),
                    list(t.tools),
                    list(t.mcp_servers),
                    list(manifest.dependencies),
                    script_roots=self.scripts,
                    exempt=_exemption(manifest),
                )
            )

    def matches(self, folder: Path, pattern: str, at: SourceSpan, what: str) -> list[Path]:
        """The files a glob of the manifest names, inside the workspace root only (``globs.py``)."""
        found, problems = workspace_matches(folder, pattern, self.root, at, what)
        self.ws.problems.extend(problems)
        return found

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

    def add_unique(self, table: dict[str, Any], key: str, value: Any, what: str, fix: str) -> None:
        """Names are global within a workspace: a second definition is an error at its own line."""
        existing = table.get(key)
        if existing is not None:
            verb = "declared" if "declared" in what else "defined"
            self.problem(value.span, what, why=f"also {verb} at {existing.span}", fix=fix)
            return
        table[key] = value

    def add_legacy_target(self, path: Path) -> None:
        src, node = self.read(path)
        legacy = validate(src, node, LegacyTarget, path.name) if node is not None else None
        self.keep(src)
        if legacy is None:
            return
        display = legacy.display_name or legacy.id
        self.check_mcp_scripts(legacy.mcp_servers, path, src, node_at(node, ["mcp_servers"])[0])
        self.add_target(
            Target(
                legacy.id,
                display,
                path,
                src.span(node),
                dict(legacy.platforms),
                [t for t in legacy.tools if isinstance(t, str)],
                list(legacy.mcp_servers),
                script_roots=self.scripts,
            )
        )

    def check_mcp_scripts(self, servers: list[Any], declared_in: Path, src: Source, listed: Node) -> None:
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

    # -- toolsets and tools ---------------------------------------------------------------------
    def add_toolset(self, path: Path, node: Node | None = None, src: Source | None = None) -> None:
        if node is None or src is None:
            src, node = self.read(path)
        toolset = validate(src, node, ToolsetConfig, "toolset") if node is not None else None
        self.keep(src)
        if toolset is not None:
            self.ws.toolsets[toolset.id] = toolset

    def add_tool_file(
        self, path: Path, trailmap: str | None = None, node: Node | None = None, src: Source | None = None
    ) -> None:
        if node is None or src is None:
            src, node = self.read(path)
        definition = read_tool_definition(src, node, path, trailmap, self.code) if node is not None else None
        self.keep(src)
        if definition is None:
            return
        self.check_tool_name(definition)
        self.add_unique(
            self.ws.tool_defs,
            definition.name,
            definition,
            f"tool '{definition.name}' is defined twice",
            "tool names are global: rename one",
        )

    def check_tool_name(self, definition: ToolDef) -> None:
        if definition.mode == "class" and ":" not in (definition.config.class_ or ""):
            return  # an upstream framework class: its name is upstream's, not the author's
        for finding in check_tool_name(definition.name):
            warn = finding.severity != "error" and not self.loader.strict
            self.problem(definition.span, finding.what, finding.fix, finding.why, warn=warn)

    def add_workspace_entries(self) -> None:
        """Inline or ``{ref: path}`` toolsets and tools listed in ``trailblaze.yaml``.

        A key that is not a list was already reported by the schema; it contributes nothing.
        """
        if self.config_node is None:
            return
        src, node = self.config_node
        for key, add in (("toolsets", self.add_toolset), ("tools", self.add_tool_file)):
            entries, _ = node_at(node, [key])
            if entries is node or not isinstance(entries, SequenceNode):
                continue
            for entry in entries.value:
                ref = _ref(entry)
                target = None if ref is None else self.dir / ref
                if target is None:
                    add(self.dir / CONFIG_FILE, node=entry, src=Source(src.path))
                elif not inside(target, self.root):
                    self.problem(
                        src.span(entry),
                        f"`ref: {ref}` leaves the workspace",
                        why=f"it resolves to {os.path.realpath(target)}, outside the workspace root "
                        f"{self.root}",
                        fix="keep referenced files inside the workspace",
                    )
                elif target.exists():
                    add(target.resolve())
                else:
                    self.problem(src.span(entry), f"`ref: {ref}` does not exist", fix="fix the path")


def read_yaml(
    path: Path, *, limit: int = DEFAULT_MAX_BYTES, root: Path | None = None
) -> tuple[Source, Node | None]:
    """A YAML file as a node tree, with unreadable, refused (a pipe, too big, a link out of
    ``root``: see ``files.read_source``) or malformed files as problems of its Source."""
    src = Source(_shown(path))
    try:
        text = read_source(path, limit=limit, root=root)
    except FileRefused as exc:
        src.problem(None, exc.what, why=exc.why, fix=exc.fix)
        return src, None
    return src, src.compose(text)


def load_file(path: Path, kind: str) -> tuple[Any, list[Problem]]:
    """One workspace file on its own: ``trailmap``, ``toolset``, ``tool`` or ``target``."""
    src, node = read_yaml(path)
    if node is None:
        if not src.problems:
            src.problem(None, f"{path.name} is empty", fix="add the file's keys")
        return None, src.problems
    if kind == "tool":
        return read_tool_definition(src, node, path, None), src.problems
    model = {"trailmap": TrailmapManifest, "toolset": ToolsetConfig, "target": LegacyTarget}[kind]
    return validate(src, node, model, path.name), src.problems


def _lists_tools(manifest: TrailmapManifest) -> bool:
    target = manifest.target
    if target is None:
        return False
    return bool(target.tools) or any(c and c.tools for c in target.platforms.values())


def _exemption(manifest: TrailmapManifest) -> str | None:
    """``trail_validation.exempt``: a reason; a blank one is no exemption (as upstream)."""
    reason = manifest.trail_validation.exempt if manifest.trail_validation else None
    return reason.strip() if reason and reason.strip() else None


def _ref(entry: Node) -> str | None:
    if isinstance(entry, MappingNode) and len(entry.value) == 1 and entry.value[0][0].value == "ref":
        value = entry.value[0][1]
        return None if is_null(value) else str(value.value)
    return None


def _shown(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)
