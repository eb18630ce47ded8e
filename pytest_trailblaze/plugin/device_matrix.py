"""Device profiles in the test matrix: one item per trail and device, pools leased per worker.

A capabilities file naming several devices of a platform (``drivers.profiles``) turns each
trail of that platform into one item per device, ``trail[android-tablet]``, marked with the
device's name so ``-m android-tablet`` and ``-k tablet`` select it. A device with a pool
(``devices:``) is leased by each pytest-xdist worker for its session (``drivers.pool``); under
``--dist loadgroup`` its items are dealt round-robin into one ``xdist_group`` per pool device,
so each group runs on one worker holding one device and no worker waits for a device.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from ..session.properties import published
from ..session.settings import Settings
from .options import SETTINGS_KEY

if TYPE_CHECKING:  # collection marks its items here: a loop at import time
    from xdist.workermanage import WorkerController

    from ..core.trail.model import Trail
    from ..drivers.appium import AppiumHost, MobileDriver
    from .collection import TrailItem

#: The run's lease folder: made by xdist's controller (or the only process), handed to workers.
LEASES_KEY = pytest.StashKey[Path]()
_WORKER_INPUT = "trailblaze_leases"


def mark_device(item: TrailItem, trail: Trail, settings: Settings) -> None:
    """The device's marker, and a ``config.skip`` keyed by the device's classifier."""
    from ..session.trail_items import device_skip_reason  # where items are made: not on a controller

    profile = settings.appium.profiles.get(item.device or "")
    if profile is None:
        return
    if profile.name != item.platform:
        item.add_marker(getattr(pytest.mark, profile.name))
    reason = device_skip_reason(trail, profile.segments, item.platform)
    if reason:
        item.add_marker(pytest.mark.skip(reason=reason))


def pytest_configure(config: pytest.Config) -> None:
    """Register the devices' markers; make (or receive) the run's lease folder when pools exist."""
    profiles = config.stash[SETTINGS_KEY].appium.profiles
    for profile in profiles.values():
        if profile.name != profile.platform:
            line = f"{profile.name}: trail items on the {profile.name} device (--trailblaze-appium-caps)"
            config.addinivalue_line("markers", line)
    if not any(p.is_pool for p in profiles.values()):
        return
    given = getattr(config, "workerinput", {}).get(_WORKER_INPUT)
    if given:
        config.stash[LEASES_KEY] = Path(given)
        return
    run_dir = Path(tempfile.mkdtemp(prefix="trailblaze-leases-"))
    config.stash[LEASES_KEY] = run_dir
    config.add_cleanup(lambda: shutil.rmtree(run_dir, ignore_errors=True))


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: WorkerController) -> None:
    """pytest-xdist: every worker of the run leases from the controller's folder."""
    run_dir = node.config.stash.get(LEASES_KEY, None)
    if run_dir is not None:
        node.workerinput[_WORKER_INPUT] = str(run_dir)


@pytest.hookimpl(tryfirst=True)  # before xdist's worker reads the groups into the node ids
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under ``--dist loadgroup``, one ``xdist_group`` per pool device, items dealt round-robin."""
    if not config.getoption("loadgroup", False):  # set by xdist on its workers for --dist loadgroup
        return
    from ..session.trail_items import pool_groups

    group_of = pool_groups(config.stash[SETTINGS_KEY].appium.profiles)
    for item in items:
        free = item.get_closest_marker("xdist_group") is None
        if free and (group := group_of(getattr(item, "device", None))):
            item.add_marker(pytest.mark.xdist_group(group))


def appium_driver(request: pytest.FixtureRequest, item: TrailItem) -> MobileDriver | None:
    """The item's device on Appium, or None when no server is configured for it.

    The session is the device profile's (one per worker, or per trail when sessions are
    fresh); a pooled profile's device is leased by this worker on first use.
    """
    settings = request.config.stash[SETTINGS_KEY].appium
    name = item.device or item.platform
    profile = settings.profile(name, item.platform)
    if not settings.serves(profile):
        return None
    capabilities = request.getfixturevalue("trailblaze_appium_capabilities").get(name)
    if not capabilities:
        pytest.skip(
            f"no Appium capabilities for {name}: add an `{name}:` map to "
            f"--trailblaze-appium-caps or to the trailblaze_appium_capabilities fixture"
        )
    host: AppiumHost = request.getfixturevalue("trailblaze_appium")
    driver = host.new_driver(item.platform, capabilities, profile)
    leased = host.pools.device(profile)
    facts = [("device", name)] if name != item.platform else []
    facts += [("pool_device", leased.label)] if leased is not None else []
    item.user_properties[:] = published(item.user_properties, facts, ("device", "pool_device"))
    return driver
