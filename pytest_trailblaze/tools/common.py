"""Platform-neutral built-in tools: waiting, launching the app, snapshots."""

from __future__ import annotations

import time

from ..core.errors import UnsupportedToolError
from ..core.run.driver import AppLaunching, Pausing
from ..core.tooling.context import ToolContext
from ..core.tooling.tooldef import CaseInsensitiveEnum, tool
from .limits import Seconds
from .snapshot import take_snapshot


class Direction(CaseInsensitiveEnum):
    """Which way a swipe (mobile) or a scroll (web) goes; one vocabulary for every platform."""

    UP = "UP"
    DOWN = "DOWN"
    LEFT = "LEFT"
    RIGHT = "RIGHT"


class LaunchMode(CaseInsensitiveEnum):
    REINSTALL = "REINSTALL"
    RESUME = "RESUME"
    FORCE_RESTART = "FORCE_RESTART"


@tool(source="builtin", toolset="core_interaction")
def wait(ctx: ToolContext, timeToWaitInSeconds: Seconds = 5) -> str:
    """Wait a fixed number of seconds."""
    seconds = max(0.0, float(timeToWaitInSeconds))
    if isinstance(ctx.driver, Pausing):  # the device's clock: a page keeps running meanwhile
        ctx.driver.sleep(seconds)
    else:
        time.sleep(seconds)
    return f"Waited {seconds:g} s"


@tool(source="builtin", toolset="navigation")
def launchApp(ctx: ToolContext, appId: str, launchMode: LaunchMode = LaunchMode.REINSTALL) -> str:
    """Launch the app under test (REINSTALL clears its state first); a no-op on web."""
    if ctx.platform == "web":
        return f"launchApp is a no-op on web ({appId})"
    if not isinstance(ctx.driver, AppLaunching):
        raise UnsupportedToolError(f"the {ctx.platform} driver cannot launch apps", tool="launchApp")
    return ctx.driver.launch_app(appId, launchMode.value)


@tool(source="builtin", toolset="observation")
def takeSnapshot(ctx: ToolContext, screenName: str, description: str | None = None) -> str:
    """Save a screenshot and the UI hierarchy into the test's artifacts."""
    return take_snapshot(ctx, screenName, description)


TOOLS = (wait, launchApp, takeSnapshot)
