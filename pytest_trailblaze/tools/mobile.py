"""Built-in mobile tools (U§4.2-4.5) over the Appium driver, for android and ios.

Selector tools resolve ``nodeSelector`` in the page source (pure Python, ``drivers.selectors``)
and act on the node they found. The older text tools (``tapOnElementWithText``...) are selectors
too: a case-insensitive substring of the text, in the Maestro dialect, as upstream wrote them.
"""

from __future__ import annotations

import json
import random
import re
import time
from typing import Any

from ..core.context import ToolContext
from ..core.errors import FatalToolError, ToolFailure
from ..core.nodeselector import NodeSelector
from ..core.tooldef import CaseInsensitiveEnum, tool
from ..drivers.appium import MobileDriver
from ..drivers.selectors import Node, describe, matches_pattern
from .common import Direction

MOBILE = ("android", "ios")
DEFAULT_WAIT_MS = 5_000
MAX_SCROLLS = 12


class KeyCode(CaseInsensitiveEnum):
    BACK = "BACK"
    ENTER = "ENTER"
    HOME = "HOME"
    BACKSPACE = "BACKSPACE"
    TAB = "TAB"
    ESCAPE = "ESCAPE"


class TextMatchMode(CaseInsensitiveEnum):
    EXACT = "EXACT"
    PREFIX = "PREFIX"
    REGEX = "REGEX"


class StartPosition(CaseInsensitiveEnum):
    CENTER = "CENTER"
    TOP = "TOP"
    BOTTOM = "BOTTOM"


def mobile(ctx: ToolContext) -> MobileDriver:
    if not isinstance(ctx.driver, MobileDriver):
        raise FatalToolError(
            f"mobile tools need the Appium driver, this session has {type(ctx.driver).__name__}"
        )
    return ctx.driver


def mobile_tool(**kwargs: Any) -> Any:
    kwargs.setdefault("toolset", "core_interaction")
    return tool(platforms=MOBILE, source="builtin", **kwargs)


def _selector(node_selector: NodeSelector | None, tool_name: str) -> dict[str, Any]:
    if node_selector is None:
        raise ToolFailure(f"{tool_name} needs a `nodeSelector`")
    return node_selector.as_dict()


def _only(driver: MobileDriver, selector: dict[str, Any], timeout_ms: int) -> Node:
    found = driver.wait_for(selector, timeout_ms / 1000)
    if not found:
        raise ToolFailure(f"no visible element matches {describe(selector)} (waited {timeout_ms / 1000:g} s)")
    return found[0]


def _shown_text(driver: MobileDriver, text: str, **filters: Any) -> Node:
    """The visible element showing ``text`` (Maestro style: a substring, any case)."""
    return _only(driver, _text_selector(driver, text, **filters), DEFAULT_WAIT_MS)


def _absent(driver: MobileDriver, selector: dict[str, Any], timeout_ms: int, what: str) -> None:
    """Wait until nothing visible matches ``selector``; fail naming what is still there."""
    found = driver.wait_for(selector, timeout_ms / 1000, present=False)
    if found:
        raise ToolFailure(f"{found[0].label()} {what} is still visible")


def text_of(node: Node) -> str:
    return node.get("text", "label", "value", "content-desc", "name") or ""


def _text_selector(
    driver: MobileDriver,
    text: str | None,
    *,
    field: str = "textRegex",
    regex: str | None = None,
    id: str | None = None,
    index: int = 0,
    enabled: bool | None = None,
    selected: bool | None = None,
) -> dict[str, Any]:
    """The Maestro-style selector of the older text tools: a substring (or ``regex``), any case."""
    dialect = "androidMaestro" if driver.platform == "android" else "iosMaestro"
    matcher: dict[str, Any] = {}
    if text is not None:
        matcher[field] = f".*{re.escape(text)}.*"
    if regex is not None:
        matcher[field] = regex
    if id is not None:
        matcher["resourceIdRegex"] = id
    if enabled is not None and dialect == "androidMaestro":
        matcher["enabled"] = enabled
    if selected is not None:
        matcher["selected"] = selected
    return {dialect: matcher, "index": index}


# -- selectors ------------------------------------------------------------------------------------
@mobile_tool(surface_to_llm=False)
def tapOnElementBySelector(
    ctx: ToolContext, nodeSelector: NodeSelector | None = None, longPress: bool = False
) -> str:
    """Tap the element a recorded selector finds (the first one in reading order)."""
    driver = mobile(ctx)
    node = _only(driver, _selector(nodeSelector, "tapOnElementBySelector"), DEFAULT_WAIT_MS)
    driver.tap(node, long_press=longPress)
    return f"{'Long-pressed' if longPress else 'Tapped'} {node.label()}"


