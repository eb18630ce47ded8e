"""What verification tools assert about a web page, with Playwright's waiting assertions.

A mixin of ``WebDriver`` (the contract's ``WebChecks``). Each check waits up to its timeout for
what it asserts, itself bounded a little past it: Playwright's waiting assertions wait on the
page, and a page whose script stops yielding while they wait would keep them (and the run)
waiting for good (``pageguard.py`` names and stops such a script). When a check does not hold,
a page stuck in its own script is named as the cause first, then a page that showed a file the
trail may not open (``fileurls.py``), then "no such element" is told apart from "the element is
there but does not hold".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TypeVar

from ..core.errors import ToolFailure, first_line
from ..core.run.driver import Element
from .element_actions import located, tool_call
from .pageguard import PageGuard

if TYPE_CHECKING:
    from playwright.sync_api import Locator, LocatorAssertions, Page

#: How long the input-value fallback of a text check waits, after the text check itself.
VALUE_FALLBACK_MS = 1_000
#: How far past its own timeout a waiting assertion may run before the page is taken for stuck.
GRACE_S = 3.0

T = TypeVar("T")


class PageChecks:
    """Assertions over ``self.page`` and located elements."""

    page: Page
    guard: PageGuard
    check_frames: Callable[[], None]  # which ``file://`` pages the trail may show (``fileurls.py``)

    if TYPE_CHECKING:

        def within(self, action: Callable[[], T], what: str, seconds: float | None = None) -> T:
            """The driver's bounded call into the page (``pageguard.py``)."""
            ...

    def _waiting(self, assertion: Callable[[], None], what: str, timeout_ms: int) -> AssertionError | None:
        """A waiting assertion, bounded past its timeout: None when it held, Playwright's
        ``AssertionError`` when it did not. A stuck page or a file the page may not show is the
        cause rather than the assertion: those raise ``ToolFailure`` (the step's failure)."""
        self.check_frames()
        try:
            self.within(assertion, what, timeout_ms / 1000 + GRACE_S)
        except ToolFailure:
            raise
        except AssertionError as exc:
            self.guard.check_alive(what, timeout_ms / 1000)
            self.check_frames()
            return exc
        return None

    def text_visible(self, text: str, timeout_ms: int) -> bool:
        """Whether text (a case-insensitive substring) becomes visible on the page in time."""
        target = self.page.get_by_text(text).first
        what = f"looking for text {text!r}"
        return (
            self._waiting(lambda: _expect(target).to_be_visible(timeout=timeout_ms), what, timeout_ms) is None
        )

    def expect_visible(self, target: Element, timeout_ms: int) -> None:
        self._expect_element(target, timeout_ms, lambda e: e.to_be_visible(timeout=timeout_ms))

    def expect_attribute(self, target: Element, name: str, expected: str, timeout_ms: int) -> None:
        self._expect_element(
            target, timeout_ms, lambda e: e.to_have_attribute(name, expected, timeout=timeout_ms)
        )

    def expect_value(self, target: Element, expected: str, timeout_ms: int) -> None:
        self._expect_element(target, timeout_ms, lambda e: e.to_have_value(expected, timeout=timeout_ms))

    def expect_text(self, target: Element, expected: str, timeout_ms: int) -> None:
        """The element's text contains ``expected``; failing that, its input value is ``expected``."""
        from playwright.sync_api import Error

        found = located(target)
        element, described = found.locator.first, found.described
        def contains() -> None:
            _expect(element).to_contain_text(expected, timeout=timeout_ms)

        def valued() -> None:
            _expect(element).to_have_value(expected, timeout=VALUE_FALLBACK_MS)

        if self._waiting(contains, described, timeout_ms) is None:
            return
        try:
            if self._waiting(valued, described, VALUE_FALLBACK_MS) is None:
                return
        except Error:  # not an input element: its text is what it shows
            pass
        if self.within(element.count, f"looking for {described}") == 0:
            raise ToolFailure(f"No element found matching {described}")
        shown = tool_call(lambda: element.inner_text(timeout=VALUE_FALLBACK_MS), "could not read the element")
        raise ToolFailure(f"{described} does not contain {expected!r} (its text is {shown!r})")

    def texts_missing(self, target: Element, texts: Sequence[str]) -> list[str]:
        """Which of ``texts`` the target's first element does not show now."""
        container = located(target).locator.first
        return [
            text for text in texts if self.within(container.get_by_text(text).count, "looking for it") == 0
        ]

    def _expect_element(
        self, target: Element, timeout_ms: int, check: Callable[[LocatorAssertions], None]
    ) -> None:
        """Run an ``expect`` assertion on the target's first element."""
        found = located(target)
        element, described = found.locator.first, found.described
        failed = self._waiting(lambda: check(_expect(element)), described, timeout_ms)
        if failed is None:
            return
        if self.within(element.count, f"looking for {described}") == 0:
            raise ToolFailure(f"No element found matching {described}")
        raise ToolFailure(f"{described}: {first_line(failed)}")


def _expect(element: Locator) -> LocatorAssertions:
    """Playwright's ``expect`` (imported on first use, so loading the driver stays cheap)."""
    from playwright.sync_api import expect

    return expect(element)
