"""Acting on web elements: the attach wait folded into the action, and Playwright's reasons.

A mixin of ``WebDriver``: an action runs with the attach budget first, and only when it times
out do we ask whether the element exists at all (not found → the "No element found" failure;
found but refusing the action → the rest of the action timeout, then Playwright's reason, such
as a modal that intercepts pointer events).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any, TypeVar

from ..core.errors import FatalToolError, ToolFailure, first_line
from .pageguard import PageGuard

T = TypeVar("T")

ATTACH_TIMEOUT_MS = 10_000


class ElementActions:
    """Actions on located elements, over the driver's settle (``settle.py``) and bounded calls."""

    options: Any
    guard: PageGuard
    clicks_flush: bool
    within: Callable[..., Any]  # the driver's bounded call into the page (``pageguard.py``)
    perform: Callable[..., Any]  # run a page action, then settle (``settle.py``)
    _settle: Callable[..., None]

    # -- acting on elements -----------------------------------------------------------------
    def act(
        self, locator: Any, described: str, action: Callable[[Any, float], T], *, pointer: bool = False
    ) -> T:
        """Run ``action(locator, timeout)`` with the attach wait folded into its first attempt.

        ``pointer``: the action is an element click, after which Playwright's Chromium already made
        the round trip to the page the settle needs (``inputActionEpilogue``), so ours is skipped.

        The first attempt's budget is the attach wait (10 s, or the action timeout if shorter).
        When it times out before acting: an element that never appeared is "No element found"
        (once the attach wait is over); one that was there but refused the action (covered by a
        modal, disabled, hidden) gets the rest of the action timeout and then fails with
        Playwright's reason; one that appeared only at the end gets the full action timeout. A
        timeout after the action was done (a navigation slow to commit) is not retried: the settle
        waits for the page instead.
        """
        from playwright.sync_api import TimeoutError as PlaywrightTimeout

        flush = not (pointer and self.clicks_flush)

        def attempt(budget: int) -> T:
            act = functools.partial(action, locator, budget)
            return self._guarded(lambda: self.perform(act, flush=flush), described)

        first = min(ATTACH_TIMEOUT_MS, self.options.action_timeout_ms)
        try:
            return attempt(first)
        except PlaywrightTimeout as exc:
            self.guard.check_alive(described, first / 1000)  # a page stuck in its own script: the cause
            if _action_done(exc):
                self._settle(navigated=True)
                return None  # type: ignore[return-value]
            budget = self._second_budget(locator, described, exc, first)
        try:
            return attempt(budget)
        except PlaywrightTimeout as exc:
            raise ToolFailure(_refused(described, exc, first + budget)) from None

    def _second_budget(self, locator: Any, described: str, exc: Exception, first: int) -> int:
        """How long the action may still try after a first attempt that timed out before acting."""
        timeout = self.options.action_timeout_ms
        if _resolved(exc):  # the element was there all along and refused the action
            if timeout <= first:
                raise ToolFailure(_refused(described, exc, first)) from None
            return timeout - first
        if self.within(locator.count, f"looking for {described}") == 0 and not self._attached_within(
            locator, ATTACH_TIMEOUT_MS - first
        ):
            raise ToolFailure(
                f"No element found matching {described} (waited {ATTACH_TIMEOUT_MS // 1000} s)"
            ) from None
        return timeout

    def _attached_within(self, locator: Any, timeout_ms: int) -> bool:
        """Whether an element of the locator attaches within ``timeout_ms`` (the attach wait's rest)."""
        from playwright.sync_api import TimeoutError as PlaywrightTimeout

        if timeout_ms <= 0:
            return False
        try:
            self._guarded(lambda: locator.first.wait_for(state="attached", timeout=timeout_ms), "")
        except PlaywrightTimeout:
            return False
        return True

    def _guarded(self, call: Callable[[], T], described: str) -> T:
        """Playwright errors other than timeouts become tool failures (or fatal, if the page is gone)."""
        from playwright.sync_api import Error
        from playwright.sync_api import TimeoutError as PlaywrightTimeout

        try:
            return call()
        except PlaywrightTimeout:
            raise
        except Error as exc:
            if _page_gone(exc):
                raise FatalToolError(f"the browser page is gone: {first_line(exc)}") from None
            raise ToolFailure(f"{described}: {first_line(exc)}") from None


def _action_done(exc: BaseException) -> bool:
    """Whether a timed-out action had already acted (Playwright's call log says so)."""
    log = str(exc)
    return "action done" in log or "waiting for scheduled navigations" in log


_REFUSAL = re.compile(
    r"^\s*-\s+(.*?(?:intercepts pointer events|element is not [a-z]+|element is outside of the viewport"
    r"|element was detached from the DOM).*)$",
    re.MULTILINE,
)


def _resolved(exc: BaseException) -> bool:
    """Whether a timed-out action had found its element (Playwright's call log says so)."""
    return "locator resolved to" in str(exc)


def _refused(described: str, exc: BaseException, waited_ms: int) -> str:
    """``css=#pay: Locator.click timed out after 30 s: <dialog open> intercepts pointer events``."""
    action = first_line(exc).split(":", 1)[0]
    reasons = _REFUSAL.findall(str(exc))
    because = f": {reasons[-1].strip()}" if reasons else ""
    return f"{described}: {action} timed out after {waited_ms / 1000:g} s{because}"


def _page_gone(exc: BaseException) -> bool:
    return "has been closed" in str(exc) or "Target closed" in str(exc)
