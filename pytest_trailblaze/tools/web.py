"""Built-in web tools over the Playwright web driver, with upstream's names and arguments.

Each tool resolves its target with ``WebDriver.locate`` (``drivers/locators.py``), acts through
``WebDriver.act`` / ``perform`` so the post-action settle applies, and turns Playwright
timeouts and assertion errors into ``ToolFailure`` with a message a trail author can act on.
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path
from typing import Any

from ..core.errors import FatalToolError, ToolFailure, first_line
from ..core.screen.hierarchy import java_quotes
from ..core.tooling.context import ToolContext
from ..core.tooling.tooldef import CaseInsensitiveEnum, tool
from ..core.trail.devices import WEB_DRIVER_KEYS
from ..core.trail.nodeselector import NodeSelector
from ..drivers.playwright import WebDriver
from .common import Direction
from .limits import NavigationUrl, Pixels, PlaywrightTimeoutMs, TimeoutMs, ViewportPixels, WholeSeconds
from .snapshot import take_snapshot

WEB = ("web",)
EXPECT_TIMEOUT_MS = 5_000


class NavigateAction(CaseInsensitiveEnum):
    GOTO = "GOTO"
    BACK = "BACK"
    FORWARD = "FORWARD"


class ValueCheck(CaseInsensitiveEnum):
    TEXT = "TEXT"
    VALUE = "VALUE"
    ATTRIBUTE = "ATTRIBUTE"


def playwright() -> Any:
    """Playwright's sync API, imported on first use so that loading tools stays cheap."""
    import playwright.sync_api

    return playwright.sync_api


def web(ctx: ToolContext) -> WebDriver:
    driver = ctx.driver
    if not isinstance(driver, WebDriver):
        raise FatalToolError(
            f"web tools need the Playwright driver, this session has {type(driver).__name__}"
        )
    return driver


def _selector(node_selector: NodeSelector | None) -> dict[str, Any] | None:
    return node_selector.as_dict() if node_selector is not None else None


def web_tool(**kwargs: Any) -> Any:
    kwargs.setdefault("toolset", "web_core")
    return tool(platforms=WEB, drivers=WEB_DRIVER_KEYS, source="builtin", **kwargs)


# -- navigation ------------------------------------------------------------------------------
@web_tool()
def web_navigate(
    ctx: ToolContext, action: NavigateAction = NavigateAction.GOTO, url: NavigationUrl = ""
) -> str:
    """Open a URL, or go back / forward; relative paths resolve against the trail folder, then the cwd."""
    driver = web(ctx)
    page = driver.page
    if action is NavigateAction.GOTO:
        if not url.strip():
            raise ToolFailure("web_navigate with action GOTO needs a `url`")
        trail_dir = Path(ctx.trail_path).parent if ctx.trail_path else None
        target = driver.resolve_url(url, trail_dir)
        driver.check_url(target)
        _guard(
            lambda: driver.perform(lambda: page.goto(target), flush=False),
            f"could not open {target}",
            # a page that never finished loading may be stuck in its own script: that is the cause
            timed_out=lambda: driver.guard.check_alive(
                f"opening {target}", driver.options.navigation_timeout_ms / 1000
            ),
        )
        return f"Navigated to {page.url}"
    move = page.go_back if action is NavigateAction.BACK else page.go_forward
    before = page.url
    response = _guard(lambda: driver.perform(move), f"could not go {action.value.lower()}")
    if response is None and page.url == before:
        raise ToolFailure(f"there is no page to go {action.value.lower()} to (history is empty)")
    return f"Went {action.value.lower()} to {page.url}"


@web_tool()
def web_waitForUrl(ctx: ToolContext, pattern: str, timeoutMs: PlaywrightTimeoutMs = 30_000) -> str:
    """Wait until the page URL matches a regular expression."""
    page = web(ctx).page
    regex = re.compile(java_quotes(pattern))
    _guard(lambda: page.wait_for_url(regex, timeout=timeoutMs), f"the URL never matched /{pattern}/")
    return page.url


@web_tool()
def web_currentUrl(ctx: ToolContext) -> str:
    """Return the current page URL."""
    return web(ctx).page.url


# -- element actions ---------------------------------------------------------------------------
@web_tool()
def web_click(ctx: ToolContext, ref: str | None = None, nodeSelector: NodeSelector | None = None) -> str:
    """Click an element."""
    driver = web(ctx)
    before = driver.page.url
    locator, described = driver.locate(ref, _selector(nodeSelector))
    driver.act(locator.first, described, lambda loc, t: loc.click(timeout=t), pointer=True)
    after = driver.page.url
    return f"Clicked {described}" + (f" (URL changed to {after})" if after != before else "")


@web_tool()
def web_type(
    ctx: ToolContext,
    text: str,
    ref: str | None = None,
    clearFirst: bool = True,
    nodeSelector: NodeSelector | None = None,
) -> str:
    """Type text into a field (replacing its content unless clearFirst is false)."""
    driver = web(ctx)
    locator, described = driver.locate(ref, _selector(nodeSelector))
    if clearFirst:
        driver.act(locator, described, lambda loc, t: loc.fill(text, timeout=t))
    else:
        driver.act(locator, described, lambda loc, t: loc.press_sequentially(text, timeout=t))
    return f"Typed into {described}"


@web_tool()
def web_hover(ctx: ToolContext, ref: str | None = None, nodeSelector: NodeSelector | None = None) -> str:
    """Move the mouse over an element."""
    driver = web(ctx)
    locator, described = driver.locate(ref, _selector(nodeSelector))
    driver.act(locator, described, lambda loc, t: loc.hover(timeout=t))
    return f"Hovered {described}"


