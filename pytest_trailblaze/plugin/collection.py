"""Collection: trail files become ``TrailFile`` collectors, each yielding one item per platform.

Items are ``pytest.Function`` objects built with ``callobj=``: the callable names the
``trailblaze_run`` fixture, so fixtures, marks, ``-k``/``-m`` and xdist work through public API.
Everything here is pure parsing; no browser, device or subprocess is started.
"""

from __future__ import annotations

import re
import warnings
from fnmatch import fnmatch
from pathlib import Path
from typing import Any

import pytest

from ..core.devices import NATIVE_DRIVERS, PLATFORMS, driver_type, platform_of
from ..core.errors import ConfigurationError, Problem, TrailblazeError, TrailLoadError
from ..core.lineage import resolve
from ..core.loader import classifier_from_filename, load_trail
from ..core.memory import bind_args
from ..core.model import Trail
from ..tools import builtin_tools
from ..workspace import Target, Workspace, WorkspaceLoader, find_config_dir, trail_target
from .options import SETTINGS_KEY, Settings

DECLARED_ARGS_KEY = pytest.StashKey[set[str]]()
PIN_NOTES_KEY = pytest.StashKey[dict[str, set[str]]]()
NO_DRIVER = {
    "android": "no android driver configured: android recordings replay through Appium "
    "(pass --trailblaze-appium-url, see the README) or a pytest_trailblaze_make_driver hook",
    "ios": "no ios driver configured: ios recordings replay through Appium "
    "(pass --trailblaze-appium-url, see the README) or a pytest_trailblaze_make_driver hook",
    "desktop": "no desktop driver: Compose desktop trails need a pytest_trailblaze_make_driver hook",
}


def run_trail_item(trailblaze_run: Any) -> None:
    """Replay the trail's steps (its trailhead already ran during setup)."""
    trailblaze_run.run_steps()


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    name = file_path.name
    if name == "trailblaze.yaml":
        return None
    settings = parent.config.stash[SETTINGS_KEY]
    if any(fnmatch(name, pattern) for pattern in settings.patterns):
        return TrailFile.from_parent(parent, path=file_path)
    return None


class TrailFile(pytest.File):
    """A trail file; loading errors become one collection error listing every problem."""

    def collect(self) -> list[TrailItem]:
        settings = self.config.stash[SETTINGS_KEY]
        trail = load_trail(self.path, display_path=display_path(self.path, self.config))
        workspace = workspace_for(self.config, self.path)
        target = resolve_target(trail, workspace)
        self.config.stash.setdefault(DECLARED_ARGS_KEY, set()).update(trail.config.args)
        try:
            bind_args(trail.config.args, settings.args_for(trail.config.args))
        except ConfigurationError as exc:
            raise ConfigurationError(f"{trail.path}: the trail's args cannot be bound:\n{exc}") from None
        base = trail_name(trail, self.path, self.config.rootpath)
        items = []
        for platform in item_platforms(trail, settings):
            item = TrailItem.from_parent(
                self, name=f"{base}[{platform}]", callobj=run_trail_item, trail=trail, platform=platform
            )
            item.workspace, item.target = workspace, target
            mark_item(item, trail, platform, settings)
            items.append(item)
        return items

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException]) -> Any:
        if isinstance(excinfo.value, TrailblazeError):
            return str(excinfo.value)
        return super().repr_failure(excinfo)


class TrailItem(pytest.Function):
    """One trail on one platform."""

    def __init__(self, *, trail: Trail, platform: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.trail = trail
        self.platform = platform
        self.trail_id = trail.config.id or self.name.rsplit("[", 1)[0]
        self.workspace: Workspace | None = None
        self.target: Target | None = None

    def reportinfo(self) -> tuple[Path, int, str]:
        line = self.trail.span.line - 1 if self.trail.span else 0
        return self.path, line, self.name

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException]) -> Any:
        if isinstance(excinfo.value, TrailblazeError) and not self.config.stash[SETTINGS_KEY].full_trace:
            return str(excinfo.value)
        return super().repr_failure(excinfo)


class TrailblazeWarning(pytest.PytestWarning):
    """Advice about trails and workspaces: naming conventions, scoping, ignored files."""


WORKSPACES_KEY = pytest.StashKey[WorkspaceLoader]()


def warn_at(problem: Problem, fallback_path: str) -> None:
    """Show advice as a pytest warning that points at the file and line it is about."""
    span = problem.span
    warnings.warn_explicit(
        TrailblazeWarning(problem.format()),
        TrailblazeWarning,
        span.path if span else fallback_path,
        span.line if span else 0,
    )


