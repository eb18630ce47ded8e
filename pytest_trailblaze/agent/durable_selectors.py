"""Durable selectors for what the model pointed at, so a recording survives the next page load.

The model refers to elements by refs that only mean something on the screen it saw (``e7`` on
web, ``y1234`` on mobile). A recording keeps, next to (web) or instead of (mobile) that ref, a
``nodeSelector`` computed while the element is still on screen (an element id, a test id,
or role + name + position; on mobile the ids and texts that make the node unique).
"""

from __future__ import annotations

import re
from typing import Any

from ..core.errors import ToolError
from ..core.screen import aria
from ..core.screen.hierarchy import Node, is_text_field
from ..core.screen.node_selectors import find_all

_ID_RE = re.compile(r"^[A-Za-z][\w-]*$")


def literal_pattern(text: str) -> str:
    """A pattern matching ``text`` exactly: as written, or ``\\Q...\\E`` when it holds regex syntax."""
    return rf"\Q{text}\E" if any(ch in text for ch in _META) else text


_META = frozenset(".^$*+?()[]{}|\\")


def web_node_selector(driver: Any, ref: str) -> dict[str, Any] | None:
    """``{"web": {...}}`` for the element ``eN`` names on the current page, or None when no
    selector finds that very element again (then the recording keeps the ref alone).

    The page is numbered as the web tools number it (a fresh default snapshot aligned with an AI
    snapshot, ``aria.number_elements``), so the selector describes the element the call acts
    on, and the numbered line already gives its role and name. Each question to the page is one
    round trip that Playwright answers where it resolves ``aria-ref=`` (``get_attribute``, and
    ``count`` of a candidate ``and`` the element), so no element handle is made or released.
    """
    from playwright.sync_api import Error

    try:
        found = driver.numbered_elements().get(aria.element_id(ref) or "")
        if found is None:
            return None
        return _first_finding(driver, driver.locator_of(found), found)
    except (Error, ToolError):  # gone or unresolvable: the tool call itself will say why
        return None


#: How long the probe may wait for the element the model named (it was just on screen).
PROBE_TIMEOUT_MS = 2000


def _first_finding(driver: Any, target: Any, found: aria.AriaElement) -> dict[str, Any] | None:
    """The most durable selector whose first match is ``target``: id, test id, then role."""
    for attribute, candidate in (("id", _by_id), ("data-testid", _by_test_id)):
        value = target.get_attribute(attribute, timeout=PROBE_TIMEOUT_MS)
        selector = candidate(value) if value else None
        if selector is not None and _finds(driver, driver.locate(None, selector)[0].first, target):
            return selector
    name = None if found.from_text else found.name
    by_role = driver.by_role(found.role, name)
    nth = found.nth if _finds(driver, by_role.nth(found.nth), target) else _position(driver, by_role, target)
    if nth is None:
        return None
    web: dict[str, Any] = {"ariaRole": found.role}
    if name:
        web["ariaNameRegex"] = literal_pattern(name)
    if nth > 0:
        web["nthIndex"] = nth
    return {"web": web}


def _by_id(value: str) -> dict[str, Any] | None:
    return {"web": {"cssSelector": f"#{value}"}} if _ID_RE.match(value) else None


def _by_test_id(value: str) -> dict[str, Any] | None:
    """A test id the replay's ``[data-testid="..."]`` selector can hold as written."""
    return None if '"' in value or "\\" in value else {"web": {"dataTestId": value}}


def _finds(driver: Any, locator: Any, target: Any) -> bool:
    """Whether ``locator`` (one element at most) is ``target``: one bounded round trip, no handles."""
    return bool(driver.count_of(locator.and_(target)))


def _position(driver: Any, by_role: Any, target: Any) -> int | None:
    """The target's index among the role's elements, when the snapshot's count was off."""
    for index in range(driver.count_of(by_role)):
        if _finds(driver, by_role.nth(index), target):
            return index
    return None


# -- mobile ------------------------------------------------------------------------------------------
_ANDROID_FIELDS = (
    ("resourceIdRegex", "resource-id"),
    ("textRegex", "text"),
    ("contentDescriptionRegex", "content-desc"),
)
_IOS_FIELDS = (("resourceIdRegex", "name"), ("accessibilityTextRegex", "label"), ("textRegex", "value"))


def mobile_node_selector(node: Node, nodes: list[Node], platform: str) -> dict[str, Any]:
    """The smallest selector of the node's ids and texts that finds it, with ``index`` if needed.

    Android uses the native ``androidAccessibility`` matcher (exact, case-sensitive); iOS the
    ``iosMaestro`` one that recordings of iOS hosts carry. Editable fields are never selected by
    their text, which is what was typed into them.
    """
    dialect, fields = (
        ("androidAccessibility", _ANDROID_FIELDS)
        if platform == "android"
        else (
            "iosMaestro",
            _IOS_FIELDS,
        )
    )
    usable = [
        (key, node.get(attr))
        for key, attr in fields
        if node.get(attr) and not (key != "resourceIdRegex" and _editable_text(node, attr))
    ]
    if not usable:
        usable = [("classNameRegex", node.kind)]
    best: dict[str, Any] | None = None
    for size in range(1, len(usable) + 1):
        matcher = {key: literal_pattern(value or "") for key, value in usable[:size]}
        selector = {dialect: matcher}
        found = find_all(nodes, selector)
        if found and found[0] is node and len(found) == 1:
            return selector
        if node in found and best is None:
            best = {dialect: matcher, "index": found.index(node)}
    if best is not None:
        return best
    selector = {dialect: {key: literal_pattern(value or "") for key, value in usable}}
    found = find_all(nodes, selector)
    return {**selector, "index": found.index(node)} if node in found else selector


def _editable_text(node: Node, attr: str) -> bool:
    return is_text_field(node) and attr in ("text", "value")
