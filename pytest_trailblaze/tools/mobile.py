"""Built-in mobile tools over the driver contract's ``MobileSession``, for android and ios.

Selector tools resolve ``nodeSelector`` in the page source (pure Python, ``core/screen``) and act
on the node they found; the queries scripted tools branch on (``findMatches``) live here too. The
older text tools (``tapOnElementWithText``...) are in ``mobile_text.py``, built on the selector
helpers here.
"""

from __future__ import annotations

import re
from typing import Any, TypedDict, Unpack, cast

from ..core.errors import FatalToolError, ToolFailure
from ..core.jsondata import JsonObject, SelectorSpec
from ..core.run.driver import MobileSession, implements
from ..core.screen.hierarchy import Node, matches_pattern
from ..core.screen.node_selectors import describe
from ..core.tooling.context import ToolContext
from ..core.tooling.tooldef import CaseInsensitiveEnum, ToolResult, tool
from ..core.trail.nodeselector import NodeSelector
from .declaring import ToolDecorator
from .limits import TimeoutMs

MOBILE = ("android", "ios")
DEFAULT_WAIT_MS = 5_000


class TextMatchMode(CaseInsensitiveEnum):
    EXACT = "EXACT"
    PREFIX = "PREFIX"
    REGEX = "REGEX"


def mobile(ctx: ToolContext) -> MobileSession:
    """The session's driver as a mobile driver; a driver that is none fails the call for good."""
    if not implements(ctx.driver, MobileSession):  # isinstance, without its cost on every call
        raise FatalToolError(
            f"mobile tools need the Appium driver, this session has {type(ctx.driver).__name__}"
        )
    return cast(MobileSession, ctx.driver)


def mobile_tool(**kwargs: Any) -> ToolDecorator:
    kwargs.setdefault("toolset", "core_interaction")
    kwargs.setdefault("platforms", MOBILE)
    return tool(source="builtin", **kwargs)


def _selector(node_selector: NodeSelector | None, tool_name: str) -> JsonObject:
    if node_selector is None:
        raise ToolFailure(f"{tool_name} needs a `nodeSelector`")
    return node_selector.as_dict()


def only(driver: MobileSession, selector: SelectorSpec, timeout_ms: int | None = None) -> Node:
    """The first visible element ``selector`` finds, waiting up to ``timeout_ms`` (the tools' default)."""
    timeout_ms = DEFAULT_WAIT_MS if timeout_ms is None else timeout_ms
    found = driver.wait_for(selector, timeout_ms / 1000)
    if not found:
        raise ToolFailure(f"no visible element matches {describe(selector)} (waited {timeout_ms / 1000:g} s)")
    return found[0]


def shown_text(driver: MobileSession, text: str, **filters: Unpack[TextFilters]) -> Node:
    """The visible element showing ``text`` (Maestro style: a substring, any case)."""
    return only(driver, text_selector(driver, text, **filters))


class TextFilters(TypedDict, total=False):
    """What narrows a text search besides the text (``text_selector``'s filters)."""

    id: str | None
    index: int
    enabled: bool | None
    selected: bool | None


def absent(driver: MobileSession, selector: SelectorSpec, what: str, timeout_ms: int | None = None) -> None:
    """Wait until nothing visible matches ``selector``; fail naming what is still there."""
    timeout_ms = DEFAULT_WAIT_MS if timeout_ms is None else timeout_ms
    found = driver.wait_for(selector, timeout_ms / 1000, present=False)
    if found:
        raise ToolFailure(f"{found[0].label()} {what} is still visible")


def text_of(node: Node) -> str:
    return node.get("text", "label", "value", "content-desc", "name") or ""


def text_selector(
    driver: MobileSession,
    text: str | None,
    *,
    field: str = "textRegex",
    regex: str | None = None,
    id: str | None = None,
    index: int = 0,
    enabled: bool | None = None,
    selected: bool | None = None,
) -> JsonObject:
    """The Maestro-style selector of the older text tools: a substring (or ``regex``), any case."""
    dialect = "androidMaestro" if driver.platform == "android" else "iosMaestro"
    matcher: JsonObject = {}
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
    node = only(driver, _selector(nodeSelector, "tapOnElementBySelector"))
    driver.tap(node, long_press=longPress)
    return f"{'Long-pressed' if longPress else 'Tapped'} {node.label()}"