def workspace_for(config: pytest.Config, path: Path) -> Workspace | None:
    """The workspace a trail belongs to, loaded once; its errors stop the trail's collection."""
    settings = config.stash[SETTINGS_KEY]
    config_dir = find_config_dir(path, settings.config_dir)
    if config_dir is None:
        return None
    loader = config.stash.get(WORKSPACES_KEY, None)
    if loader is None:
        loader = WorkspaceLoader(builtin_names=(t.name for t in builtin_tools()), strict=settings.strict)
        config.stash[WORKSPACES_KEY] = loader
    fresh = not loader.is_loaded(config_dir)
    workspace = loader.load(config_dir)
    if fresh:
        for problem in workspace.warnings:
            warn_at(problem, str(config_dir))
    if workspace.errors:
        raise TrailLoadError(workspace.errors)
    return workspace


def resolve_target(trail: Trail, workspace: Workspace | None) -> Target | None:
    """The target ``config.target`` (or the workspace default) names; unknown names are errors."""
    target, unknown = trail_target(trail, workspace)
    if unknown is not None:
        raise TrailLoadError([unknown])
    return target


def display_path(path: Path, config: pytest.Config) -> str:
    """The path as the user typed it: relative to where pytest was started when possible."""
    try:
        return str(path.relative_to(config.invocation_params.dir))
    except ValueError:
        return str(path)


def trail_name(trail: Trail, path: Path, rootpath: Path) -> str:
    """``config.id``, else the upstream short name: the path after ``/trails/``, no suffix."""
    if trail.config.id:
        return trail.config.id
    posix = path.as_posix()
    short = posix.rsplit("/trails/", 1)[1] if "/trails/" in posix else _relative(path, rootpath)
    if path.name == "trail.yaml" or classifier_from_filename(path.name):
        return short.rsplit("/", 1)[0] if "/" in short else path.parent.name
    return short.removesuffix(".trail.yaml")


def _relative(path: Path, rootpath: Path) -> str:
    try:
        return path.relative_to(rootpath).as_posix()
    except ValueError:
        return path.as_posix()


def item_platforms(trail: Trail, settings: Settings) -> tuple[str, ...]:
    """Platforms from the trail's classifiers; a trail naming none runs on the default platform."""
    platforms = trail.platforms()
    if platforms:
        return tuple(p for p in PLATFORMS if p in platforms)
    return (settings.default_platform,)


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
    if pin:
        note_pin(config, pin, platform, item.nodeid)
    reason = skip_reason(trail, platform)
    if reason:
        item.add_marker(pytest.mark.skip(reason=reason))


def register_tag(config: pytest.Config, tag: str) -> str:
    """Tags become markers; characters a ``-m`` expression cannot hold turn into ``_``.

    pytest marker names may not start with ``_`` or a digit, so such tags get a ``tag_`` prefix.
    """
    name = re.sub(r"\W", "_", tag.strip())
    if not name or name[0] == "_" or name[0].isdigit():
        name = f"tag_{name.lstrip('_')}"
    known = config.stash.setdefault(_TAGS_KEY, set())
    if name not in known:
        known.add(name)
        config.addinivalue_line("markers", f"{name}: trails tagged '{tag}' (config.tags)")
    return name


_TAGS_KEY = pytest.StashKey[set[str]]()


def driver_pin(trail: Trail, platform: str, settings: Settings) -> str | None:
    """The driver enum name pinned for this platform (``--trailblaze-driver`` wins)."""
    if settings.driver_override:
        kind = driver_type(settings.driver_override)
        if kind is not None and kind.platform == platform:
            return kind.name
    hit = resolve(trail.config.devices, (platform,))
    if hit:
        return hit[1]
    narrower = [pin for key, pin in trail.config.devices.items() if platform_of(key) == platform]
    if narrower:
        return narrower[0]  # e.g. `ios-iphone: IOS_HOST`; the live device decides at run time
    if trail.config.driver:
        kind = driver_type(trail.config.driver)
        return kind.name if kind is not None and kind.platform == platform else None
    return None


def note_pin(config: pytest.Config, pin: str, platform: str, nodeid: str) -> None:
    native = NATIVE_DRIVERS.get(platform)
    if pin != native:
        config.stash.setdefault(PIN_NOTES_KEY, {}).setdefault(pin, set()).add(nodeid)


def skip_reason(trail: Trail, platform: str) -> str | None:
    """``config.skip`` for the platform (closest-wins).

    A platform without a driver is not skipped here: a ``pytest_trailblaze_make_driver`` hook may
    still provide one, and only the ``trailblaze_driver`` fixture asks it.
    """
    skips = trail.config.skip
    if skips:
        if not trail.classifiers():
            reasons = [r.strip() for r in skips.values() if r.strip()]
            if reasons:
                return f"config.skip: {reasons[0]}"
        hit = resolve(skips, (platform,))
        if hit and hit[1].strip():
            return f"config.skip for {hit[0]}: {hit[1].strip()}"
    return None
