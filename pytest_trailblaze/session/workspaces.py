"""Workspaces as a session loads them: once each, judged also by what the workspace package cannot
know, the agent's table of models.

A ``llm: defaults: model:`` the agent could not use, or a ``llm: models:`` entry it could not read,
is an error at its line, found before anything starts, whether or not a command-line model
overrides it. Whether the provider's client library is installed is checked only when a step
needs it, so a replay-only run works without the ``agent`` extra.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from ..agent.models import check_overrides
from ..agent.spec import model_problem
from ..core.errors import Problem
from ..core.system.files import DEFAULT_MAX_BYTES
from ..tools import builtin_tools
from ..workspace import Workspace, WorkspaceLoader
from ..workspace.loader import LoadedTrailmap
from .settings import Settings

_MODELS_FIX = "e.g. `openai/my-model: {vision: true, price: {input: 0.2, output: 1}}`"


def workspace_loader(settings: Settings) -> WorkspaceLoader:
    """The run's workspace loader: the built-in tools known, the run's limits applied."""
    return loader_of(
        strict=settings.strict,
        allow_outside_code=settings.allow_outside_code,
        max_file_bytes=settings.max_file_bytes,
    )


def loader_of(
    *, strict: bool = False, allow_outside_code: bool = False, max_file_bytes: int = DEFAULT_MAX_BYTES
) -> WorkspaceLoader:
    """A workspace loader that knows the built-in tools and reads the trailmaps' TypeScript tools,
    as pytest, ``trailblaze check`` and ``toolbox`` load workspaces."""
    return WorkspaceLoader(
        builtin_names=(t.name for t in builtin_tools()),
        strict=strict,
        allow_outside_code=allow_outside_code,
        max_file_bytes=max_file_bytes,
        scripted_tools=typescript_tools,
    )


def typescript_tools(
    ws: Workspace, trailmaps: Iterable[LoadedTrailmap], builtin_names: frozenset[str], *, strict: bool
) -> None:
    """The trailmaps' TypeScript tools (the loader's ``scripted_tools``). The typescript package is
    imported on first use: its discovery and runtime lookup cost every process about 11 ms of
    start-up (``python -X importtime``) that only workspaces with such tools need."""
    from ..typescript.workspace_tools import add_ts_tools

    add_ts_tools(ws, trailmaps, builtin_names, strict=strict)


def load_workspace(loader: WorkspaceLoader, config_dir: Path) -> tuple[Workspace, bool]:
    """The workspace of ``config_dir`` with its model problems, and whether this call loaded it
    (callers report a workspace's problems once)."""
    fresh = not loader.is_loaded(config_dir)
    workspace = loader.load(config_dir)
    if fresh:
        workspace.problems.extend(model_problems(workspace))
    return workspace, fresh


def model_problems(workspace: Workspace) -> list[Problem]:
    """The problems of the workspace's ``llm:`` models, at the lines that name them."""
    llm = workspace.config.llm
    if not isinstance(llm, dict):
        return []
    spans, problems = workspace.llm_spans, []
    models = llm.get("models")
    if models is not None:
        found = check_overrides(models, "llm.models")
        if found is not None:
            path = ("llm", "models", found[0]) if found[0] else ("llm", "models")
            problems.append(Problem(spans.get(path), found[1], fix=_MODELS_FIX))
    defaults = llm.get("defaults")
    model = defaults.get("model") if isinstance(defaults, dict) else None
    if model:
        problem = model_problem(str(model))
        if problem is not None:
            what, why, fix = problem
            span = spans.get(("llm", "defaults", "model"))
            problems.append(Problem(span, f"llm.defaults.model: {what}", why=why, fix=fix))
    return problems
