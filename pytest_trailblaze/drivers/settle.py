"""The web driver's settle: after an action, wait as long as the page is busy because of it.

A mixin of ``WebDriver``. Network activity is tracked from Playwright's own events
(``network.py``, which also keeps the trail's requests for ``web_assertNetworkEvent``), so an
action that started no request costs nothing, while one that navigated waits for ``load``
(10 s cap) and one that started requests waits for them to drain (5 s cap) plus a quiet window.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from .element_actions import tool_call
from .network import CapturedRequest, NetworkCapture, NetworkTracker

if TYPE_CHECKING:
    from playwright.sync_api import Page

    from .browser_options import BrowserOptions

T = TypeVar("T")

NAVIGATION_SETTLE_MS = 10_000
DRAIN_SETTLE_MS = 5_000
REQUEST_POLL_MS = 250


class PageSettle:
    """Settling after page actions, over the driver's ``page``, ``network`` and bounded calls."""

    page: Page
    options: BrowserOptions
    network: NetworkTracker
    network_log: NetworkCapture
    check_frames: Callable[[], None]  # which ``file://`` pages the trail may show (``fileurls.py``)

    if TYPE_CHECKING:

        def within(self, action: Callable[[], T], what: str, seconds: float | None = None) -> T:
            """The driver's bounded call into the page (``pageguard.py``)."""
            ...

    # -- settle -------------------------------------------------------------------------------
    def perform(self, action: Callable[[], T], *, flush: bool = True) -> T:
        """Run a page action, then wait as long as the page is still busy because of it.

        Playwright delivers the request events an action caused with its next message, so one
        cheap round trip (``flush``) comes first; it also brings ``page.url`` up to date. After an
        element click in Chromium, Playwright made that round trip itself (``Page.enable`` to the
        page's session before the click returns): measured, a fetch the click handler started, at
        once or in a microtask, is seen as reliably without ours (``tests/web/test_settle.py``).
        """
        started, navigations = self.network.started, self.network.navigations
        result = action()
        navigated = False
        if flush:
            navigated = not self._flush()
        if navigated or self.network.started != started:
            self._settle(navigated=navigated or self.network.navigations != navigations)
        self.check_frames()
        return result

    def _flush(self) -> bool:
        """One round trip to the page; False when the page was navigating away meanwhile."""
        from playwright.sync_api import Error

        try:
            self.within(lambda: self.page.evaluate("0"), "waiting for the page after the action")
        except Error:
            return False
        return True

    def _settle(self, *, navigated: bool) -> None:
        from playwright.sync_api import Error

        page = self.page
        try:
            if navigated:
                page.wait_for_load_state("load", timeout=NAVIGATION_SETTLE_MS)
                return
            waited = 0
            while self.network.pending and waited < DRAIN_SETTLE_MS:
                page.wait_for_timeout(25)
                waited += 25
            if self.options.settle_quiet_ms:
                page.wait_for_timeout(self.options.settle_quiet_ms)
        except Error:
            return  # a page still loading is not a failure of the action that started it

    # -- network capture (web_assertNetworkEvent) ---------------------------------------------
    def find_request(self, event_name: str, timeout_ms: int) -> CapturedRequest | None:
        """The first request this trail's pages sent that mentions ``event_name`` (URL or body).

        Polls until ``timeout_ms`` so a check right after an action sees a beacon the page sends a
        moment later; one full scan always runs, so 0 checks once. Playwright delivers events
        only during a call, hence the round trip before the first scan.
        """
        return tool_call(lambda: self._search(event_name, timeout_ms), "could not read the page's requests")

    def _search(self, event_name: str, timeout_ms: int) -> CapturedRequest | None:
        self._flush()
        deadline = time.monotonic() + timeout_ms / 1000
        found, start = self.network_log.search(event_name)
        while found is None and (left_s := deadline - time.monotonic()) > 0:
            self.page.wait_for_timeout(min(REQUEST_POLL_MS, left_s * 1000))
            found, start = self.network_log.search(event_name, start)
        return found
