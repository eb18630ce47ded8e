"""Built-in mobile tools over the Appium driver, for android and ios.

Selector tools resolve ``nodeSelector`` in the page source (pure Python, ``drivers.selectors``)
and act on the node they found. The older text tools (``tapOnElementWithText``...) are selectors
too: a case-insensitive substring of the text, in the Maestro dialect, as upstream wrote them.
"""

from __future__ import annotations

import re
from typing import Any

from ..core.errors import FatalToolError, ToolArgumentError, ToolFailure
from ..core.screen.hierarchy import Node, matches_pattern
from ..core.screen.node_selectors import describe
from ..core.tooling.context import ToolContext
from ..core.tooling.tooldef import CaseInsensitiveEnum, ToolResult, tool
from ..core.trail.nodeselector import NodeSelector
from ..drivers.appium import MobileDriver
from .limits import Index, TimeoutMs

MOBILE = ("android", "ios")
DEFAULT_WAIT_MS = 5_000


class TextMatchMode(CaseInsensitiveEnum):
    EXACT = "EXACT"
    PREFIX = "PREFIX"
    REGEX = "REGEX"


def mobile(ctx: ToolContext) -> MobileDriver:
    if not isinstance(ctx.driver, MobileDriver):
        raise FatalToolError(
            f"mobile tools need the Appium driver, this session has {type(ctx.driver).__name__}"
        )
    return ctx.driver


def mobile_tool(**kwargs: Any) -> Any:
    kwargs.setdefault("toolset", "core_interaction")
    kwargs.setdefault("platforms", MOBILE)
    return tool(source="builtin", **kwargs)


def _selector(node_selector: NodeSelector | None, tool_name: str) -> dict[str, Any]:
    if node_selector is None:
        raise ToolFailure(f"{tool_name} needs a `nodeSelector`")
    return node_selector.as_dict()


def _only(driver: MobileDriver, selector: dict[str, Any], timeout_ms: int) -> Node:
    found = driver.wait_for(selector, timeout_ms / 1000)
    if not found:
        raise ToolFailure(f"no visible element matches {describe(selector)} (waited {timeout_ms / 1000:g} s)")
    return found[0]


def shown_text(driver: MobileDriver, text: str, **filters: Any) -> Node:
    """The visible element showing ``text`` (Maestro style: a substring, any case)."""
    return _only(driver, text_selector(driver, text, **filters), DEFAULT_WAIT_MS)


def _absent(driver: MobileDriver, selector: dict[str, Any], timeout_ms: int, what: str) -> None:
    """Wait until nothing visible matches ``selector``; fail naming what is still there."""
    found = driver.wait_for(selector, timeout_ms / 1000, present=False)
    if found:
        raise ToolFailure(f"{found[0].label()} {what} is still visible")


def text_of(node: Node) -> str:
    return node.get("text", "label", "value", "content-desc", "name") or ""


def text_selector(
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
    timeoutMs: TimeoutMs | None = None,
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
    ctx: ToolContext, nodeSelector: NodeSelector | None = None, timeoutMs: TimeoutMs | None = None
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
    index: Index = 0,
    id: str | None = None,
    enabled: bool | None = None,
    selected: bool | None = None,
) -> str:
    """Assert an element showing this text (a substring, any case) is visible."""
    driver = mobile(ctx)
    node = shown_text(driver, text, id=id, index=index, enabled=enabled, selected=selected)
    return f"{node.label()} is visible"


@mobile_tool(is_verification=True, toolset="verification")
def assertNotVisibleWithText(
    ctx: ToolContext,
    text: str,
    index: Index = 0,
    id: str | None = None,
    enabled: bool | None = None,
    selected: bool | None = None,
) -> str:
    """Assert no visible element shows this text (a substring, any case)."""
    driver = mobile(ctx)
    selector = text_selector(driver, text, id=id, index=index, enabled=enabled, selected=selected)
    _absent(driver, selector, DEFAULT_WAIT_MS, f"showing {text!r}")
    return f"no element shows {text!r}"


@mobile_tool(surface_to_llm=False)
def tapOnElementWithText(
    ctx: ToolContext,
    text: str,
    index: Index = 0,
    id: str | None = None,
    enabled: bool | None = None,
    selected: bool | None = None,
) -> str:
    """Tap the element showing this text (a substring, any case)."""
    driver = mobile(ctx)
    node = shown_text(driver, text, id=id, index=index, enabled=enabled, selected=selected)
    driver.tap(node)
    return f"Tapped {node.label()}"


