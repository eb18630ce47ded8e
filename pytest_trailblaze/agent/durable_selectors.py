"""Durable selectors for what the model pointed at, so a recording survives the next page load.

The model refers to elements by refs that only mean something on the screen it saw (``e7`` on
web, ``y1234`` on mobile). A recording keeps, next to (web) or instead of (mobile) that ref, a
``nodeSelector`` computed while the element is still on screen: on web the driver computes it
(an element id, a test id, or role + name + position; ``drivers/durable_web.py``), on mobile
the ids and texts that make the node unique, from the page source.
"""

from __future__ import annotations

from ..core.jsondata import JsonObject
from ..core.run.driver import SelectorProbe
from ..core.screen.aria import literal_pattern
from ..core.screen.hierarchy import Node, is_text_field
from ..core.screen.node_selectors import find_all

__all__ = ["literal_pattern", "mobile_node_selector", "web_node_selector"]


def web_node_selector(driver: object, ref: str) -> JsonObject | None:
    """A durable selector for the web element ``ref`` (``e7``) names, from a driver that can say
    (``SelectorProbe``: the web driver computes it while the element is still on the page)."""
    return driver.durable_selector(ref) if isinstance(driver, SelectorProbe) else None


# -- mobile ------------------------------------------------------------------------------------------
_ANDROID_FIELDS = (
    ("resourceIdRegex", "resource-id"),
    ("textRegex", "text"),
    ("contentDescriptionRegex", "content-desc"),
)
_IOS_FIELDS = (("resourceIdRegex", "name"), ("accessibilityTextRegex", "label"), ("textRegex", "value"))


def mobile_node_selector(node: Node, nodes: list[Node], platform: str) -> JsonObject:
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
    best: JsonObject | None = None
    for size in range(1, len(usable) + 1):
        matcher: JsonObject = {key: literal_pattern(value or "") for key, value in usable[:size]}
        selector: JsonObject = {dialect: matcher}
        found = find_all(nodes, selector)
        if found and found[0] is node and len(found) == 1:
            return selector
        if node in found and best is None:
            best = {dialect: matcher, "index": found.index(node)}
    if best is not None:
        return best
    every: JsonObject = {key: literal_pattern(value or "") for key, value in usable}
    found = find_all(nodes, {dialect: every})
    return {dialect: every, "index": found.index(node)} if node in found else {dialect: every}


def _editable_text(node: Node, attr: str) -> bool:
    return is_text_field(node) and attr in ("text", "value")
