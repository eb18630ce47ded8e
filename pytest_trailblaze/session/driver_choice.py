"""What drives a session: the device it reports, a browser context handed in, and the browser
options merged with pytest-playwright's where a run has both."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, TypeGuard

from ..core.errors import DriverError
from ..core.tooling.context import DeviceInfo
from ..core.trail.devices import driver_type
from ..drivers.browser_options import BrowserOptions

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext

DEFAULT_BROWSER = BrowserOptions().browser


def reported_device(device: DeviceInfo, override: str | None) -> DeviceInfo:
    """The device as the session reports it: the driver ``--trailblaze-driver`` names for its platform.

    The plugin still drives the device with its own driver (Playwright, Appium); the reported
    driver is what tools, toolsets and MCP servers filtered by driver, the MCP environment and
    context, and the reports see, so trails and tools written for that upstream driver apply.
    """
    kind = driver_type(override) if override else None
    if kind is None or kind.platform != device.platform or kind.yaml_key == device.driver_key:
        return device
    return replace(device, driver_key=kind.yaml_key)


def handed_context(context: object) -> BrowserContext:
    """The Playwright context ``trailblaze_browser_context`` handed in, checked to be one."""
    if not _is_context(context):
        raise DriverError(
            f"trailblaze_browser_context returned {type(context).__name__}, not a Playwright "
            f"BrowserContext\n  fix: return a sync-API BrowserContext (e.g. pytest-playwright's "
            f"`context` fixture), or None for the trails' own browser"
        )
    return context


def _is_context(context: object) -> TypeGuard[BrowserContext]:
    """Whether ``context`` works as a sync-API ``BrowserContext`` (opens pages, lists them)."""
    return hasattr(context, "new_page") and hasattr(context, "pages")


def merged(options: BrowserOptions, browser: str | None, launch_args: Mapping[str, object]) -> BrowserOptions:
    """Our options over pytest-playwright's launch arguments: ``--trailblaze-*`` options said on
    purpose win (a browser other than the default, headed, an executable); the browser arguments
    of both are passed."""
    rest = dict(launch_args)
    args = rest.pop("args", None)
    their_args = tuple(str(arg) for arg in args) if isinstance(args, (list, tuple)) else ()
    headless = rest.pop("headless", None)
    executable = rest.pop("executable_path", None)
    chosen = options.browser if options.browser != DEFAULT_BROWSER else (browser or options.browser)
    return replace(
        options,
        browser=chosen,
        headed=options.headed or headless is False,
        executable_path=options.executable_path or (str(executable) if executable else None),
        launch_args=(*their_args, *options.launch_args),
        extra_launch={**rest, **dict(options.extra_launch)},
    )
