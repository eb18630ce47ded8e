"""Built-in mobile tools that type, press keys and move a finger, over the Appium driver.

Gestures are W3C touch actions at pixel points of the window; the ones that aim at an element
(``swipeOnElementText``) find it the way the text tools do (``tools.mobile.shown_text``).
"""

from __future__ import annotations

import random
import time

from ..core.errors import ToolFailure
from ..core.run.driver import MobileSession
from ..core.screen.hierarchy import Node
from ..core.screen.node_selectors import describe
from ..core.tooling.context import ToolContext
from ..core.tooling.tooldef import CaseInsensitiveEnum
from .common import Direction
from .limits import Count, Digits, DurationMs, Index, Percent, Pixels
from .mobile import mobile, mobile_tool, parse_relative, shown_text, text_selector

MAX_SCROLLS = 12


class KeyCode(CaseInsensitiveEnum):
    BACK = "BACK"
    ENTER = "ENTER"
    HOME = "HOME"
    BACKSPACE = "BACKSPACE"
    TAB = "TAB"
    ESCAPE = "ESCAPE"


class StartPosition(CaseInsensitiveEnum):
    CENTER = "CENTER"
    TOP = "TOP"
    BOTTOM = "BOTTOM"


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
    ctx: ToolContext,
    variable: str,
    prefix: str = "TBZ-",
    digitCount: Digits = 6,
    hideKeyboardAfter: bool = True,
) -> str:
    """Type a random value (prefix + digits) and remember it under a memory variable."""
    value = prefix + "".join(random.choice("0123456789") for _ in range(max(1, digitCount)))
    driver = mobile(ctx)
    driver.type_text(value)
    ctx.memory.set(variable, value)
    if hideKeyboardAfter:
        _try_hide_keyboard(driver)
    return f"Typed {value} and remembered it as {variable}"


def _try_hide_keyboard(driver: MobileSession) -> None:
    """Best effort after typing: a keyboard that cannot be hidden is not the step's failure."""
    try:
        driver.hide_keyboard()
    except ToolFailure:
        return


@mobile_tool()
def eraseText(ctx: ToolContext, charactersToErase: Count | None = None) -> str:
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
    area = shown_text(driver, swipeOnElementText) if swipeOnElementText else None
    start, end = _swipe_points(*driver.screen_size(), direction, area)
    driver.swipe(start, end)
    return f"Swiped {direction.value.lower()}"


@mobile_tool(surface_to_llm=False)
def swipeWithRelativeCoordinates(
    ctx: ToolContext,
    startRelative: str,
    endRelative: str,
    swipeOnElementText: str | None = None,
    durationMs: DurationMs | None = None,
) -> str:
    """Swipe between two points given as percentages of the screen (or of an element)."""
    driver = mobile(ctx)
    width, height = driver.screen_size()
    left, top = 0, 0
    if swipeOnElementText:
        node = shown_text(driver, swipeOnElementText)
        left, top, width, height = node.x, node.y, node.width, node.height
    (sx, sy), (ex, ey) = parse_relative(startRelative), parse_relative(endRelative)
    start = (left + round(width * sx), top + round(height * sy))
    end = (left + round(width * ex), top + round(height * ey))
    driver.swipe(start, end, duration_ms=durationMs or 400)
    return f"Swiped from {startRelative} to {endRelative}"


@mobile_tool()
def tapOnPoint(ctx: ToolContext, x: Pixels, y: Pixels, longPress: bool = False) -> str:
    """Tap a point of the screen (in pixels)."""
    mobile(ctx).tap_point(x, y, long_press=longPress)
    return f"{'Long-pressed' if longPress else 'Tapped'} ({x}, {y})"


@mobile_tool(surface_to_llm=False)
def dragByPoints(
    ctx: ToolContext,
    startX: Pixels,
    startY: Pixels,
    endX: Pixels,
    endY: Pixels,
    durationMs: DurationMs = 1000,
) -> str:
    """Drag a finger between two points of the screen (in pixels), slowly: a deliberate swipe."""
    mobile(ctx).swipe((startX, startY), (endX, endY), duration_ms=durationMs)
    return f"Dragged from ({startX}, {startY}) to ({endX}, {endY}) in {durationMs} ms"


@mobile_tool(toolset="navigation")
def scrollUntilTextIsVisible(
    ctx: ToolContext,
    text: str | None = None,
    textRegex: str | None = None,
    id: str | None = None,
    index: Index = 0,
    direction: Direction = Direction.DOWN,
    visibilityPercentage: Percent = 100,
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
    selector = text_selector(driver, text, regex=textRegex, id=id, index=index)
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


TOOLS = (
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
    dragByPoints,
    scrollUntilTextIsVisible,
)
