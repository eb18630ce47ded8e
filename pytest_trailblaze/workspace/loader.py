"""Loading a workspace: ``trails/config/trailblaze.yaml``, trailmaps, legacy targets, toolsets, tools.

Everything is validated at load, before any device starts. Every problem carries its
``file:line:col``; naming and scoping findings that upstream treats as advisory are warnings
(one per trailmap and file, however often the workspace is loaded) unless strict mode is on.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Protocol

from pydantic import BaseModel
from yaml.nodes import Node

from ..core.errors import Problem, SourceSpan
from ..core.system.files import DEFAULT_MAX_BYTES, glob_inside
from ..core.system.pycall import CodeRoots
from ..core.trail.yamlsource import Source
from .file_tools import build_tools
from .load_steps import CONFIG_FILE, read_yaml
from .model import ToolDef, Workspace
from .schema import (
    LegacyTarget,
    Strict,
    ToolsetConfig,
    TrailmapManifest,
    WorkspaceConfig,
    node_at,
    validate,
)
from .servers import mcp_script_roots
from .toolfile import read_tool_definition
from .trailmaps import TrailmapSteps


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


#: A trailmap as the loader read it: its manifest, YAML node, source and path.
LoadedTrailmap = tuple[TrailmapManifest, Node, Source, Path]


class ScriptedTools(Protocol):
    """Adds the scripted tools of the loaded trailmaps to ``ws`` (problems into ``ws.problems``)."""

    def __call__(
        self,
        ws: Workspace,
        trailmaps: Iterable[LoadedTrailmap],
        builtin_names: frozenset[str],
        *,
        strict: bool,
    ) -> None: ...


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
        scripted_tools: ScriptedTools | None = None,
    ) -> None:
        self.strict = strict
        #: Adds the trailmaps' scripted (TypeScript) tools; the session passes the typescript
        #: package's discovery, which reads this package's models (so it cannot be imported here).
        self.scripted_tools = scripted_tools
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


class _Load(TrailmapSteps):
    """One workspace load."""

    def __init__(self, loader: WorkspaceLoader, config_dir: Path) -> None:
        self.loader = loader
        self.scripted_tools = loader.scripted_tools
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
        self.added: list[LoadedTrailmap] = []

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
        """The trailmaps' TypeScript tools, looked for only when a trailmap has a ``tools/``
        folder or lists tools, by the loader's ``scripted_tools`` (none: such tools are not read)."""
        add = self.scripted_tools
        wanted = [a for a in self.added if (a[3].parent / "tools").is_dir() or _lists_tools(a[0])]
        if wanted and add is not None:
            add(self.ws, wanted, self.loader.builtin_names, strict=self.loader.strict)

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
            self.ws.llm_spans = _llm_spans(src, node, self.ws.config.llm)
        self.keep(src)


def load_file(path: Path, kind: str) -> tuple[BaseModel | ToolDef | None, list[Problem]]:
    """One workspace file on its own: ``trailmap``, ``toolset``, ``tool`` or ``target``."""
    src, node = read_yaml(path)
    if node is None:
        if not src.problems:
            src.problem(None, f"{path.name} is empty", fix="add the file's keys")
        return None, src.problems
    if kind == "tool":
        return read_tool_definition(src, node, path, None), src.problems
    models: dict[str, type[Strict]] = {
        "trailmap": TrailmapManifest,
        "toolset": ToolsetConfig,
        "target": LegacyTarget,
    }
    model = models[kind]
    return validate(src, node, model, path.name), src.problems


def _llm_spans(src: Source, node: Node, llm: object) -> dict[tuple[str, ...], SourceSpan]:
    """Where ``llm: models:`` (each model under it too) and ``llm: defaults: model:`` are written.

    The loader does not judge them: what a model name or a model's facts may be is the agent's
    table, and the session, which knows both, reports a bad one at these lines.
    """
    paths = [("llm", "models"), ("llm", "defaults", "model")]
    models = llm.get("models") if isinstance(llm, dict) else None
    if isinstance(models, dict):
        paths += [("llm", "models", str(key)) for key in models]
    return {path: src.span(node_at(node, list(path))[0]) for path in paths}


def _lists_tools(manifest: TrailmapManifest) -> bool:
    target = manifest.target
    if target is None:
        return False
    return bool(target.tools) or any(c and c.tools for c in target.platforms.values())
