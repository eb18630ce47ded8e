"""Durable selectors for a web element a snapshot ref names, so a recording survives the next page.

A mixin of ``WebDriver`` (the contract's ``SelectorProbe``). The model refers to elements by refs
that only mean something on the page it saw (``e7``); a recording keeps, next to that ref, a
``nodeSelector`` computed while the element is still on the page: an element id, a test id, or
role + name + position.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..core.errors import ToolError
from ..core.jsondata import JsonObject, JsonValue, SelectorSpec
from ..core.screen import aria

if TYPE_CHECKING:
    from playwright.sync_api import Locator

    from .locators import Located

_ID_RE = re.compile(r"^[A-Za-z][\w-]*$")

#: How long the probe may wait for the element the model named (it was just on screen).
PROBE_TIMEOUT_MS = 2000


class DurableSelectors:
    """``durable_selector`` over the driver's element resolution (``locators.py``)."""

    numbered_elements: Callable[[], dict[str, aria.AriaElement]]
    locator_of: Callable[[aria.AriaElement], Locator]
    by_role: Callable[[str, str | None], Locator]
    count_of: Callable[[Locator], int]
    locate: Callable[[str | None, SelectorSpec | None], Located]

    def durable_selector(self, ref: str) -> JsonObject | None:
        """``{"web": {...}}`` for the element ``eN`` names on the current page, or None when no
        selector finds that very element again (then the recording keeps the ref alone).

        The page is numbered as the web tools number it (a fresh default snapshot aligned with an
        AI snapshot, ``aria.number_elements``), so the selector describes the element the call acts
        on, and the numbered line already gives its role and name. Each question to the page is
        one round trip that Playwright answers where it resolves ``aria-ref=`` (``get_attribute``,
        and ``count`` of a candidate ``and`` the element), so no element handle is made or released.
        """
        from playwright.sync_api import Error

        try:
            found = self.numbered_elements().get(aria.element_id(ref) or "")
            if found is None:
                return None
            return self._first_finding(self.locator_of(found), found)
        except (Error, ToolError):  # gone or unresolvable: the tool call itself will say why
            return None

    def _first_finding(self, target: Locator, found: aria.AriaElement) -> JsonObject | None:
        """The most durable selector whose first match is ``target``: id, test id, then role."""
        for attribute, candidate in (("id", _by_id), ("data-testid", _by_test_id)):
            value = target.get_attribute(attribute, timeout=PROBE_TIMEOUT_MS)
            selector = candidate(value) if value else None
            if selector is not None and self._finds(self.locate(None, selector).locator.first, target):
                return selector
        name = None if found.from_text else found.name
        by_role = self.by_role(found.role, name)
        nth = found.nth if self._finds(by_role.nth(found.nth), target) else self._position(by_role, target)
        if nth is None:
            return None
        web: dict[str, JsonValue] = {"ariaRole": found.role}
        if name:
            web["ariaNameRegex"] = aria.literal_pattern(name)
        if nth > 0:
            web["nthIndex"] = nth
        return {"web": web}

    def _finds(self, locator: Locator, target: Locator) -> bool:
        """Whether ``locator`` (one element at most) is ``target``: one bounded round trip, no handles."""
        return bool(self.count_of(locator.and_(target)))

    def _position(self, by_role: Locator, target: Locator) -> int | None:
        """The target's index among the role's elements, when the snapshot's count was off."""
        for index in range(self.count_of(by_role)):
            if self._finds(by_role.nth(index), target):
                return index
        return None


def _by_id(value: str) -> JsonObject | None:
    return {"web": {"cssSelector": f"#{value}"}} if _ID_RE.match(value) else None


def _by_test_id(value: str) -> JsonObject | None:
    """A test id the replay's ``[data-testid="..."]`` selector can hold as written."""
    return None if '"' in value or "\\" in value else {"web": {"dataTestId": value}}
