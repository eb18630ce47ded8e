"""Collection: trail files become ``TrailFile`` collectors, each yielding one item per platform.

Items are ``pytest.Function`` objects built with ``callobj=``: the callable names the
``trailblaze_run`` fixture, so fixtures, marks, ``-k``/``-m`` and xdist work through public API.
Everything here is pure parsing; no browser, device or subprocess is started.
"""

from __future__ import annotations

from collections.abc import Generator
from fnmatch import fnmatch
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ..core.errors import Problem, StepFailure, TrailblazeError, TrailLoadError
from ..core.masking import visible
from ..core.run.step_failures import failing_line, step_assertion
from ..core.tooling.staticcheck import path_problem
from ..core.trail.devices import NATIVE_DRIVERS
from ..core.trail.legacy import BLAZE, DEFINITION
from ..core.trail.model import Trail
from ..core.trail.parse import load_trail
from ..session.preflight import Preflight, drivable
from ..session.read_ahead import shown_from, uncollectable_trails
from ..session.registries import ToolCatalog, advise
from ..session.settings import Settings
from ..session.trail_items import (
    ItemFacts,
    Layouts,
    bind_trail_args,
    code_problems,
    driver_pin,
    is_trail_name,
    item_pairs,
    skip_reason,
    trail_dir,
    trail_name,
)
from ..session.trailrun import TrailRun
from ..session.workspaces import load_workspace, workspace_loader
from ..workspace import Target, Workspace, WorkspaceLoader, find_config_dir, trail_target
from .device_matrix import mark_device
from .failures import failure_repr
from .item_runs import skips_as_pytest
from .options import SETTINGS_KEY
from .output_masking import masker_of

if TYPE_CHECKING:
    from ..compat import ReprExceptionInfo, TerminalRepr
from .tags import read_before, register_all_tags, register_tag, trail_roots

DECLARED_ARGS_KEY = pytest.StashKey[set[str]]()
PIN_NOTES_KEY = pytest.StashKey[dict[str, set[str]]]()
CATALOG_KEY = pytest.StashKey[ToolCatalog]()
LAYOUTS_KEY = pytest.StashKey[Layouts]()
PREFLIGHT_KEY = pytest.StashKey[Preflight]()


def run_trail_item(trailblaze_run: TrailRun) -> None:
    """Replay the trail's steps (its trailhead already ran during setup).

    A failed step fails the test as a plain ``AssertionError`` (see ``failures``).
    """
    try:
        with skips_as_pytest():
            trailblaze_run.run_steps()
    except StepFailure as exc:
        raise step_assertion(exc, trailblaze_run.runner.failed, trailblaze_run.masker) from exc


