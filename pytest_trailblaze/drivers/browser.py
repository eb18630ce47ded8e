"""The worker's browser: how it is launched, and the one place trail contexts are made.

``BrowserHost`` starts Playwright and one browser on first use and stops both at the end of the
session. Every browser context a trail runs in comes from ``BrowserHost.new_context`` (our
browser) or goes through ``prepare_context`` (a context handed in by the user), so settings that
apply to every trail context (timeouts, no animations, the video folder) live here; traces start
with the trail's first step (``web_recording.py``).

Playwright's loop is marked on the thread only while this module's code uses it (``loopstate``):
the host leaves it marked after a call, as Playwright's sync API does, and the plugin's fixtures
clear it again around each trail.
"""

from __future__ import annotations

import functools
import shutil
from collections.abc import Mapping
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core.errors import DriverError, first_line
from ..core.system.node_cache import compile_cache_for_children
from . import browser_launch, ffmpeg, remote
from .browser_options import BrowserOptions
from .loopstate import CallTimeout, PlaywrightLoop, bounded

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, BrowserType, Playwright

#: How long a browser may take to close before it is killed (Playwright's own wait is 30 s).
BROWSER_CLOSE_S = 5.0
CHROMIUM_FLAGS = (
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)
SYSTEM_CHROMIUM = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
#: Chromium's headless shell: what Playwright itself runs for headless Chromium. Measured on a
#: 2-core VM (benchmarks/xdist_scaling.py), a trail costs it about a third of the CPU the full
#: browser in ``--headless`` mode spends, which is what lets two xdist workers run side by side.
HEADLESS_SHELL = ("chromium-headless-shell", "/usr/lib/chromium/chromium-headless-shell")
NO_ANIMATIONS = """(() => {
  const css = '*,*::before,*::after{animation-duration:0s!important;animation-delay:0s!important;' +
              'transition-duration:0s!important;transition-delay:0s!important;caret-color:transparent!important}';
  const add = () => { const s = document.createElement('style'); s.textContent = css;
                      (document.head || document.documentElement).appendChild(s); };
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', add); else add();
})();"""


def find_system_chromium(headless: bool = False) -> str | None:
    """Debian's (or any distro's) Chromium on PATH, for machines without Playwright's own build.

    Headless, the headless shell is preferred when it is installed (Debian: the package
    ``chromium-headless-shell``), as Playwright prefers its own; headed, only a full browser works.
    """
    for name in (HEADLESS_SHELL if headless else ()) + SYSTEM_CHROMIUM:
        found = shutil.which(name)
        if found:
            return found
    return "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None


def prepare_context(context: BrowserContext, options: BrowserOptions) -> None:
    """What every trail context gets, ours or handed in: the trail timeouts and no animations."""
    context.set_default_timeout(options.action_timeout_ms)
    context.set_default_navigation_timeout(options.navigation_timeout_ms)
    context.add_init_script(NO_ANIMATIONS)


