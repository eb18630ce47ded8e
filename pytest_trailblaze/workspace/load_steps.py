"""The steps every part of a workspace load shares: reading a YAML file of the workspace, and
keeping its problems (each with its ``file:line:col``) on the workspace being loaded."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol, TypeVar

from yaml.nodes import Node

from ..core.errors import Problem, SourceSpan
from ..core.system.files import DEFAULT_MAX_BYTES, FileRefused, read_source
from ..core.system.pycall import CodeRoots
from ..core.trail.yamlsource import Source
from .globs import workspace_matches
from .model import Workspace
from .schema import TrailmapManifest

CONFIG_FILE = "trailblaze.yaml"


class LoaderSettings(Protocol):
    """What a load reads of its ``WorkspaceLoader``: its options, and the warnings it gave."""

    strict: bool
    max_file_bytes: int
    warned: set[str]
    #: The tools the plugin has built in (upstream tool files naming them are navigation metadata).
    builtin_names: frozenset[str]


class Declared(Protocol):
    """A named definition of the workspace (a target, a tool): where it is written."""

    @property
    def span(self) -> SourceSpan: ...


_Declared = TypeVar("_Declared", bound=Declared)


class LoadSteps:
    """One workspace load: its state, and the file reading and problem keeping every step uses."""

    loader: LoaderSettings
    ws: Workspace
    dir: Path
    #: Every file and glob of the workspace stays inside this folder (links followed).
    root: Path
    code: CodeRoots
    scripts: CodeRoots
    config_node: tuple[Source, Node] | None
    #: Trailmaps added, for their TypeScript tools (read once the tool files are).
    added: list[tuple[TrailmapManifest, Node, Source, Path]]

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

    def add_unique(
        self, table: dict[str, _Declared], key: str, value: _Declared, what: str, fix: str
    ) -> None:
        """Names are global within a workspace: a second definition is an error at its own line."""
        existing = table.get(key)
        if existing is not None:
            verb = "declared" if "declared" in what else "defined"
            self.problem(value.span, what, why=f"also {verb} at {existing.span}", fix=fix)
            return
        table[key] = value

    def matches(self, folder: Path, pattern: str, at: SourceSpan, what: str) -> list[Path]:
        """The files a glob of the manifest names, inside the workspace root only (``globs.py``)."""
        found, problems = workspace_matches(folder, pattern, self.root, at, what)
        self.ws.problems.extend(problems)
        return found


def read_yaml(
    path: Path, *, limit: int = DEFAULT_MAX_BYTES, root: Path | None = None
) -> tuple[Source, Node | None]:
    """A YAML file as a node tree, with unreadable, refused (a pipe, too big, a link out of
    ``root``: see ``files.read_source``) or malformed files as problems of its Source."""
    src = Source(shown_path(path))
    try:
        text = read_source(path, limit=limit, root=root)
    except FileRefused as exc:
        src.problem(None, exc.what, why=exc.why, fix=exc.fix)
        return src, None
    return src, src.compose(text)


def shown_path(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)
