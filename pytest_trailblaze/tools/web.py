"""Built-in web tools over the driver contract's ``WebSession``, with upstream's names and arguments.

Each tool resolves its target with the driver's ``locate`` and acts through the driver, which
waits for the element, settles the page after the action and words a failure as a
``ToolFailure`` a trail author can act on (``drivers/playwright.py`` for the Playwright driver).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal, cast

from ..core.errors import FatalToolError, ToolFailure
from ..core.jsondata import JsonObject
from ..core.run.driver import Element, WebSession, implements
from ..core.tooling.context import ToolContext
from ..core.tooling.tooldef import CaseInsensitiveEnum, tool
from ..core.trail.devices import WEB_DRIVER_KEYS
from ..core.trail.nodeselector import NodeSelector
from .common import Direction
from .declaring import ToolDecorator
from .limits import NavigationUrl, Pixels, PlaywrightTimeoutMs, ViewportPixels, WholeSeconds
from .snapshot import take_snapshot

WEB = ("web",)


class NavigateAction(CaseInsensitiveEnum):
    GOTO = "GOTO"
    BACK = "BACK"
    FORWARD = "FORWARD"


def web(ctx: ToolContext) -> WebSession:
    """The session's driver as a web driver; a driver that is none fails the call for good."""
    driver = ctx.driver
    if not implements(driver, WebSession):  # isinstance, without its cost on every call
        raise FatalToolError(
            f"web tools need the Playwright driver, this session has {type(driver).__name__}"
        )
    return cast(WebSession, driver)


def target(driver: WebSession, ref: str | None, node_selector: NodeSelector | None) -> Element:
    """The element a ref and/or ``nodeSelector`` names (the driver fails when neither is usable)."""
    return driver.locate(ref, node_selector.as_dict() if node_selector is not None else None)


def web_tool(**kwargs: Any) -> ToolDecorator:
    kwargs.setdefault("toolset", "web_core")
    return tool(platforms=WEB, drivers=WEB_DRIVER_KEYS, source="builtin", **kwargs)


# -- navigation ------------------------------------------------------------------------------
@web_tool()
def web_navigate(
    ctx: ToolContext, action: NavigateAction = NavigateAction.GOTO, url: NavigationUrl = ""
) -> str:
    """Open a URL, or go back / forward; relative paths resolve against the trail folder, then the cwd."""
    driver = web(ctx)
    if action is NavigateAction.GOTO:
        if not url.strip():
            raise ToolFailure("web_navigate with action GOTO needs a `url`")
        trail_dir = Path(ctx.trail_path).parent if ctx.trail_path else None
        return f"Navigated to {driver.open_url(url, trail_dir)}"
    direction: Literal["back", "forward"] = "back" if action is NavigateAction.BACK else "forward"
    return f"Went {direction} to {driver.history(direction)}"


@web_tool()
def web_waitForUrl(ctx: ToolContext, pattern: str, timeoutMs: PlaywrightTimeoutMs = 30_000) -> str:
    """Wait until the page URL matches a regular expression."""
    return web(ctx).wait_for_url(pattern, timeoutMs)


@web_tool()
def web_currentUrl(ctx: ToolContext) -> str:
    """Return the current page URL."""
    return web(ctx).current_url()


# -- element actions ---------------------------------------------------------------------------
@web_tool()
def web_click(ctx: ToolContext, ref: str | None = None, nodeSelector: NodeSelector | None = None) -> str:
    """Click an element."""
    driver = web(ctx)
    before = driver.current_url()
    element = target(driver, ref, nodeSelector)
    driver.click(element)
    after = driver.current_url()
    return f"Clicked {element.described}" + (f" (URL changed to {after})" if after != before else "")


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
    element = target(driver, ref, nodeSelector)
    driver.fill(element, text, sequentially=not clearFirst)
    return f"Typed into {element.described}"


@web_tool()
def web_hover(ctx: ToolContext, ref: str | None = None, nodeSelector: NodeSelector | None = None) -> str:
    """Move the mouse over an element."""
    driver = web(ctx)
    element = target(driver, ref, nodeSelector)
    driver.hover(element)
    return f"Hovered {element.described}"


@web_tool()
def web_selectOption(
    ctx: ToolContext, values: list[str], ref: str | None = None, nodeSelector: NodeSelector | None = None
) -> str:
    """Select options of a <select> by value or label."""
    if not values:
        raise ToolFailure("web_selectOption needs at least one value in `values`")
    driver = web(ctx)
    element = target(driver, ref, nodeSelector)
    chosen = driver.select(element, values)
    return f"Selected {', '.join(chosen)} in {element.described}"


@web_tool(sensitive_args=("value",))
def web_fillSecret(ctx: ToolContext, ref: str, value: str) -> str:
    """Fill a field with a secret value that is never shown in logs."""
    driver = web(ctx)
    element = target(driver, ref, None)
    driver.fill(element, value)
    return f"Filled {element.described} with a secret value"


@web_tool()
def web_pressKey(ctx: ToolContext, key: str) -> str:
    """Press a key or chord on the focused element (Enter, Control+A, Meta+C)."""
    web(ctx).press_key(key)
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
    over = target(driver, ref, nodeSelector) if ref or nodeSelector else None
    driver.scroll(dx, dy, over)
    return f"Scrolled {over.described if over else 'the page'} {direction.value.lower()} by {amount}px"


@web_tool()
def web_wait(ctx: ToolContext, seconds: WholeSeconds = 1) -> str:
    """Wait a fixed number of seconds (1 to 30)."""
    clamped = max(1, min(30, seconds))
    web(ctx).sleep(clamped)
    return f"Waited {clamped} s"


@web_tool()
def web_resize(ctx: ToolContext, width: ViewportPixels, height: ViewportPixels) -> str:
    """Resize the viewport."""
    if width <= 0 or height <= 0:
        raise ToolFailure(f"web_resize needs a positive width and height, got {width}x{height}")
    web(ctx).resize(width, height)
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
    web(ctx).add_cookies(cookies)
    return f"Applied {len(cookies)} cookie(s)"


@web_tool()
def web_getStorageState(ctx: ToolContext) -> str:
    """Return the browser storage state (cookies and local storage) as JSON."""
    state: JsonObject = web(ctx).storage_state()
    return json.dumps(state)


@web_tool(toolset="web_framework", surface_to_llm=False, is_recordable=False)
def web_evaluate(ctx: ToolContext, script: str) -> str:
    """Evaluate JavaScript in the page and return the result as text."""
    result = web(ctx).evaluate(script)
    return result if isinstance(result, str) else json.dumps(result)


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
)
