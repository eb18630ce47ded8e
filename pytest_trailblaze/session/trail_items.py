"""Which items a trail file becomes: one per platform (and device profile) it runs on, named."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, MutableMapping, Sequence
from dataclasses import dataclass
from fnmatch import fnmatch
from pathlib import Path

from ..core.docs import docs_page
from ..core.errors import ConfigurationError, Problem
from ..core.tooling.memory import bind_args
from ..core.trail.devices import PLATFORMS, driver_type, platform_of
from ..core.trail.legacy import BLAZE, DEFINITION, TrailDir, read_trail_dir
from ..core.trail.lineage import resolution_chain, resolve
from ..core.trail.model import ANY_DEVICE, Trail
from ..core.trail.parse import classifier_from_filename, script_problems
from ..drivers.profiles import DeviceProfile
from ..workspace import Target, Workspace, code_roots
from .settings import Settings

_APPIUM_HINT = f"(pass --trailblaze-appium-url, see {docs_page('guides/mobile/')})"
#: Why an item of a platform without a driver is skipped.
NO_DRIVER = {
    "android": "no android driver configured: android recordings replay through Appium "
    f"{_APPIUM_HINT} or a pytest_trailblaze_make_driver hook",
    "ios": "no ios driver configured: ios recordings replay through Appium "
    f"{_APPIUM_HINT} or a pytest_trailblaze_make_driver hook",
    "desktop": "no desktop driver: Compose desktop trails need a pytest_trailblaze_make_driver hook",
}

#: Legacy layouts read so far, by folder: each folder is read once per run.
Layouts = MutableMapping[Path, TrailDir]


@dataclass(frozen=True)
class ItemFacts:
    """A trail item as a session sees it, whatever runs it: one trail on one platform (and device)."""

    nodeid: str
    name: str
    trail_id: str
    trail: Trail
    path: Path
    platform: str
    workspace: Workspace | None = None
    target: Target | None = None


def trail_dir(known: Layouts, folder: Path) -> TrailDir:
    """The legacy layout of ``folder`` (see ``core.trail.legacy``), read once per run."""
    if folder not in known:
        known[folder] = read_trail_dir(folder)
    return known[folder]


def legacy_dir(known: Layouts, path: Path) -> TrailDir | None:
    """The legacy directory ``path`` is one file of, or None when it is a trail of its own."""
    if path.name not in (DEFINITION, BLAZE) and classifier_from_filename(path.name) is None:
        return None
    layout = trail_dir(known, path.parent)
    return layout if layout.is_legacy and layout.holds(path) else None


def item_pairs(known: Layouts, path: Path, trail: Trail, settings: Settings) -> list[tuple[str, str | None]]:
    """``(platform, device)`` of the file's items: one per platform (and device profile); in a
    legacy directory, only those whose device runs this file of it (docs/upstream.md, Trail files)."""
    platforms = item_platforms(trail, settings)
    layout = legacy_dir(known, path)
    if layout is None:
        return item_devices(platforms, settings)
    serves = layout.platforms_for(path, platforms)
    candidates = item_devices([p for p in PLATFORMS if p in serves], settings)
    return [(p, d) for p, d in candidates if runs_here(layout, path, p, d, settings)]


def runs_here(layout: TrailDir, path: Path, platform: str, device: str | None, settings: Settings) -> bool:
    """Whether the item of ``platform`` (on ``device``) runs this file of the directory."""
    profile = settings.appium.profiles.get(device or "")
    segments = profile.segments if profile is not None else (platform,)
    return layout.file_for(platform, segments) == path


def trail_name(trail: Trail, path: Path, rootpath: Path) -> str:
    """``config.id``, else the upstream short name: the path after ``/trails/``, no suffix."""
    if trail.config.id:
        return trail.config.id
    posix = path.as_posix()
    short = posix.rsplit("/trails/", 1)[1] if "/trails/" in posix else _relative(path, rootpath)
    if path.name in (DEFINITION, BLAZE) or classifier_from_filename(path.name):
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


def item_devices(platforms: Iterable[str], settings: Settings) -> list[tuple[str, str | None]]:
    """``(platform, device name)`` per item: one per device of the platform, else one per platform."""
    pairs: list[tuple[str, str | None]] = []
    for platform in platforms:
        names = [name for name, p in settings.appium.profiles.items() if p.platform == platform]
        pairs += [(platform, name) for name in names] or [(platform, None)]
    return pairs


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


def pin_notes(notes: dict[str, set[str]]) -> list[str]:
    """One line per upstream driver pin (and the items that name it) this plugin's own driver of
    the platform replaces: a note, not a failure."""
    return [
        f"trailblaze: driver pin {pin} ({len(ids)} item{'s' if len(ids) != 1 else ''}) "
        f"runs on this plugin's driver for its platform"
        for pin, ids in sorted(notes.items())
    ]


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


def is_trail_name(name: str, patterns: Iterable[str]) -> bool:
    """Whether a file of this name is a trail (``trailblaze.yaml`` never is)."""
    return name != "trailblaze.yaml" and any(fnmatch(name, pattern) for pattern in patterns)


def code_problems(
    trail: Trail, path: Path, workspace: Workspace | None, root: Path, settings: Settings
) -> list[Problem]:
    """The trail's ``script`` calls whose Python file lies outside where code may lie: the project
    ``root`` and the workspace's root (unless the run allows outside code)."""
    config_dir = workspace.config_dir if workspace else None
    return script_problems(trail, path.parent, code_roots(root, config_dir, settings.allow_outside_code))


def bind_trail_args(trail: Trail, settings: Settings) -> None:
    """The run's ``--trailblaze-arg`` values the trail declares must bind to its ``config.args``."""
    try:
        bind_args(trail.config.args, settings.args_for(trail.config.args))
    except ConfigurationError as exc:
        raise ConfigurationError(f"{trail.path}: the trail's args cannot be bound:\n{exc}") from None


def device_skip_reason(trail: Trail, segments: Sequence[str], platform: str) -> str | None:
    """``config.skip`` keyed by a device profile's classifier (``segments``, closest wins); a skip of
    the whole platform is ``skip_reason``'s."""
    hit = resolve(trail.config.skip, resolution_chain(segments))
    if hit and hit[0] not in (platform, ANY_DEVICE) and hit[1].strip():
        return f"config.skip for {hit[0]}: {hit[1].strip()}"
    return None


def pool_groups(profiles: Mapping[str, DeviceProfile]) -> Callable[[str | None], str | None]:
    """The ``xdist_group`` of the next item of each pooled device: dealt round-robin, one group per
    device of the pool (``android-1``, ``android-2``...), so each runs on one worker holding one
    device; None for an item of a device without a pool."""
    pools = {name: profile for name, profile in profiles.items() if profile.is_pool}
    dealt: Counter[str] = Counter()

    def group_of(name: str | None) -> str | None:
        if name not in pools:
            return None
        slot = dealt[name] % len(pools[name].devices)
        dealt[name] += 1
        return f"{name}-{slot + 1}"

    return group_of