@mobile_tool(surface_to_llm=False)
def tapOn(
    ctx: ToolContext, selector: NodeSelector, relativePoint: str | None = None, longPress: bool = False
) -> str:
    """Tap an element found by selector, optionally at a point relative to its bounds ("25%,50%")."""
    driver = mobile(ctx)
    node = _only(driver, selector.as_dict(), DEFAULT_WAIT_MS)
    if relativePoint:
        fx, fy = parse_relative(relativePoint)
        driver.tap_point(
            node.x + round(node.width * fx), node.y + round(node.height * fy), long_press=longPress
        )
    else:
        driver.tap(node, long_press=longPress)
    return f"Tapped {node.label()}"


@mobile_tool(surface_to_llm=False, is_verification=True, toolset="verification")
def assertVisibleBySelector(
    ctx: ToolContext,
    nodeSelector: NodeSelector | None = None,
    timeoutMs: int | None = None,
    expectedText: str | None = None,
    textMatchMode: TextMatchMode = TextMatchMode.EXACT,
) -> str:
    """Wait until a selector finds a visible element; optionally check its text."""
    driver = mobile(ctx)
    node = _only(driver, _selector(nodeSelector, "assertVisibleBySelector"), timeoutMs or DEFAULT_WAIT_MS)
    if expectedText is not None and not text_matches(text_of(node), expectedText, textMatchMode):
        raise ToolFailure(
            f"{node.label()} shows {text_of(node)!r}, expected {expectedText!r} ({textMatchMode.value})"
        )
    return f"{node.label()} is visible"


@mobile_tool(surface_to_llm=False, is_verification=True, toolset="verification")
def assertNotVisibleBySelector(
    ctx: ToolContext, nodeSelector: NodeSelector | None = None, timeoutMs: int | None = None
) -> str:
    """Wait until no visible element matches a selector."""
    driver = mobile(ctx)
    selector = _selector(nodeSelector, "assertNotVisibleBySelector")
    _absent(driver, selector, timeoutMs or DEFAULT_WAIT_MS, f"({describe(selector)})")
    return f"nothing matches {describe(selector)}"


def text_matches(actual: str, expected: str, mode: TextMatchMode) -> bool:
    if mode is TextMatchMode.PREFIX:
        return actual.startswith(expected)
    if mode is TextMatchMode.REGEX:
        return matches_pattern(expected, actual)
    return actual.strip() == expected.strip()


@mobile_tool(is_verification=True, toolset="verification")
def assertVisibleWithText(
    ctx: ToolContext,
    text: str,
    index: int = 0,
    id: str | None = None,
    enabled: bool | None = None,
    selected: bool | None = None,
) -> str:
    """Assert an element showing this text (a substring, any case) is visible."""
    driver = mobile(ctx)
    node = _shown_text(driver, text, id=id, index=index, enabled=enabled, selected=selected)
    return f"{node.label()} is visible"


@mobile_tool(is_verification=True, toolset="verification")
def assertNotVisibleWithText(
    ctx: ToolContext,
    text: str,
    index: int = 0,
    id: str | None = None,
    enabled: bool | None = None,
    selected: bool | None = None,
) -> str:
    """Assert no visible element shows this text (a substring, any case)."""
    driver = mobile(ctx)
    selector = _text_selector(driver, text, id=id, index=index, enabled=enabled, selected=selected)
    _absent(driver, selector, DEFAULT_WAIT_MS, f"showing {text!r}")
    return f"no element shows {text!r}"


@mobile_tool(surface_to_llm=False)
def tapOnElementWithText(
    ctx: ToolContext,
    text: str,
    index: int = 0,
    id: str | None = None,
    enabled: bool | None = None,
    selected: bool | None = None,
) -> str:
    """Tap the element showing this text (a substring, any case)."""
    driver = mobile(ctx)
    node = _shown_text(driver, text, id=id, index=index, enabled=enabled, selected=selected)
    driver.tap(node)
    return f"Tapped {node.label()}"


@mobile_tool(surface_to_llm=False)
def tapOnElementWithAccessibilityText(
    ctx: ToolContext,
    accessibilityText: str,
    id: str | None = None,
    index: str | None = None,
    enabled: bool | None = None,
    selected: bool | None = None,
) -> str:
    """Tap the element whose accessibility text contains this text (any case)."""
    driver = mobile(ctx)
    selector = _text_selector(
        driver,
        accessibilityText,
        field="accessibilityTextRegex",
        id=id,
        index=int(index or 0),
        enabled=enabled,
        selected=selected,
    )
    node = _only(driver, selector, DEFAULT_WAIT_MS)
    driver.tap(node)
    return f"Tapped {node.label()}"


