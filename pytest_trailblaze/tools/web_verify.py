"""Built-in web verification tools: what a trail asserts about the page, with upstream's names.

Each check waits (``EXPECT_TIMEOUT_MS``) for what it asserts and tells "no such element" apart
from "the element is there but does not hold".
"""

from __future__ import annotations

from typing import Any

from ..core.errors import ToolFailure, first_line
from ..core.tooling.context import ToolContext
from ..core.tooling.tooldef import CaseInsensitiveEnum
from ..core.trail.nodeselector import NodeSelector
from ..drivers.playwright import WebDriver
from .limits import TimeoutMs
from .web import _guard, _selector, playwright, web, web_tool

EXPECT_TIMEOUT_MS = 5_000


class ValueCheck(CaseInsensitiveEnum):
    TEXT = "TEXT"
    VALUE = "VALUE"
    ATTRIBUTE = "ATTRIBUTE"


# -- verification ------------------------------------------------------------------------------
def verify_tool(**kwargs: Any) -> Any:
    return web_tool(is_verification=True, toolset="web_verification", **kwargs)


@verify_tool()
def web_verifyTextVisible(ctx: ToolContext, text: str) -> str:
    """Assert that text (case-insensitive substring) is visible on the page."""
    driver = web(ctx)
    try:
        playwright().expect(driver.page.get_by_text(text).first).to_be_visible(timeout=EXPECT_TIMEOUT_MS)
    except AssertionError:
        driver.guard.check_alive(f"looking for text {text!r}", EXPECT_TIMEOUT_MS / 1000)
        raise ToolFailure(
            f"text {text!r} is not visible on the page (waited {EXPECT_TIMEOUT_MS // 1000} s)"
        ) from None
    return f"Text {text!r} is visible"


@verify_tool()
def web_verifyElementVisible(
    ctx: ToolContext, ref: str | None = None, nodeSelector: NodeSelector | None = None
) -> str:
    """Assert that an element is visible."""
    driver = web(ctx)
    locator, described = driver.locate(ref, _selector(nodeSelector))
    _expect_element(driver, locator.first, described, lambda e: e.to_be_visible(timeout=EXPECT_TIMEOUT_MS))
    return f"{described} is visible"


@verify_tool()
def web_verifyValue(
    ctx: ToolContext,
    expected: str,
    type: ValueCheck = ValueCheck.TEXT,
    attribute: str = "",
    ref: str | None = None,
    nodeSelector: NodeSelector | None = None,
) -> str:
    """Assert an element's text (contains), input value, or attribute."""
    driver = web(ctx)
    locator, described = driver.locate(ref, _selector(nodeSelector))
    first = locator.first
    if type is ValueCheck.ATTRIBUTE:
        if not attribute:
            raise ToolFailure("web_verifyValue with type ATTRIBUTE needs `attribute`")
        _expect_element(
            driver,
            first,
            described,
            lambda e: e.to_have_attribute(attribute, expected, timeout=EXPECT_TIMEOUT_MS),
        )
    elif type is ValueCheck.VALUE:
        _expect_element(
            driver, first, described, lambda e: e.to_have_value(expected, timeout=EXPECT_TIMEOUT_MS)
        )
    else:
        _expect_text_or_value(driver, first, described, expected)
    return f"{described} has {type.value.lower()} {expected!r}"


@verify_tool()
def web_verifyListVisible(
    ctx: ToolContext, items: list[str], ref: str | None = None, nodeSelector: NodeSelector | None = None
) -> str:
    """Assert that a container is visible and shows every listed item."""
    if not items:
        raise ToolFailure("web_verifyListVisible needs at least one item")
    driver = web(ctx)
    locator, described = driver.locate(ref, _selector(nodeSelector))
    container = locator.first
    _expect_element(driver, container, described, lambda e: e.to_be_visible(timeout=EXPECT_TIMEOUT_MS))
    missing = [
        item for item in items if driver.within(container.get_by_text(item).count, "looking for it") == 0
    ]
    if missing:
        raise ToolFailure(f"{described} does not show: {', '.join(repr(m) for m in missing)}")
    return f"{described} shows all {len(items)} items"


@verify_tool()
def web_assertNetworkEvent(ctx: ToolContext, eventName: str, timeoutMs: TimeoutMs = 5_000) -> str:
    """Assert that an event name appears in a request the pages sent (URL or body, any case)."""
    if not eventName.strip():
        raise ToolFailure("eventName must not be blank: an empty name would match every request")
    driver = web(ctx)
    found = _guard(lambda: driver.find_request(eventName, timeoutMs), "could not read the page's requests")
    if found is None:
        raise ToolFailure(_event_not_sent(eventName, timeoutMs, driver.network_log.requests))
    return f"Network event {eventName!r} was sent: {found.method} {found.url}"


def _event_not_sent(event_name: str, timeout_ms: int, requests: list[Any]) -> str:
    """Which requests were scanned, the latest few named, so a near miss is easy to spot."""
    latest = requests[-5:]
    shown = f"; the last {len(latest)}: " + ", ".join(r.describe() for r in latest) if latest else ""
    return (
        f"network event {event_name!r} is in none of the {len(requests)} request(s) this trail's "
        f"pages sent (URL or body, waited {timeout_ms} ms){shown}"
    )


def _expect_element(driver: WebDriver, element: Any, described: str, check: Any) -> None:
    """Run an ``expect`` assertion; distinguish 'no such element' from 'assertion did not hold'."""
    try:
        check(playwright().expect(element))
    except AssertionError as exc:
        driver.guard.check_alive(described, EXPECT_TIMEOUT_MS / 1000)
        if driver.within(element.count, f"looking for {described}") == 0:
            raise ToolFailure(f"No element found matching {described}") from None
        raise ToolFailure(f"{described}: {first_line(exc)}") from None


def _expect_text_or_value(driver: WebDriver, element: Any, described: str, expected: str) -> None:
    """TEXT checks contain-text first, then fall back to the input value, as upstream does."""
    try:
        playwright().expect(element).to_contain_text(expected, timeout=EXPECT_TIMEOUT_MS)
        return
    except AssertionError:
        driver.guard.check_alive(described, EXPECT_TIMEOUT_MS / 1000)
    try:
        playwright().expect(element).to_have_value(expected, timeout=1_000)
    except (AssertionError, playwright().Error):
        if driver.within(element.count, f"looking for {described}") == 0:
            raise ToolFailure(f"No element found matching {described}") from None
        shown = _guard(lambda: element.inner_text(timeout=1_000), "could not read the element")
        raise ToolFailure(f"{described} does not contain {expected!r} (its text is {shown!r})") from None


TOOLS = (
    web_verifyTextVisible,
    web_verifyElementVisible,
    web_verifyValue,
    web_verifyListVisible,
    web_assertNetworkEvent,
)
