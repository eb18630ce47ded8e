"""Element resolution for the web driver: ``css=`` refs, ``eN`` ids, ARIA descriptors
(docs/upstream.md, Element references on the web).

A mixin of ``WebDriver`` (it needs the driver's ``page`` and ``hierarchy()``): the rules for
turning a ref and/or ``nodeSelector.web`` into one Playwright locator live here, the actions and
their timeouts in ``element_actions.py``. What ``locate`` returns is the contract's ``Element``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

from ..core.errors import ToolFailure
from ..core.jsondata import SelectorSpec
from ..core.screen import aria

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page

FALLBACK_ROLES = (
    "textbox",
    "searchbox",
    "combobox",
    "button",
    "link",
    "checkbox",
    "radio",
    "tab",
    "menuitem",
    "option",
)


class Located(NamedTuple):
    """A located element (the driver contract's ``Element``): the Playwright locator, and how
    messages name it (``css=#pay``, ``nodeSelector.web(...) or e7``)."""

    locator: Locator
    described: str


T = TypeVar("T")


class ElementLocators:
    """Locators for refs and node selectors over ``self.page``."""

    page: Page
    hierarchy: Callable[[], str]  # the driver's default ARIA snapshot of the page

    if TYPE_CHECKING:

        def within(self, action: Callable[[], T], what: str, seconds: float | None = None) -> T:
            """The driver's bounded call into the page (``pageguard.py``)."""
            ...

    def count_of(self, locator: Locator) -> int:
        """How many elements ``locator`` finds now (bounded: counting runs in the page)."""
        return int(self.within(locator.count, "looking for elements"))

    def locate(self, ref: str | None, node_selector: SelectorSpec | None) -> Located:
        """The locator for a ref and/or nodeSelector, and a description for messages."""
        node = self._node_locator(node_selector) if node_selector else None
        ref_text = (ref or "").strip()
        by_ref = self._ref_locator(ref_text, required=node is None) if ref_text else None
        described = " or ".join(
            d for d in (describe_selector(node_selector) if node is not None else "", ref_text) if d
        )
        if node is not None:
            return Located(node if by_ref is None else node.or_(by_ref), described)
        if by_ref is not None:
            return Located(by_ref, described)
        raise ToolFailure(
            "Element ref is required: give `ref` (css=..., eN or an ARIA descriptor) "
            "or a usable `nodeSelector.web`"
        )

    def _ref_locator(self, ref: str, *, required: bool) -> Locator | None:
        if ref.startswith("css="):
            return self.page.locator(ref)
        element = aria.element_id(ref)
        if element is not None:
            return self._element_locator(element, required=required)
        return self.by_descriptor(aria.parse_descriptor(ref))

    def _element_locator(self, element: str, *, required: bool) -> Locator | None:
        """The element numbered ``element`` on the current page, by its identity in the snapshot.

        The default snapshot gives the numbering (docs/upstream.md, Element numbering); the AI
        snapshot taken right after it marks the same elements with Playwright's refs, which
        ``aria-ref=`` resolves to the very element (a name from CSS generated content matches no
        text). It must be the last snapshot
        taken before the action: each snapshot replaces the refs of the one before.
        """
        numbered = self.numbered_elements()
        found = numbered.get(element)
        if found is None:
            if not required:
                return None
            last = f"e1..e{len(numbered)}" if numbered else "no elements"
            raise ToolFailure(f"element id {element} is not on the current page (it has {last})")
        return self.locator_of(found)

    def numbered_elements(self) -> dict[str, aria.AriaElement]:
        """The page's elements by ``eN``: the default snapshot numbered, marked by the AI one."""
        return aria.number_elements(self.hierarchy(), self._ai_snapshot())

    def locator_of(self, found: aria.AriaElement) -> Locator:
        """The very element ``found`` stands for: its ``aria-ref=``, else its role, name and rank."""
        if found.aria_ref:
            return self.page.locator(f"aria-ref={found.aria_ref}")
        if found.from_text:  # the snapshot collapsed the text's whitespace; the DOM did not
            words = r"\s+".join(re.escape(word) for word in (found.name or "").split())
            exact = re.compile(rf"^\s*{words}\s*$")
            return self._role_locator(found.role).filter(has_text=exact).nth(found.nth)
        return self.by_role(found.role, found.name).nth(found.nth)

    def _ai_snapshot(self) -> str | None:
        """Playwright's AI snapshot of the page; None (refs by role and name) if it cannot take one."""
        from playwright.sync_api import Error

        try:
            return self.within(
                lambda: self.page.aria_snapshot(mode="ai"), "reading the page's accessibility tree"
            )
        except Error:  # a page between two documents: the role-and-name fallback still applies
            return None

    def by_role(self, role: str, name: str | None) -> Locator:
        if name:
            return self._role_locator(role, name)
        return self._role_locator(role)

    def _role_locator(self, role: str, name: str | None = None) -> Locator:
        """``get_by_role`` for a role read from the page's own snapshot (Playwright's type lists the
        roles it knows as a ``Literal``; a snapshot's role is one of them by construction)."""
        if name is None:
            return self.page.get_by_role(role)  # type: ignore[arg-type]
        return self.page.get_by_role(role, name=name, exact=True)  # type: ignore[arg-type]

    def by_descriptor(self, descriptor: aria.Descriptor) -> Locator:
        """``role "Name"`` exactly; otherwise the role with the name, then the name under ``FALLBACK_ROLES``
        in turn, then a label, then any text (docs/upstream.md, Element references on the web)."""
        if descriptor.quoted or (descriptor.name is None and descriptor.role != "generic"):
            return self.by_role(descriptor.role or "generic", descriptor.name)
        if descriptor.role and descriptor.role != "generic":
            direct = self.by_role(descriptor.role, descriptor.name)
            if self.count_of(direct):
                return direct
        text = descriptor.text
        for role in FALLBACK_ROLES:
            candidate = self.by_role(role, text)
            if self.count_of(candidate):
                return candidate
        label = self.page.get_by_label(text, exact=True)
        return label if self.count_of(label) else self.page.get_by_text(text)

    def _node_locator(self, selector: SelectorSpec) -> Locator | None:
        """The readiness locator of a ``nodeSelector.web``; None for selectors it cannot express."""
        found = selector.get("web") if isinstance(selector, Mapping) else None
        if not isinstance(found, Mapping):
            return None
        web: Mapping[str, Any] = found  # validated by ``NodeSelector``: strings and an int index
        locator = None
        if web.get("cssSelector"):
            locator = self.page.locator(f"css={web['cssSelector']}")
        elif web.get("dataTestId"):
            locator = self.page.locator(f'[data-testid="{web["dataTestId"]}"]')
        elif web.get("ariaRole"):
            name = aria.literal_name(web["ariaNameRegex"]) if web.get("ariaNameRegex") else None
            role = web["ariaRole"]
            text = f'{role} "{name}"' if name else role
            locator = self.by_descriptor(aria.parse_descriptor(text))
        if locator is not None and web.get("nthIndex") is not None:
            locator = locator.nth(int(web["nthIndex"]))
        return locator


def describe_selector(selector: SelectorSpec | None) -> str:
    web = (selector or {}).get("web") or {}
    parts = [f"{k}={v!r}" for k, v in web.items()] if isinstance(web, Mapping) else []
    return f"nodeSelector.web({', '.join(parts)})" if parts else ""
