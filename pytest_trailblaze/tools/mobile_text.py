"""Built-in mobile tools that find an element by the text it shows or its accessibility text.

These are upstream's older text tools (``tapOnElementWithText``...): each is a selector in the
Maestro dialect, a case-insensitive substring of the text, resolved like the selector tools.
"""

from __future__ import annotations

from typing import TypedDict, Unpack

from ..core.errors import ToolArgumentError
from ..core.run.driver import MobileSession
from ..core.screen.hierarchy import Node
from ..core.tooling.context import ToolContext
from .limits import Index
from .mobile import absent, mobile, mobile_tool, only, shown_text, text_selector


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
    absent(driver, selector, f"showing {text!r}")
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


class AccessibilityFilters(TypedDict, total=False):
    """What narrows an accessibility-text search besides the text and the position."""

    id: str | None
    enabled: bool | None
    selected: bool | None


def _by_accessibility_text(
    ctx: ToolContext, text: str, index: str | int | None, **filters: Unpack[AccessibilityFilters]
) -> tuple[MobileSession, Node]:
    """The visible element whose accessibility text (content-desc, iOS label) contains ``text``, any case."""
    driver = mobile(ctx)
    position = _string_index(index)
    selector = text_selector(driver, text, field="accessibilityTextRegex", index=position, **filters)
    return driver, only(driver, selector)


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
    return f"{only(driver, selector).label()} is visible"


TOOLS = (
    assertVisibleWithText,
    assertNotVisibleWithText,
    assertVisibleWithAccessibilityText,
    assertVisibleWithResourceId,
    tapOnElementWithText,
    tapOnElementWithAccessibilityText,
    longPressOnElementWithText,
    longPressElementWithAccessibilityText,
)