class BrowserHost:
    """Starts Playwright and one browser on first use; stops both at the end of the session."""

    def __init__(self, options: BrowserOptions) -> None:
        self.options = options
        self.loop = PlaywrightLoop()
        self._playwright: Playwright | None = None
        self._browser: Browser | None = None
        self._failure: DriverError | None = None

    @property
    def browser(self) -> Browser:
        """The browser, started on first use; a failed start is reported again, not retried."""
        if self._failure is not None:
            raise DriverError(str(self._failure))
        self.loop.enter()
        if self._browser is None:
            try:
                self._browser = self._start()
            except DriverError as exc:
                self._failure = exc
                raise
        return self._browser

    def launch_kwargs(self) -> dict[str, Any]:
        """Launch arguments; a missing Playwright Chromium falls back to the system one."""
        opts = self.options
        kwargs: dict[str, Any] = {
            "headless": not opts.headed,
            "timeout": opts.launch_timeout_s * 1000,
            **dict(opts.extra_launch),
        }
        args = list(opts.launch_args)
        if opts.browser == "chromium":
            args = [*CHROMIUM_FLAGS, *args]
        if args:
            kwargs["args"] = args
        if opts.executable_path:
            kwargs["executable_path"] = opts.executable_path
        return kwargs

    def _start(self) -> Browser:
        from playwright.sync_api import Error, sync_playwright
        from playwright.sync_api import TimeoutError as PlaywrightTimeout

        with compile_cache_for_children():  # the driver starts in 2/3 of the time (node_cache.py)
            self._playwright = sync_playwright().start()
        self.loop.started()
        browser_type: BrowserType = getattr(self._playwright, self.options.browser)
        try:
            if self.options.connect or self.options.cdp:
                return remote.connect(self._playwright, self.options)
            kwargs = self.launch_kwargs()
            if not {"executable_path", "channel"} & kwargs.keys() and self.options.browser == "chromium":
                bundled = Path(browser_type.executable_path)
                if not bundled.exists():
                    kwargs["executable_path"] = find_system_chromium(kwargs["headless"]) or str(bundled)
            return browser_type.launch(**kwargs)
        except PlaywrightTimeout as exc:
            self.close()  # stopping Playwright's driver stops what it launched
            browser_launch.kill_launched(str(exc))
            raise DriverError(self._launch_timeout(exc)) from None
        except Error as exc:
            self.close()
            raise DriverError(self._start_failure(exc)) from None

    def _launch_timeout(self, exc: Exception) -> str:
        waited, opts = self.options.launch_timeout_s, self.options
        if opts.connect or opts.cdp:
            return remote.timeout_message(opts, waited)
        executable = self.launch_kwargs().get("executable_path", "")
        return browser_launch.launch_timeout_message(opts.browser, waited, str(exc), executable)

    def _start_failure(self, exc: Exception) -> str:
        first = first_line(exc)
        if self.options.connect or self.options.cdp:
            return remote.failure_message(self.options, exc)
        return (
            f"could not start {self.options.browser}: {first}\n"
            f"  fix: install Chromium (Debian: apt-get install chromium) or pass "
            f"--trailblaze-browser-path /path/to/browser"
        )

    def context_args(self, extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """``new_context()`` arguments of a trail: the viewport, a video folder when videos are
        recorded (and Playwright has its ffmpeg), then the caller's extras."""
        width, height = self.options.viewport
        args: dict[str, Any] = {"viewport": {"width": width, "height": height}}
        if self.options.video_dir is not None and self.video_problem is None:
            args["record_video_dir"] = str(self.options.video_dir)
        return {**args, **dict(extra or {})}

    def new_context(self, extra: Mapping[str, Any] | None = None) -> BrowserContext:
        """A fresh context of our browser with the trail settings (the one place they are made)."""
        context = self.browser.new_context(**self.context_args(extra))
        prepare_context(context, self.options)
        return context

    @functools.cached_property
    def video_problem(self) -> str | None:
        """Why trail contexts record no video although one is asked for (no ffmpeg), or None."""
        return ffmpeg.missing() if self.options.video_dir is not None else None

    def close(self) -> None:
        """Close the browser, then stop Playwright; one that is gone already counts as closed.

        Playwright gives a closing browser 30 s to exit before it kills it, and waits until every
        process holding the browser's output has gone: a Chromium child that lingers (on a busy
        machine) made an xdist worker's teardown, and so the whole run, wait those 30 s. After
        ``BROWSER_CLOSE_S`` the close is given up; stopping Playwright then kills the browser's
        process group at once.

        After Ctrl-C in a terminal, the driver and the browser got the SIGINT too and may have
        exited: their "Target closed" errors are not failures of the run that is ending. The
        thread's loop mark is put back as it was (none, once ours is stopped).
        """
        from playwright.sync_api import Error

        browser, playwright = self._browser, self._playwright
        self._browser = self._playwright = None
        with self.loop.active():
            try:
                if browser is not None:
                    with suppress(Error, CallTimeout), bounded(self.loop.loop, BROWSER_CLOSE_S):
                        browser.close()
            finally:
                if playwright is not None:
                    with suppress(Error):
                        playwright.stop()