@pytest.hookimpl(tryfirst=True)
def pytest_collect_directory(path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """A folder named like a trail file is an error, not a folder to walk (see ``path_problem``)."""
    if is_trail_name(path.name, parent.config.stash[SETTINGS_KEY].patterns):
        return TrailPathError.from_parent(parent, path=path)
    return None


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(
    collector: pytest.Collector,
) -> Generator[None, pytest.CollectReport, pytest.CollectReport]:
    """pytest's directory walk skips broken links, link loops, pipes and devices in silence; a
    trail-named one becomes an error (``TrailPathError``)."""
    report = yield
    if isinstance(collector, pytest.Directory) and report.passed:
        report.result.extend(broken_trail_links(collector))
    return report


def broken_trail_links(directory: pytest.Directory) -> list[pytest.Collector]:
    found: list[pytest.Collector] = []
    for path in uncollectable_trails(directory.path, directory.config.stash[SETTINGS_KEY].patterns):
        ignored = directory.ihook.pytest_ignore_collect(collection_path=path, config=directory.config)
        if not ignored:
            found.append(TrailPathError.from_parent(directory, path=path))
    return sorted(found, key=lambda node: node.path.name)


@pytest.hookimpl(tryfirst=True)
def pytest_collection(session: pytest.Session) -> None:
    """Register every trail tag as a marker before any test module is imported (see ``tags``);
    an xdist controller collects nothing, its workers do this themselves."""
    if not session.config.pluginmanager.has_plugin("dsession"):
        register_all_tags(session.config, lambda path: display_path(path, session.config))


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    settings = parent.config.stash[SETTINGS_KEY]
    if is_trail_name(file_path.name, settings.patterns):  # never trailblaze.yaml
        return TrailFile.from_parent(parent, path=file_path)
    legacy = file_path.name == BLAZE and is_trail_name(DEFINITION, settings.patterns)
    if legacy and trail_dir(layouts(parent.config), file_path.parent).definition == file_path:
        return TrailFile.from_parent(parent, path=file_path)  # a v1 definition (see core.trail.legacy)
    return None


def preflight(config: pytest.Config) -> Preflight:
    """The run's static checks of trails (``session.preflight``), made on first use."""
    found = config.stash.get(PREFLIGHT_KEY, None)
    if found is None:
        appium = config.stash[SETTINGS_KEY].appium.configured

        def can_drive(platform: str) -> bool:
            hooked = platform != "web" and bool(config.hook.pytest_trailblaze_make_driver.get_hookimpls())
            return drivable(platform, driver_hook=hooked, appium=appium)

        found = config.stash[PREFLIGHT_KEY] = Preflight(config.stash[CATALOG_KEY], can_drive)
    return found


def layouts(config: pytest.Config) -> Layouts:
    """The legacy folder layouts this run has read (each folder once)."""
    return config.stash.setdefault(LAYOUTS_KEY, {})


class TrailFile(pytest.File):
    """A trail file; loading errors become one collection error listing every problem."""

    def collect(self) -> list[TrailItem]:
        settings = self.config.stash[SETTINGS_KEY]
        trail = read_before(self.config, self.path) or load_trail(
            self.path,
            display_path=display_path(self.path, self.config),
            limit=settings.max_file_bytes,
            root=trail_roots(self.config),
        )
        workspace = workspace_for(self.config, self.path)
        target, unknown_target = trail_target(trail, workspace)
        pairs = item_pairs(layouts(self.config), self.path, trail, settings)
        platforms = tuple(dict.fromkeys(platform for platform, _ in pairs))
        problems = [unknown_target] if unknown_target else []
        problems += preflight(self.config).problems(trail, workspace, target, platforms)
        problems += code_problems(trail, self.path, workspace, self.config.rootpath, settings)
        for advice in [p for p in problems if p.severity != "error"]:  # an exempt target's findings
            warn_at(advice, str(self.path))
        problems = [p for p in problems if p.severity == "error"]
        if problems:
            raise TrailLoadError(problems)
        self.config.stash.setdefault(DECLARED_ARGS_KEY, set()).update(trail.config.args)
        bind_trail_args(trail, settings)
        base = visible(masker_of(self.config).name(trail_name(trail, self.path, self.config.rootpath)))
        items = []
        for platform, device in pairs:
            item = TrailItem.from_parent(
                self,
                name=f"{base}[{device or platform}]",
                callobj=run_trail_item,
                trail=trail,
                platform=platform,
                device=device,
            )
            item.workspace, item.target = workspace, target
            mark_item(item, trail, platform, settings)
            mark_device(item, trail, settings)
            items.append(item)
        return items

    # pytest's Collector and Function take no ``style`` either, unlike ``Node.repr_failure``
    def repr_failure(  # type: ignore[override]
        self, excinfo: pytest.ExceptionInfo[BaseException]
    ) -> str | TerminalRepr:
        if isinstance(excinfo.value, TrailblazeError):
            return str(excinfo.value)
        return super().repr_failure(excinfo)


class TrailPathError(TrailFile):
    """A path named like a trail file that is not a readable file: a broken link or a folder."""

    def collect(self) -> list[TrailItem]:
        settings = self.config.stash[SETTINGS_KEY]
        pattern = next((p for p in settings.patterns if fnmatch(self.path.name, p)), self.path.name)
        problem = path_problem(self.path, pattern, shown=display_path(self.path, self.config))
        raise TrailLoadError([problem] if problem else [])


class TrailItem(pytest.Function):
    """One trail on one platform (and device, when the capabilities file names devices)."""

    # ``kwargs``: what pytest.Function.from_parent passes on (name, callobj, ...)
    def __init__(self, *, trail: Trail, platform: str, device: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.trail = trail
        self.platform = platform
        #: The device profile (``android-tablet``) of the item, or None for the platform's default.
        self.device = device
        self.trail_id = self.name.rsplit("[", 1)[0]  # config.id, or the path, with secrets masked
        self.workspace: Workspace | None = None
        self.target: Target | None = None

    def facts(self) -> ItemFacts:
        """The item as the session sees it."""
        facts = (self.nodeid, self.name, self.trail_id, self.trail, self.path, self.platform)
        return ItemFacts(*facts, workspace=self.workspace, target=self.target)

    def reportinfo(self) -> tuple[Path, int, str]:
        """The trail's file and line: the failing step's line once a step has failed."""
        line = self.failed_step_line() or (self.trail.span.line if self.trail.span else 1)
        return self.path, line - 1, self.name

    def failed_step_line(self, error: BaseException | None = None) -> int | None:
        runner = getattr(self.funcargs.get("trailblaze_run"), "runner", None)
        failed = getattr(runner, "failed", None)
        if error is not None:
            return failing_line(error, failed)
        return failed.step.span.line if failed is not None else None

    def repr_failure(  # type: ignore[override]
        self, excinfo: pytest.ExceptionInfo[BaseException]
    ) -> str | TerminalRepr:
        """A failure of ours reads as the trail's text with a crash line (see ``failures``)."""
        return self.trail_repr(excinfo) or super().repr_failure(excinfo)

    def trail_repr(
        self, excinfo: pytest.ExceptionInfo[BaseException], *, failure: bool = True
    ) -> ReprExceptionInfo | None:
        """The report of a failure (or, not ``failure``, a setup error) of ours; None for others'."""
        if self.config.stash[SETTINGS_KEY].full_trace:
            return None
        line = self.failed_step_line(excinfo.value) or self.reportinfo()[1] + 1
        style = self.config.option.tbstyle
        return failure_repr(excinfo.value, self.trail.path, line, style, failure=failure)


class TrailblazeWarning(pytest.PytestWarning):
    """Advice about trails and workspaces: naming conventions, scoping, ignored files."""


WORKSPACES_KEY = pytest.StashKey[WorkspaceLoader]()


def warn_at(problem: Problem, fallback_path: str) -> None:
    """Show advice as a pytest warning that points at the file and line it is about."""
    advise(problem, fallback_path, TrailblazeWarning)


def workspace_for(config: pytest.Config, path: Path) -> Workspace | None:
    """The workspace a trail belongs to, loaded once; its errors stop the trail's collection."""
    settings = config.stash[SETTINGS_KEY]
    config_dir = find_config_dir(path, settings.config_dir)
    if config_dir is None:
        return None
    loader = config.stash.get(WORKSPACES_KEY, None)
    if loader is None:
        loader = config.stash[WORKSPACES_KEY] = workspace_loader(settings)
    workspace, fresh = load_workspace(loader, config_dir)
    if fresh:
        for problem in workspace.warnings:
            warn_at(problem, str(config_dir))
    if workspace.errors:
        raise TrailLoadError(workspace.errors)
    return workspace


def display_path(path: Path, config: pytest.Config) -> str:
    """The path as the user typed it: relative to where pytest was started when possible."""
    return shown_from(path, config.invocation_params.dir)


def mark_item(item: TrailItem, trail: Trail, platform: str, settings: Settings) -> None:
    """Platform, tag and ``trailblaze`` markers, and the skips known before anything runs."""
    config = item.config
    item.add_marker(getattr(pytest.mark, platform))
    for tag in trail.config.tags:
        item.add_marker(getattr(pytest.mark, register_tag(config, tag)))
    pin = driver_pin(trail, platform, settings)
    item.add_marker(
        pytest.mark.trailblaze(
            target=item.target.id if item.target is not None else trail.config.target,
            trail_id=item.trail_id,
            driver=pin,
            platform=platform,
            tags=trail.config.tags,
        )
    )
    if pin and pin != NATIVE_DRIVERS.get(platform):  # noted once for the run (``pin_notes``)
        config.stash.setdefault(PIN_NOTES_KEY, {}).setdefault(pin, set()).add(item.nodeid)
    reason = skip_reason(trail, platform)
    if reason:
        item.add_marker(pytest.mark.skip(reason=reason))
