"""Durable selectors for what the model pointed at, so a recording survives the next page load.

The model refers to elements by refs that only mean something on the screen it saw (``e7`` on
web, ``y1234`` on mobile). A recording keeps, next to (web) or instead of (mobile) that ref, a
``nodeSelector`` computed while the element is still on screen (U§4.8: an element id, a test id,
or role + name + position; on mobile the ids and texts that make the node unique).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..core.errors import ToolError
from ..drivers.selectors import Node, find_all, is_text_field

#: How long the selector probe may wait for the element the model named (it was just on screen).
PROBE_TIMEOUT_MS = 2000
_ID_RE = re.compile(r"^[A-Za-z][\w-]*$")
_READ_ELEMENT = """el => ({
  id: el.id || "",
  testId: el.getAttribute("data-testid") || "",
})"""


def literal_pattern(text: str) -> str:
    """A pattern matching ``text`` exactly: as written, or ``\\Q...\\E`` when it holds regex syntax."""
    return rf"\Q{text}\E" if any(ch in text for ch in _META) else text


_META = frozenset(".^$*+?()[]{}|\\")


def web_node_selector(driver: Any, ref: str) -> dict[str, Any] | None:
    """``{"web": {...}}`` for the element ``ref`` names on the current page, or None when no
    selector finds that very element again (then the recording keeps the ref alone)."""
    from playwright.sync_api import Error

    try:
        locator, _ = driver.locate(ref, None)
        element = locator.first
        handle = element.element_handle(timeout=PROBE_TIMEOUT_MS)
        facts = element.evaluate(_READ_ELEMENT)
        for candidate in _web_candidates(driver, element, handle, facts):
            found, _ = driver.locate(None, candidate)
            if found.first.evaluate("(el, target) => el === target", handle):
                return candidate
    except (Error, ToolError):  # gone or unresolvable: the tool call itself will say why
        return None
    return None


def _web_candidates(driver: Any, element: Any, handle: Any, facts: Mapping[str, str]) -> list[dict[str, Any]]:
    """Selectors to try, most durable first (U§4.8's order)."""
    candidates: list[dict[str, Any]] = []
    if facts.get("id") and _ID_RE.match(facts["id"]):
        candidates.append({"web": {"cssSelector": f"#{facts['id']}"}})
    if facts.get("testId"):
        candidates.append({"web": {"dataTestId": facts["testId"]}})
    role, name = _role_and_name(element)
    if role:
        web: dict[str, Any] = {"ariaRole": role}
        if name:
            web["ariaNameRegex"] = literal_pattern(name)
        by_role = driver.by_role(role, name)
        nth = by_role.evaluate_all("(els, target) => els.indexOf(target)", handle)
        if isinstance(nth, int) and nth > 0:
            web["nthIndex"] = nth
        candidates.append({"web": web})
    return candidates


_SNAPSHOT_HEAD = re.compile(r'^-\s(?P<role>[a-z][\w-]*)(?:\s+"(?P<name>(?:[^"\\]|\\.)*)")?')


def _role_and_name(element: Any) -> tuple[str | None, str | None]:
    """The element's own ARIA role and accessible name, from its one-element snapshot."""
    first = (element.aria_snapshot(timeout=PROBE_TIMEOUT_MS).splitlines() or [""])[0]
    match = _SNAPSHOT_HEAD.match(first.strip())
    if match is None or match.group("role") in ("text", "generic"):
        return None, None
    name = match.group("name")
    return match.group("role"), name.replace('\\"', '"') if name else None


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