@mobile_tool(surface_to_llm=False)
def tapOn(
    ctx: ToolContext, selector: NodeSelector, relativePoint: str | None = None, longPress: bool = False
) -> str:
    """Tap an element found by selector, optionally at a point relative to its bounds ("25%,50%")."""
    driver = mobile(ctx)
    node = only(driver, selector.as_dict())
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
    timeoutMs: TimeoutMs | None = None,
    expectedText: str | None = None,
    textMatchMode: TextMatchMode = TextMatchMode.EXACT,
) -> str:
    """Wait until a selector finds a visible element; optionally check its text."""
    driver = mobile(ctx)
    node = only(driver, _selector(nodeSelector, "assertVisibleBySelector"), timeoutMs or DEFAULT_WAIT_MS)
    if expectedText is not None and not text_matches(text_of(node), expectedText, textMatchMode):
        raise ToolFailure(
            f"{node.label()} shows {text_of(node)!r}, expected {expectedText!r} ({textMatchMode.value})"
        )
    return f"{node.label()} is visible"


@mobile_tool(surface_to_llm=False, is_verification=True, toolset="verification")
def assertNotVisibleBySelector(
    ctx: ToolContext, nodeSelector: NodeSelector | None = None, timeoutMs: TimeoutMs | None = None
) -> str:
    """Wait until no visible element matches a selector."""
    driver = mobile(ctx)
    selector = _selector(nodeSelector, "assertNotVisibleBySelector")
    absent(driver, selector, f"({describe(selector)})", timeoutMs or DEFAULT_WAIT_MS)
    return f"nothing matches {describe(selector)}"


def text_matches(actual: str, expected: str, mode: TextMatchMode) -> bool:
    if mode is TextMatchMode.PREFIX:
        return actual.startswith(expected)
    if mode is TextMatchMode.REGEX:
        return matches_pattern(expected, actual)
    return actual.strip() == expected.strip()


# -- queries for scripted tools --------------------------------------------------------------------------
@mobile_tool(surface_to_llm=False, is_recordable=False)
def findMatches(ctx: ToolContext, selector: NodeSelector, timeoutMs: TimeoutMs | None = None) -> ToolResult:
    """Every visible element a selector matches, as data; waits up to ``timeoutMs`` for a first one.

    Never fails for "nothing matched": scripted tools branch on the (possibly empty) list. Without
    ``timeoutMs`` (or with 0) it looks at the screen once.
    """
    driver = mobile(ctx)
    wanted = selector.as_dict()
    if timeoutMs is None or timeoutMs <= 0:
        found = driver.find(wanted)
    else:
        found = driver.wait_for(wanted, timeoutMs / 1000)
    matches = [match_descriptor(node, driver.platform) for node in found]
    plural = "" if len(matches) == 1 else "es"
    return ToolResult(message=f"findMatches: {len(matches)} match{plural}", data=matches)


@mobile_tool(surface_to_llm=False, is_recordable=False)
def waitUntilNotVisible(
    ctx: ToolContext, nodeSelector: NodeSelector, timeoutMs: TimeoutMs | None = None
) -> ToolResult:
    """Wait until nothing visible matches a selector; the answer (true/false) is data, not a failure."""
    driver = mobile(ctx)
    budget = DEFAULT_WAIT_MS if timeoutMs is None else timeoutMs
    gone = not driver.wait_for(nodeSelector.as_dict(), budget / 1000, present=False)
    if gone:
        return ToolResult(message="waitUntilNotVisible: selector is not visible", data=True)
    waited = "default" if timeoutMs is None else timeoutMs
    return ToolResult(message=f"waitUntilNotVisible: selector still visible after {waited}ms", data=False)


#: Where upstream's ``MatchDescriptor`` names come from: matchedText, accessibilityId, resourceId.
_DESCRIPTOR_ATTRS = {
    "android": (("text", "hint", "content-desc"), ("content-desc",), ("resource-id",)),
    "ios": (("label", "value", "placeholderValue"), ("label",), ("name",)),
}


def match_descriptor(node: Node, platform: str) -> dict[str, object]:
    """Upstream's ``MatchDescriptor``: where a match sits in the tree and on screen, and its names."""
    text, label, ident = (node.get(*names) or None for names in _DESCRIPTOR_ATTRS[platform])
    bounds: dict[str, int] | None = None
    if node.has_bounds:
        bounds = {"left": node.x, "top": node.y, "right": node.right, "bottom": node.bottom}
    return {
        "indexPath": node.index_path(),
        "bounds": bounds,
        "matchedText": text,
        "accessibilityId": label,
        "resourceId": ident,
    }


# -- points --------------------------------------------------------------------------------------------
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


TOOLS = (
    tapOnElementBySelector,
    tapOn,
    assertVisibleBySelector,
    assertNotVisibleBySelector,
    findMatches,
    waitUntilNotVisible,
)