# -- text ---------------------------------------------------------------------------------------------
@mobile_tool()
def inputText(ctx: ToolContext, text: str, hideKeyboardAfter: bool = True) -> str:
    """Type text into the focused field."""
    driver = mobile(ctx)
    driver.type_text(text)
    if hideKeyboardAfter:
        _try_hide_keyboard(driver)
    return f"Typed {len(text)} character(s)"


@mobile_tool()
def inputTextRandom(
    ctx: ToolContext, variable: str, prefix: str = "TBZ-", digitCount: int = 6, hideKeyboardAfter: bool = True
) -> str:
    """Type a random value (prefix + digits) and remember it under a memory variable."""
    value = prefix + "".join(random.choice("0123456789") for _ in range(max(1, digitCount)))
    driver = mobile(ctx)
    driver.type_text(value)
    ctx.memory.set(variable, value)
    if hideKeyboardAfter:
        _try_hide_keyboard(driver)
    return f"Typed {value} and remembered it as {variable}"


def _try_hide_keyboard(driver: MobileDriver) -> None:
    """Best effort after typing: a keyboard that cannot be hidden is not the step's failure."""
    try:
        driver.hide_keyboard()
    except ToolFailure:
        return


@mobile_tool()
def eraseText(ctx: ToolContext, charactersToErase: int | None = None) -> str:
    """Erase characters from the end of the focused field (all of them when no count is given)."""
    mobile(ctx).erase(charactersToErase)
    return "Erased all text" if charactersToErase is None else f"Erased {charactersToErase} character(s)"


@mobile_tool()
def clearText(ctx: ToolContext) -> str:
    """Clear the focused field."""
    mobile(ctx).erase(None)
    return "Cleared the field"


@mobile_tool()
def hideKeyboard(ctx: ToolContext) -> str:
    """Hide the soft keyboard."""
    mobile(ctx).hide_keyboard()
    return "Hid the keyboard"


@mobile_tool()
def pressKey(ctx: ToolContext, keyCode: KeyCode) -> str:
    """Press a special key: BACK, ENTER, HOME, BACKSPACE, TAB or ESCAPE."""
    mobile(ctx).press_key(keyCode.value)
    return f"Pressed {keyCode.value}"


@mobile_tool(toolset="navigation")
def pressBack(ctx: ToolContext) -> str:
    """Go back one screen (the system back button; a swipe from the left edge on iOS)."""
    mobile(ctx).back()
    return "Went back"