@web_tool()
def web_selectOption(
    ctx: ToolContext, values: list[str], ref: str | None = None, nodeSelector: NodeSelector | None = None
) -> str:
    """Select options of a <select> by value or label."""
    if not values:
        raise ToolFailure("web_selectOption needs at least one value in `values`")
    driver = web(ctx)
    locator, described = driver.locate(ref, _selector(nodeSelector))
    chosen = driver.act(locator, described, lambda loc, t: loc.select_option(values, timeout=t))
    return f"Selected {', '.join(chosen or values)} in {described}"


@web_tool(sensitive_args=("value",))
def web_fillSecret(ctx: ToolContext, ref: str, value: str) -> str:
    """Fill a field with a secret value that is never shown in logs."""
    driver = web(ctx)
    locator, described = driver.locate(ref, None)
    driver.act(locator, described, lambda loc, t: loc.fill(value, timeout=t))
    return f"Filled {described} with a secret value"


@web_tool()
def web_pressKey(ctx: ToolContext, key: str) -> str:
    """Press a key or chord on the focused element (Enter, Control+A, Meta+C)."""
    driver = web(ctx)
    press = functools.partial(driver.within, lambda: driver.page.keyboard.press(key), f"pressing {key!r}")
    _guard(lambda: driver.perform(press), f"could not press {key!r}")
    return f"Pressed {key}"


@web_tool()
def web_scroll(
    ctx: ToolContext,
    direction: Direction = Direction.DOWN,
    amount: Pixels = 500,
    ref: str | None = None,
    nodeSelector: NodeSelector | None = None,
) -> str:
    """Scroll the page, or the element under a target, with the mouse wheel."""
    driver = web(ctx)
    dx, dy = {"UP": (0, -amount), "DOWN": (0, amount), "LEFT": (-amount, 0), "RIGHT": (amount, 0)}[
        direction.value
    ]
    target = "the page"
    if ref or nodeSelector:
        locator, target = driver.locate(ref, _selector(nodeSelector))
        driver.act(locator.first, target, lambda loc, t: loc.hover(timeout=t))
    driver.perform(lambda: driver.within(lambda: driver.page.mouse.wheel(dx, dy), "scrolling"))
    return f"Scrolled {target} {direction.value.lower()} by {amount}px"


@web_tool()
def web_wait(ctx: ToolContext, seconds: WholeSeconds = 1) -> str:
    """Wait a fixed number of seconds (1 to 30)."""
    clamped = max(1, min(30, seconds))
    web(ctx).page.wait_for_timeout(clamped * 1000)
    return f"Waited {clamped} s"


@web_tool()
def web_resize(ctx: ToolContext, width: ViewportPixels, height: ViewportPixels) -> str:
    """Resize the viewport."""
    if width <= 0 or height <= 0:
        raise ToolFailure(f"web_resize needs a positive width and height, got {width}x{height}")
    driver = web(ctx)
    driver.within(lambda: driver.page.set_viewport_size({"width": width, "height": height}), "resizing")
    return f"Resized the viewport to {width}x{height}"


@web_tool()
def web_snapshot(ctx: ToolContext, screenName: str) -> str:
    """Save a screenshot and the accessibility tree of the page into the test's artifacts."""
    return take_snapshot(ctx, screenName)


# -- storage -----------------------------------------------------------------------------------
@web_tool()
def web_applyCookies(ctx: ToolContext, cookiesJson: str = "") -> str:
    """Add cookies from a Playwright cookie array or a full storage state."""
    if not cookiesJson.strip():
        return "No cookies to apply"
    try:
        data = json.loads(cookiesJson)
    except json.JSONDecodeError as exc:
        raise ToolFailure(f"cookiesJson is not valid JSON: {exc}") from None
    cookies = data.get("cookies", []) if isinstance(data, dict) else data
    if not isinstance(cookies, list):
        raise ToolFailure("cookiesJson must be a cookie array or a storage state with `cookies`")
    _guard(lambda: web(ctx).context.add_cookies(cookies), "could not apply the cookies")
    return f"Applied {len(cookies)} cookie(s)"


@web_tool()
def web_getStorageState(ctx: ToolContext) -> str:
    """Return the browser storage state (cookies and local storage) as JSON."""
    driver = web(ctx)
    return json.dumps(driver.within(driver.context.storage_state, "reading the storage state"))


@web_tool(toolset="web_framework", surface_to_llm=False, is_recordable=False)
def web_evaluate(ctx: ToolContext, script: str) -> str:
    """Evaluate JavaScript in the page and return the result as text."""
    driver = web(ctx)
    result = _guard(
        lambda: driver.within(lambda: driver.page.evaluate(script), "web_evaluate"), "the script failed"
    )
    driver.check_frames()
    return result if isinstance(result, str) else json.dumps(result)


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


def _guard(action: Any, what: str, timed_out: Any = None) -> Any:
    """Run a Playwright call; its errors become a tool failure with the first line of the cause.

    ``timed_out()`` runs first when the call timed out (not when it failed at once).
    """
    try:
        return action()
    except playwright().Error as exc:
        if timed_out is not None and isinstance(exc, playwright().TimeoutError):
            timed_out()
        raise ToolFailure(f"{what}: {first_line(exc)}") from None


TOOLS = (
    web_navigate,
    web_waitForUrl,
    web_currentUrl,
    web_click,
    web_type,
    web_hover,
    web_selectOption,
    web_fillSecret,
    web_pressKey,
    web_scroll,
    web_wait,
    web_resize,
    web_snapshot,
    web_applyCookies,
    web_getStorageState,
    web_evaluate,
    web_verifyTextVisible,
    web_verifyElementVisible,
    web_verifyValue,
    web_verifyListVisible,
    web_assertNetworkEvent,
)
