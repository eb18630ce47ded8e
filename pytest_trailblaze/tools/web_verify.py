"""Built-in web verification tools: what a trail asserts about the page, with upstream's names.

Each check waits (``EXPECT_TIMEOUT_MS``) for what it asserts and tells "no such element" apart
from "the element is there but does not hold".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..core.errors import ToolFailure
from ..core.run.driver import SentRequest
from ..core.tooling.context import ToolContext
from ..core.tooling.tooldef import CaseInsensitiveEnum
from ..core.trail.nodeselector import NodeSelector
from .declaring import ToolDecorator
from .limits import TimeoutMs
from .web import target, web, web_tool

EXPECT_TIMEOUT_MS = 5_000


class ValueCheck(CaseInsensitiveEnum):
    TEXT = "TEXT"
    VALUE = "VALUE"
    ATTRIBUTE = "ATTRIBUTE"


def verify_tool(**kwargs: Any) -> ToolDecorator:
    return web_tool(is_verification=True, toolset="web_verification", **kwargs)


@verify_tool()
def web_verifyTextVisible(ctx: ToolContext, text: str) -> str:
    """Assert that text (case-insensitive substring) is visible on the page."""
    if not web(ctx).text_visible(text, EXPECT_TIMEOUT_MS):
        raise ToolFailure(f"text {text!r} is not visible on the page (waited {EXPECT_TIMEOUT_MS // 1000} s)")
    return f"Text {text!r} is visible"


@verify_tool()
def web_verifyElementVisible(
    ctx: ToolContext, ref: str | None = None, nodeSelector: NodeSelector | None = None
) -> str:
    """Assert that an element is visible."""
    driver = web(ctx)
    element = target(driver, ref, nodeSelector)
    driver.expect_visible(element, EXPECT_TIMEOUT_MS)
    return f"{element.described} is visible"


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
    element = target(driver, ref, nodeSelector)
    if type is ValueCheck.ATTRIBUTE:
        if not attribute:
            raise ToolFailure("web_verifyValue with type ATTRIBUTE needs `attribute`")
        driver.expect_attribute(element, attribute, expected, EXPECT_TIMEOUT_MS)
    elif type is ValueCheck.VALUE:
        driver.expect_value(element, expected, EXPECT_TIMEOUT_MS)
    else:  # contains the text, else has it as its input value, as upstream checks
        driver.expect_text(element, expected, EXPECT_TIMEOUT_MS)
    return f"{element.described} has {type.value.lower()} {expected!r}"


@verify_tool()
def web_verifyListVisible(
    ctx: ToolContext, items: list[str], ref: str | None = None, nodeSelector: NodeSelector | None = None
) -> str:
    """Assert that a container is visible and shows every listed item."""
    if not items:
        raise ToolFailure("web_verifyListVisible needs at least one item")
    driver = web(ctx)
    container = target(driver, ref, nodeSelector)
    driver.expect_visible(container, EXPECT_TIMEOUT_MS)
    missing = driver.texts_missing(container, items)
    if missing:
        raise ToolFailure(f"{container.described} does not show: {', '.join(repr(m) for m in missing)}")
    return f"{container.described} shows all {len(items)} items"


@verify_tool()
def web_assertNetworkEvent(ctx: ToolContext, eventName: str, timeoutMs: TimeoutMs = 5_000) -> str:
    """Assert that an event name appears in a request the pages sent (URL or body, any case)."""
    if not eventName.strip():
        raise ToolFailure("eventName must not be blank: an empty name would match every request")
    driver = web(ctx)
    found = driver.find_request(eventName, timeoutMs)
    if found is None:
        raise ToolFailure(_event_not_sent(eventName, timeoutMs, driver.sent_requests()))
    return f"Network event {eventName!r} was sent: {found.method} {found.url}"


def _event_not_sent(event_name: str, timeout_ms: int, requests: Sequence[SentRequest]) -> str:
    """Which requests were scanned, the latest few named, so a near miss is easy to spot."""
    latest = requests[-5:]
    shown = f"; the last {len(latest)}: " + ", ".join(r.describe() for r in latest) if latest else ""
    return (
        f"network event {event_name!r} is in none of the {len(requests)} request(s) this trail's "
        f"pages sent (URL or body, waited {timeout_ms} ms){shown}"
    )


TOOLS = (
    web_verifyTextVisible,
    web_verifyElementVisible,
    web_verifyValue,
    web_verifyListVisible,
    web_assertNetworkEvent,
)
