"""Bounds on calls into a page: a script that never yields, or a promise that never settles.

Playwright's ``evaluate`` (and ``count()``, key presses, wheel events, viewport changes) has no
timeout: a page running ``while(true){}`` or returning ``new Promise(() => {})`` keeps the call,
and the run, waiting forever. ``PageGuard.call`` runs such a call with a bound:

- a timer on Playwright's loop, due at the bound, throws ``CallTimeout`` into the waiting caller
  (``loopstate.bounded``); Playwright then cancels the call as it does when Ctrl-C arrives in one.
- The page is then probed (``evaluate("0")``, itself bounded; a page between documents is asked
  again in the new one). A page that answers had a promise that never settled: the call fails,
  the page goes on. A page that does not answer is busy in its own script: on Chromium,
  ``Runtime.terminateExecution`` is sent over a DevTools session attached when the page was
  made (a session attached later would queue behind the busy script), which stops the script
  and keeps the page; elsewhere, or when that does not help, the page is closed.
- A Playwright timeout of a call that has its own (a screenshot, a snapshot) gets the same probe,
  so a busy page is named as the cause instead of a bare timeout.

Either way the step fails with the cause and the run goes on; the browser is closed at teardown
as always.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from contextlib import AbstractContextManager, suppress
from typing import TYPE_CHECKING, TypeVar

from ..core.errors import FatalToolError, ToolFailure
from .loopstate import CallTimeout, bounded

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, CDPSession, Page

T = TypeVar("T")

#: How long the probe and each rescue step may take.
PROBE_S = 2.0
CLOSE_S = 10.0
#: How often a probe is asked again in the next document of a page that keeps navigating.
NEW_DOCUMENT_PROBES = 5


class PageGuard:
    """Bounded calls into one page; ``session`` is a DevTools session of the page (Chromium) or None."""

    def __init__(
        self, page: Page, loop: asyncio.AbstractEventLoop | None, session: CDPSession | None = None
    ) -> None:
        self.page = page
        self.loop = loop
        self.session = session

    @classmethod
    def attach(
        cls, context: BrowserContext, page: Page, loop: asyncio.AbstractEventLoop | None, chromium: bool
    ) -> PageGuard:
        """A guard for ``page``; on Chromium with a DevTools session attached now, while the page is idle."""
        from playwright.sync_api import Error

        session = None
        if chromium:
            with suppress(Error):
                session = context.new_cdp_session(page)
        return cls(page, loop, session)

    def call(self, action: Callable[[], T], *, within_s: float, what: str) -> T:
        """``action()`` (a sync Playwright call into the page) bounded by ``within_s`` seconds.

        Raises ``ToolFailure`` naming ``what`` when the page did not answer in time (its script was
        stopped, or a promise never settled), ``FatalToolError`` when the page had to be closed.
        """
        from playwright.sync_api import TimeoutError as PlaywrightTimeout

        try:
            with self._bounded(within_s):
                return action()
        except CallTimeout:
            self._rescue(what, within_s, timed_out=None)
        except PlaywrightTimeout as exc:
            self._rescue(what, within_s, timed_out=exc)
            raise
        raise AssertionError("unreachable")  # _rescue always raises for a call of ours that timed out

    def check_alive(self, what: str, waited_s: float) -> None:
        """After a Playwright timeout: a page that does not answer is busy in its own script; stop
        it and fail with that cause (nothing happens for a page that answers)."""
        self._rescue(what, waited_s, timed_out=TimeoutError())

    def _rescue(self, what: str, within_s: float, timed_out: Exception | None) -> None:
        """After a call outlived its bound: find out why, stop a busy script, say so."""
        if self._answers():
            if timed_out is not None:
                return  # an ordinary timeout of a live page: the caller's own message says it
            raise ToolFailure(f"{what}: no answer within {within_s:g} s (a promise the page never settled?)")
        busy = f"{what}: the page did not answer within {within_s:g} s: its script never yields"
        if self._stop_script() and self._answers():
            raise ToolFailure(f"{busy}; the script was stopped")
        if self._close():
            raise FatalToolError(f"{busy}; the page could not be stopped and was closed")
        raise FatalToolError(f"{busy}; the page could not be stopped or closed")

    def _answers(self) -> bool:
        """Whether the page runs ``0`` within ``PROBE_S``.

        A page between documents (a navigation just committed, or Chromium's error page replaced
        a load that failed) drops the probe's context with it. That is no busy script: the probe
        is asked again in the new document. A script that holds the page lets no navigation
        commit, so a page that keeps changing documents answers as well.
        """
        for _ in range(NEW_DOCUMENT_PROBES):
            try:
                with self._bounded(PROBE_S):
                    self.page.evaluate("0")
            except Exception as exc:
                if isinstance(exc, CallTimeout) or not _between_documents(exc):
                    return False
                continue
            return True
        return True

    def _stop_script(self) -> bool:
        if self.session is None:
            return False
        try:
            with self._bounded(PROBE_S):
                self.session.send("Runtime.terminateExecution")
        except Exception:
            return False
        return True

    def _close(self) -> bool:
        try:
            with self._bounded(CLOSE_S):
                self.page.close()
        except Exception:
            return False
        return True

    def _bounded(self, seconds: float) -> AbstractContextManager[None]:
        return bounded(self.loop, seconds)


def _between_documents(exc: BaseException) -> bool:
    """Playwright's error for a call whose document went away under it (a navigation)."""
    return "Execution context was destroyed" in str(exc)