# -- gestures ------------------------------------------------------------------------------------------
def _swipe_points(
    width: int, height: int, direction: Direction, area: Node | None = None
) -> tuple[tuple[int, int], ...]:
    """Finger start and end for a swipe in ``direction`` (the finger's direction, not the content's)."""
    left, top, w, h = (area.x, area.y, area.width, area.height) if area else (0, 0, width, height)
    cx, cy = left + w // 2, top + h // 2
    dx, dy = {"UP": (0, -1), "DOWN": (0, 1), "LEFT": (-1, 0), "RIGHT": (1, 0)}[direction.value]
    return (cx - dx * w * 3 // 10, cy - dy * h * 3 // 10), (cx + dx * w * 3 // 10, cy + dy * h * 3 // 10)


@mobile_tool()
def swipe(
    ctx: ToolContext, direction: Direction = Direction.DOWN, swipeOnElementText: str | None = None
) -> str:
    """Swipe a finger in a direction, over the screen or over the element showing a text."""
    driver = mobile(ctx)
    area = _shown_text(driver, swipeOnElementText) if swipeOnElementText else None
    start, end = _swipe_points(*driver.screen_size(), direction, area)
    driver.swipe(start, end)
    return f"Swiped {direction.value.lower()}"


def parse_relative(text: str) -> tuple[float, float]:
    """``"50%, 80%"`` (or ``"0.5,0.8"``) as fractions of a width and a height."""
    parts = [p.strip() for p in text.replace(";", ",").split(",")]
    if len(parts) != 2:
        raise ToolFailure(f"a relative point is written 'x%, y%', got {text!r}")
    try:
        values = [float(p[:-1]) / 100 if p.endswith("%") else float(p) for p in parts]
    except ValueError:
        raise ToolFailure(f"a relative point is written 'x%, y%', got {text!r}") from None
    if not all(0 <= v <= 1 for v in values):
        raise ToolFailure(f"a relative point lies within 0%..100%, got {text!r}")
    return values[0], values[1]


@mobile_tool(surface_to_llm=False)
def swipeWithRelativeCoordinates(
    ctx: ToolContext,
    startRelative: str,
    endRelative: str,
    swipeOnElementText: str | None = None,
    durationMs: int | None = None,
) -> str:
    """Swipe between two points given as percentages of the screen (or of an element)."""
    driver = mobile(ctx)
    width, height = driver.screen_size()
    left, top = 0, 0
    if swipeOnElementText:
        node = _shown_text(driver, swipeOnElementText)
        left, top, width, height = node.x, node.y, node.width, node.height
    (sx, sy), (ex, ey) = parse_relative(startRelative), parse_relative(endRelative)
    start = (left + round(width * sx), top + round(height * sy))
    end = (left + round(width * ex), top + round(height * ey))
    driver.swipe(start, end, duration_ms=durationMs or 400)
    return f"Swiped from {startRelative} to {endRelative}"


@mobile_tool()
def tapOnPoint(ctx: ToolContext, x: int, y: int, longPress: bool = False) -> str:
    """Tap a point of the screen (in pixels)."""
    mobile(ctx).tap_point(x, y, long_press=longPress)
    return f"{'Long-pressed' if longPress else 'Tapped'} ({x}, {y})"


@mobile_tool(toolset="navigation")
def scrollUntilTextIsVisible(
    ctx: ToolContext,
    text: str | None = None,
    textRegex: str | None = None,
    id: str | None = None,
    index: int = 0,
    direction: Direction = Direction.DOWN,
    visibilityPercentage: int = 100,
    centerElement: bool = False,
    scrollStartPosition: StartPosition = StartPosition.CENTER,
) -> str:
    """Scroll until an element (by text, anchored text regex, or id) is on screen."""
    given = [
        name for name, value in (("text", text), ("textRegex", textRegex), ("id", id)) if value is not None
    ]
    if len(given) != 1:
        raise ToolFailure("scrollUntilTextIsVisible takes exactly one of text, textRegex or id")
    driver = mobile(ctx)
    selector = _text_selector(driver, text, regex=textRegex, id=id, index=index)
    width, height = driver.screen_size()
    previous = None
    for swipes in range(MAX_SCROLLS + 1):
        source = driver.hierarchy()
        found = [
            n
            for n in driver.find(selector, source)
            if _on_screen_share(n, width, height) * 100 >= visibilityPercentage
        ]
        if found:
            return f"{found[0].label()} is visible"
        if source == previous or swipes == MAX_SCROLLS:
            break  # the screen no longer changes (the end of the list), or enough tries
        previous = source
        start, end = _scroll_swipe(width, height, direction, scrollStartPosition)
        driver.swipe(start, end)
        time.sleep(0.2)
    raise ToolFailure(
        f"scrolled {direction.value.lower()} but no element matching {describe(selector)} came into view"
    )


def _on_screen_share(node: Node, width: int, height: int) -> float:
    if node.width <= 0 or node.height <= 0:
        return 1.0
    visible_w = max(0, min(node.right, width) - max(node.x, 0))
    visible_h = max(0, min(node.bottom, height) - max(node.y, 0))
    return (visible_w * visible_h) / (node.width * node.height)


def _scroll_swipe(
    width: int, height: int, direction: Direction, start: StartPosition
) -> tuple[tuple[int, int], ...]:
    """Scrolling content DOWN means the finger moves UP, from the chosen start position."""
    cx = width // 2
    y0 = {"CENTER": height // 2, "TOP": height // 4, "BOTTOM": height * 3 // 4}[start.value]
    reach = height * 3 // 10
    if direction is Direction.DOWN:
        return (cx, y0 + reach // 2), (cx, y0 - reach // 2)
    if direction is Direction.UP:
        return (cx, y0 - reach // 2), (cx, y0 + reach // 2)
    dx = width * 3 // 10
    sign = 1 if direction is Direction.RIGHT else -1
    return (cx + sign * dx // 2, y0), (cx - sign * dx // 2, y0)


# -- apps and links -------------------------------------------------------------------------------------
@mobile_tool(toolset="navigation")
def openUrl(ctx: ToolContext, url: str) -> str:
    """Open a URL or deep link on the device."""
    mobile(ctx).open_url(url)
    return f"Opened {url}"


@mobile_tool(toolset="mobile_primitives")
def mobile_listInstalledApps(ctx: ToolContext) -> str:
    """List the installed apps as JSON: {"appIds": [...]}."""
    return json.dumps({"appIds": mobile(ctx).installed_apps()})


TOOLS = (
    tapOnElementBySelector,
    tapOn,
    assertVisibleBySelector,
    assertNotVisibleBySelector,
    assertVisibleWithText,
    assertNotVisibleWithText,
    tapOnElementWithText,
    tapOnElementWithAccessibilityText,
    inputText,
    inputTextRandom,
    eraseText,
    clearText,
    hideKeyboard,
    pressKey,
    pressBack,
    swipe,
    swipeWithRelativeCoordinates,
    tapOnPoint,
    scrollUntilTextIsVisible,
    openUrl,
    mobile_listInstalledApps,
)
