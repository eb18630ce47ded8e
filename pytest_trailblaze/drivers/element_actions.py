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
from typing import TYPE_CHECKING, TypeVar

from ..core.errors import FatalToolError, ToolFailure, first_line
from ..core.run.driver import Element
from .locators import Located
from .pageguard import PageGuard

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page

    from .browser_options import BrowserOptions

T = TypeVar("T")

ATTACH_TIMEOUT_MS = 10_000


class ElementActions:
    """Actions on located elements, over the driver's settle (``settle.py``) and bounded calls."""

    options: BrowserOptions
    guard: PageGuard
    clicks_flush: bool
    _settle: Callable[..., None]
    page: Page

    if TYPE_CHECKING:

        def within(self, action: Callable[[], T], what: str, seconds: float | None = None) -> T:
            """The driver's bounded call into the page (``pageguard.py``)."""
            ...

        def perform(self, action: Callable[[], T], *, flush: bool = True) -> T:
            """Run a page action, then settle (``settle.py``)."""
            ...

    # -- the contract's element actions (``WebElements``) ----------------------------------------
    def click(self, target: Element) -> None:
        """Click the first element the target finds (answered by the page: see ``act``)."""
        found = located(target)
        self.act(
            found.locator.first, found.described, lambda loc, t: loc.click(timeout=t), answered_by_page=True
        )

    def fill(self, target: Element, text: str, *, sequentially: bool = False) -> None:
        """Replace the field's content with ``text``, or type it key by key after what is there."""
        found = located(target)
        if sequentially:
            self.act(found.locator, found.described, lambda loc, t: loc.press_sequentially(text, timeout=t))
        else:
            self.act(found.locator, found.described, lambda loc, t: loc.fill(text, timeout=t))

    def hover(self, target: Element) -> None:
        found = located(target)
        self.act(found.locator, found.described, lambda loc, t: loc.hover(timeout=t))

    def select(self, target: Element, values: list[str]) -> list[str]:
        """Select options of a ``<select>`` by value or label; the values now selected."""
        found = located(target)
        chosen = self.act(
            found.locator,
            found.described,
            lambda loc, t: loc.select_option(values, timeout=t),
            answered_by_page=True,
        )
        return list(chosen or values)

    def press_key(self, key: str) -> None:
        """A key or chord on the focused element (``Enter``, ``Control+A``)."""
        press = functools.partial(self.within, lambda: self.page.keyboard.press(key), f"pressing {key!r}")
        tool_call(lambda: self.perform(press), f"could not press {key!r}")

    def scroll(self, dx: int, dy: int, over: Element | None = None) -> None:
        """Turn the mouse wheel, over the target's first element when one is given."""
        if over is not None:
            found = located(over)
            self.act(found.locator.first, found.described, lambda loc, t: loc.hover(timeout=t))
        self.perform(lambda: self.within(lambda: self.page.mouse.wheel(dx, dy), "scrolling"))

    # -- acting on elements -----------------------------------------------------------------
    def act(
        self,
        locator: Locator,
        described: str,
        action: Callable[[Locator, float], T],
        *,
        answered_by_page: bool = False,
    ) -> T:
        """Run ``action(locator, timeout)`` with the attach wait folded into its first attempt.

        ``answered_by_page``: in Chromium, the action's last step is a call the page itself answers
        after its event handlers ran, so the request events they caused arrive before the answer
        and the settle's own round trip is skipped: an element click ends with ``Page.enable``
        (Playwright's ``inputActionEpilogue``), a select picks the options and fires ``input`` and
        ``change`` in a script it runs in the page. A fill does not: its text goes in by
        ``Input.insertText``, which the browser answers, not the page.

        The first attempt's budget is the attach wait (10 s, or the action timeout if shorter).
        When it times out before acting: an element that never appeared is "No element found"
        (once the attach wait is over); one that was there but refused the action (covered by a
        modal, disabled, hidden) gets the rest of the action timeout and then fails with
        Playwright's reason; one that appeared only at the end gets the full action timeout. A
        timeout after the action was done (a navigation slow to commit) is not retried: the settle
        waits for the page instead.
        """
        from playwright.sync_api import TimeoutError as PlaywrightTimeout

        flush = not (answered_by_page and self.clicks_flush)

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

    def _second_budget(self, locator: Locator, described: str, exc: Exception, first: int) -> int:
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

    def _attached_within(self, locator: Locator, timeout_ms: int) -> bool:
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


def located(target: Element) -> Located:
    """The web driver's own form of an element it located (the contract keeps it opaque)."""
    if not isinstance(target, Located):
        raise FatalToolError(f"{target.described} was not located by the web driver")
    return target


def tool_call(action: Callable[[], T], what: str, timed_out: Callable[[], None] | None = None) -> T:
    """Run a Playwright call; its errors become a tool failure with the first line of the cause.

    ``timed_out()`` runs first when the call timed out (not when it failed at once).
    """
    from playwright.sync_api import Error
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        return action()
    except Error as exc:
        if timed_out is not None and isinstance(exc, PlaywrightTimeout):
            timed_out()
        raise ToolFailure(f"{what}: {first_line(exc)}") from None


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