def _string_index(index: str | int | None) -> int:
    """The Maestro-era tools take ``index`` as text ("2"), as upstream declares it; still a whole number."""
    text = "" if index is None else str(index).strip()
    if not text:
        return 0
    if not text.isdigit():
        raise ToolArgumentError(f"argument 'index' is a position among matches (0, 1, ...), got {index!r}")
    return int(text)


def _by_accessibility_text(
    ctx: ToolContext, text: str, index: str | int | None, **filters: Any
) -> tuple[MobileDriver, Node]:
    """The visible element whose accessibility text (content-desc, iOS label) contains ``text``, any case."""
    driver = mobile(ctx)
    position = _string_index(index)
    selector = text_selector(driver, text, field="accessibilityTextRegex", index=position, **filters)
    return driver, _only(driver, selector, DEFAULT_WAIT_MS)


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
    found = _by_accessibility_text(ctx, accessibilityText, index, id=id, enabled=enabled, selected=selected)
    driver, node = found
    driver.tap(node)
    return f"Tapped {node.label()}"


@mobile_tool(surface_to_llm=False)
def longPressElementWithAccessibilityText(
    ctx: ToolContext,
    accessibilityText: str,
    id: str | None = None,
    index: str | None = None,
    enabled: bool | None = None,
    selected: bool | None = None,
) -> str:
    """Press and hold the element whose accessibility text contains this text (any case)."""
    found = _by_accessibility_text(ctx, accessibilityText, index, id=id, enabled=enabled, selected=selected)
    driver, node = found
    driver.tap(node, long_press=True)
    return f"Long-pressed {node.label()}"


@mobile_tool(surface_to_llm=False)
def longPressOnElementWithText(
    ctx: ToolContext,
    text: str,
    id: str | None = None,
    index: str | None = None,
    enabled: bool | None = None,
    selected: bool | None = None,
) -> str:
    """Press and hold the element showing this text (a substring, any case)."""
    driver = mobile(ctx)
    node = shown_text(driver, text, id=id, index=_string_index(index), enabled=enabled, selected=selected)
    driver.tap(node, long_press=True)
    return f"Long-pressed {node.label()}"


@mobile_tool(surface_to_llm=False, is_verification=True, toolset="verification")
def assertVisibleWithAccessibilityText(
    ctx: ToolContext,
    accessibilityText: str,
    id: str | None = None,
    index: Index = 0,
    enabled: bool | None = None,
    selected: bool | None = None,
) -> str:
    """Assert an element whose accessibility text contains this text (any case) is visible."""
    _, node = _by_accessibility_text(ctx, accessibilityText, index, id=id, enabled=enabled, selected=selected)
    return f"{node.label()} is visible"


@mobile_tool(surface_to_llm=False, is_verification=True, toolset="verification")
def assertVisibleWithResourceId(
    ctx: ToolContext,
    resourceId: str,
    accessibilityText: str | None = None,
    index: Index = 0,
    enabled: bool | None = None,
    selected: bool | None = None,
) -> str:
    """Assert an element with this resource id (a regex over the whole id) is visible.

    ``accessibilityText`` (a regex) narrows it down when several elements share the id.
    """
    driver = mobile(ctx)
    selector = text_selector(
        driver,
        None,
        field="accessibilityTextRegex",
        regex=accessibilityText,
        id=resourceId,
        index=index,
        enabled=enabled,
        selected=selected,
    )
    return f"{_only(driver, selector, DEFAULT_WAIT_MS).label()} is visible"


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


def match_descriptor(node: Node, platform: str) -> dict[str, Any]:
    """Upstream's ``MatchDescriptor``: where a match sits in the tree and on screen, and its names."""
    text, label, ident = (node.get(*names) or None for names in _DESCRIPTOR_ATTRS[platform])
    bounds = None
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
    assertVisibleWithText,
    assertNotVisibleWithText,
    assertVisibleWithAccessibilityText,
    assertVisibleWithResourceId,
    tapOnElementWithText,
    tapOnElementWithAccessibilityText,
    longPressOnElementWithText,
    longPressElementWithAccessibilityText,
    findMatches,
    waitUntilNotVisible,
)
