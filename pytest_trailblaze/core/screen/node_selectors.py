"""Node selectors resolved in pure Python over a device's view hierarchy (docs/upstream.md, Node
selectors on mobile).

The hierarchy is Appium's page source: UiAutomator2-shaped XML on Android (``class``, ``text``,
``content-desc``, ``resource-id``, ``bounds="[x1,y1][x2,y2]"``, boolean flags) or XCUITest-shaped
XML on iOS (``type``, ``name``, ``label``, ``value``, ``x``/``y``/``width``/``height``). Appium's
fake driver reads ``top``/``left``/``width``/``height``, which count too.

Text patterns follow upstream's matching rules (the same in each of its languages): a pattern
matches when it matches the whole text as a (Java-flavoured) regex, or equals it literally. The
native dialect is case-sensitive; the Maestro dialect is case-insensitive, dot-all and multi-line
by default and rescues an invalid regex as an escaped case-insensitive literal.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any
from xml.etree import ElementTree

_BOUNDS = re.compile(r"\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]")
_LEADING_FLAGS = re.compile(r"^\(\?([a-zA-Z]*)(?:-([a-zA-Z]*))?\)")
_FLAG_BITS = {"i": re.IGNORECASE, "s": re.DOTALL, "m": re.MULTILINE}


# -- the hierarchy -----------------------------------------------------------------------------------
@dataclass(eq=False)
class Node:
    """One element of the hierarchy: its attributes, bounds, and place in the tree."""

    tag: str
    attrs: Mapping[str, str]
    x: int = 0
    y: int = 0
    width: int = 0
    height: int = 0
    parent: Node | None = None
    children: list[Node] = field(default_factory=list)
    #: 1-based position among the parent's children of the same tag (0 for the root).
    position: int = 0

    @property
    def xpath(self) -> str:
        """The exact XPath of this element in its page source (built on demand: only taps need it)."""
        steps = [n.tag if n.parent is None else f"{n.tag}[{n.position}]" for n in (self, *self.ancestors())]
        return "/" + "/".join(reversed(steps))

    def index_path(self) -> list[int]:
        """Child indexes from the root down to this element (``[]`` for the root), as upstream counts."""
        path, node = [], self
        while node.parent is not None:
            path.append(next(i for i, child in enumerate(node.parent.children) if child is node))
            node = node.parent
        return path[::-1]

    @property
    def has_bounds(self) -> bool:
        """Whether the page source says where the element is (some elements have no rectangle)."""
        return _has_bounds(self)

    @property
    def right(self) -> int:
        return self.x + self.width

    @property
    def bottom(self) -> int:
        return self.y + self.height

    @property
    def center(self) -> tuple[int, int]:
        return self.x + self.width // 2, self.y + self.height // 2

    def get(self, *names: str) -> str | None:
        """The first of ``names`` this node has (None when it has none)."""
        for name in names:
            value = self.attrs.get(name)
            if value is not None:
                return value
        return None

    def flag(self, *names: str) -> bool | None:
        value = self.get(*names)
        return None if value is None else value.strip().lower() == "true"

    @property
    def visible(self) -> bool:
        """Shown on screen: not marked invisible, and with an area."""
        marked = self.flag("displayed", "visible")
        return marked is not False and ((self.width > 0 and self.height > 0) or not self.has_bounds)

    def descendants(self) -> Iterator[Node]:
        for child in self.children:
            yield child
            yield from child.descendants()

    def ancestors(self) -> Iterator[Node]:
        node = self.parent
        while node is not None:
            yield node
            node = node.parent

    @property
    def kind(self) -> str:
        """The widget class (UiAutomator2 ``class``, XCUITest ``type``), else the element's tag."""
        return self.get("class", "type") or self.tag

    def label(self) -> str:
        """How messages name the node: its class or type and its most telling text."""
        kind = self.kind.rsplit(".", 1)[-1]
        text = self.get("text", "label", "content-desc", "name", "resource-id") or ""
        return f"{kind} {text!r}" if text else kind


def _has_bounds(node: Node) -> bool:
    return any(k in node.attrs for k in ("bounds", "x", "left", "width"))


def parse_hierarchy(xml: str) -> list[Node]:
    """Every element of a page source, in document order (the root first).

    The last source parsed is remembered: polls and consecutive tools often read a screen that
    did not change, and the same text always gives the same (read-only) nodes.
    """
    if _LAST_PARSE and _LAST_PARSE[0][0] == xml:
        return _LAST_PARSE[0][1]
    try:
        root = ElementTree.fromstring(xml)
    except ElementTree.ParseError as exc:
        raise ValueError(f"the page source is not valid XML: {exc}") from None
    nodes: list[Node] = []

    def visit(element: ElementTree.Element, parent: Node | None, position: int) -> None:
        attrs = element.attrib
        node = Node(element.tag, attrs, *_rect(attrs), parent=parent, position=position)
        nodes.append(node)
        if parent is not None:
            parent.children.append(node)
        counts: dict[str, int] = {}
        for child in element:
            counts[child.tag] = counts.get(child.tag, 0) + 1
            visit(child, node, counts[child.tag])

    visit(root, None, 0)
    _LAST_PARSE[:] = [(xml, nodes)]
    return nodes


#: The last page source parsed and its nodes (one entry at most).
_LAST_PARSE: list[tuple[str, list[Node]]] = []


def _rect(attrs: Mapping[str, str]) -> tuple[int, int, int, int]:
    bounds = _BOUNDS.match(attrs.get("bounds", ""))
    if bounds:
        x1, y1, x2, y2 = (int(v) for v in bounds.groups())
        return x1, y1, x2 - x1, y2 - y1

    def number(*names: str) -> int:
        for name in names:
            try:
                return int(float(attrs[name]))
            except (KeyError, ValueError):
                continue
        return 0

    return number("x", "left"), number("y", "top"), number("width"), number("height")


# -- text patterns (upstream's matching rules) ------------------------------------------------------
def matches_pattern(pattern: str | None, text: str | None, *, maestro: bool = False) -> bool:
    """Whether ``pattern`` selects ``text``; a None pattern selects anything, None text nothing."""
    if pattern is None:
        return True
    if text is None:
        return False
    try:
        regex = _compile(pattern, maestro)
    except re.error:
        if maestro:  # Maestro's toRegexSafe: an invalid regex is an escaped, case-insensitive literal
            return re.fullmatch(re.escape(pattern), text, re.IGNORECASE | re.DOTALL) is not None
        return pattern == text
    return regex.fullmatch(text) is not None or pattern == text


@functools.lru_cache(maxsize=1024)
def _compile(pattern: str, maestro: bool) -> re.Pattern[str]:
    flags = re.IGNORECASE | re.DOTALL | re.MULTILINE if maestro else 0
    leading = _LEADING_FLAGS.match(pattern)
    body = pattern
    if leading and (leading.group(1) or leading.group(2) is not None):
        for letter in leading.group(1):
            flags |= _FLAG_BITS.get(letter, 0)  # flags Python has no use for here are dropped
        for letter in leading.group(2) or "":
            flags &= ~_FLAG_BITS.get(letter, 0)
        body = pattern[leading.end() :]
    return re.compile(java_quotes(body), flags)


def java_quotes(pattern: str) -> str:
    """Java's ``\\Q...\\E`` quoting as Python escapes; an escaped backslash is never a quote start."""
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("\\Q", i):
            end = pattern.find("\\E", i + 2)
            end = len(pattern) if end < 0 else end
            out.append(re.escape(pattern[i + 2 : end]))
            i = end + 2
        elif pattern[i] == "\\" and i + 1 < len(pattern):
            out.append(pattern[i : i + 2])
            i += 2
        else:
            out.append(pattern[i])
            i += 1
    return "".join(out)


# -- driver matchers ---------------------------------------------------------------------------------
def _text(attrs: tuple[str, ...], *, maestro: bool = False) -> Callable[[Node, Any], bool]:
    return lambda node, pattern: matches_pattern(pattern, node.get(*attrs), maestro=maestro)


def _either(*attrs: str, maestro: bool = False) -> Callable[[Node, Any], bool]:
    """Matches when any of the attributes matches (iOS text lives in label or value)."""
    return lambda node, pattern: any(
        matches_pattern(pattern, node.get(a), maestro=maestro) for a in attrs if node.get(a) is not None
    )


def _bool(*attrs: str) -> Callable[[Node, Any], bool]:
    return lambda node, wanted: node.flag(*attrs) == wanted


def _class(*, maestro: bool = False) -> Callable[[Node, Any], bool]:
    return lambda node, pattern: matches_pattern(pattern, node.kind, maestro=maestro)


#: Fields one types into: EditText on Android, (secure) text fields and text views on iOS.
TEXT_FIELD_KINDS = ("EditText", "TextField", "XCUIElementTypeTextView")


def is_text_field(node: Node) -> bool:
    return any(word in node.kind for word in TEXT_FIELD_KINDS)


def _editable(node: Node, wanted: object) -> bool:
    return is_text_field(node) == wanted


ANDROID_ACCESSIBILITY: dict[str, Callable[[Node, Any], bool]] = {
    "classNameRegex": _class(),
    "resourceIdRegex": _text(("resource-id",)),
    "uniqueId": _text(("unique-id", "resource-id")),
    "composeTestTagRegex": _text(("resource-id",)),
    "textRegex": _text(("text",)),
    "contentDescriptionRegex": _text(("content-desc",)),
    "hintTextRegex": _text(("hint",)),
    "labeledByTextRegex": _text(("labeled-by",)),
    "stateDescriptionRegex": _text(("state-description",)),
    "paneTitleRegex": _text(("pane-title",)),
    "roleDescriptionRegex": _text(("role-description",)),
    "isEnabled": _bool("enabled"),
    "isClickable": _bool("clickable"),
    "isCheckable": _bool("checkable"),
    "isChecked": _bool("checked"),
    "isSelected": _bool("selected"),
    "isFocused": _bool("focused"),
    "isEditable": _editable,
    "isScrollable": _bool("scrollable"),
    "isPassword": _bool("password"),
    "isHeading": _bool("heading"),
    "isMultiLine": _bool("multiline", "multi-line"),
    "inputType": lambda node, wanted: node.get("input-type") == str(wanted),
    "collectionItemRowIndex": lambda node, wanted: node.get("collection-item-row-index") == str(wanted),
    "collectionItemColumnIndex": lambda node, wanted: node.get("collection-item-column-index") == str(wanted),
}
ANDROID_MAESTRO: dict[str, Callable[[Node, Any], bool]] = {
    "textRegex": _text(("text",), maestro=True),
    "resourceIdRegex": _text(("resource-id",), maestro=True),
    "accessibilityTextRegex": _text(("content-desc",), maestro=True),
    "classNameRegex": _class(maestro=True),
    "hintTextRegex": _text(("hint",), maestro=True),
    "clickable": _bool("clickable"),
    "enabled": _bool("enabled"),
    "focused": _bool("focused"),
    "checked": _bool("checked"),
    "selected": _bool("selected"),
}
IOS_MAESTRO: dict[str, Callable[[Node, Any], bool]] = {
    "textRegex": _either("label", "value", "name", maestro=True),
    "resourceIdRegex": _text(("name",), maestro=True),
    "accessibilityTextRegex": _text(("label",), maestro=True),
    "classNameRegex": _class(maestro=True),
    "hintTextRegex": _text(("placeholderValue",), maestro=True),
    "focused": _bool("focused", "hasFocus"),
    "selected": _bool("selected"),
}
IOS_AXE: dict[str, Callable[[Node, Any], bool]] = {
    "roleRegex": lambda node, p: matches_pattern(
        p, (node.get("type") or node.tag).removeprefix("XCUIElementType")
    ),
    "subroleRegex": _text(("subrole",)),
    "labelRegex": _text(("label",)),
    "valueRegex": _text(("value",)),
    "uniqueId": _text(("name",)),
    "typeRegex": _text(("type",)),
    "titleRegex": _text(("title",)),
    "customAction": _text(("customActions",)),
    "enabled": _bool("enabled"),
}
DIALECTS: dict[str, dict[str, Callable[[Node, Any], bool]]] = {
    "androidAccessibility": ANDROID_ACCESSIBILITY,
    "androidMaestro": ANDROID_MAESTRO,
    "iosMaestro": IOS_MAESTRO,
    "iosAxe": IOS_AXE,
}
UNSUPPORTED = ("web", "compose")


class SelectorError(ValueError):
    """A selector this resolver cannot evaluate (a web or compose matcher on a mobile tree)."""


# -- resolution --------------------------------------------------------------------------------------
def matches(node: Node, selector: Mapping[str, Any], nodes: list[Node]) -> bool:
    """Whether ``node`` satisfies ``selector`` (its matcher and every relation), index aside."""
    return _Resolution(nodes).matches(node, selector)


class _Resolution:
    """One selector resolved over one hierarchy.

    A relation's anchors (``below: {...}``) are the same for every candidate node, so they are
    found once per resolution instead of once per candidate; so is each selector's list of checks.
    """

    def __init__(self, nodes: list[Node]) -> None:
        self.nodes = nodes
        self._anchors: dict[int, list[Node]] = {}
        self._checks: dict[int, list[tuple[Any, Any, Any]]] = {}

    def matches(self, node: Node, selector: Mapping[str, Any]) -> bool:
        for matcher, key, value in self._checks_of(selector):
            if matcher is not None:
                if not matcher(node, value):
                    return False
            elif key in UNSUPPORTED:
                raise SelectorError(f"a `{key}` selector cannot be resolved on a mobile view hierarchy")
            elif not self._relation(key, value, node):
                return False
        return True

    def _checks_of(self, selector: Mapping[str, Any]) -> list[tuple[Any, Any, Any]]:
        """The selector's tests in its order: (matcher, field, wanted), or (None, key, value) for the rest."""
        checks = self._checks.get(id(selector))
        if checks is None:
            checks = []
            for key, value in selector.items():
                if value is None or key == "index":
                    continue
                if key in DIALECTS:
                    found = DIALECTS[key]
                    checks += [(found[f], f, v) for f, v in value.items() if v is not None and f in found]
                else:
                    checks.append((None, key, value))
            self._checks[id(selector)] = checks
        return checks

    def _relation(self, key: str, value: Any, node: Node) -> bool:
        if key == "containsDescendants":
            return all(any(self.matches(d, sub) for d in node.descendants()) for sub in value)
        if key == "containsChild":
            return any(self.matches(child, value) for child in node.children)
        if key == "childOf":
            return any(self.matches(a, value) for a in node.ancestors())
        test = {
            "below": lambda a: node.y >= a.bottom,
            "above": lambda a: node.bottom <= a.y,
            "leftOf": lambda a: node.right <= a.x,
            "rightOf": lambda a: node.x >= a.right,
        }.get(key)
        if test is None:
            raise SelectorError(f"unknown selector key `{key}`")
        return any(a is not node and test(a) for a in self._anchors_of(value))

    def _anchors_of(self, value: Mapping[str, Any]) -> list[Node]:
        found = self._anchors.get(id(value))
        if found is None:
            found = self._anchors[id(value)] = [n for n in self.nodes if self.matches(n, value)]
        return found


def reading_order(node: Node) -> tuple[int, int]:
    """Top to bottom, then left to right."""
    return node.y, node.x


def find_all(nodes: list[Node], selector: Mapping[str, Any]) -> list[Node]:
    """Every node the selector matches, in reading order; ``index`` keeps only that one."""
    resolution = _Resolution(nodes)
    found = sorted((n for n in nodes if resolution.matches(n, selector)), key=reading_order)
    index = selector.get("index")
    if index is not None:
        return [found[index]] if 0 <= index < len(found) else []
    return found


def describe(selector: Mapping[str, Any]) -> str:
    """A compact rendering of a selector for messages."""
    parts = []
    for key, value in selector.items():
        if isinstance(value, Mapping):
            inner = ", ".join(f"{k}={v!r}" for k, v in value.items() if v is not None)
            parts.append(f"{key}({inner})")
        elif isinstance(value, list):
            parts.append(f"{key}[{', '.join(describe(v) for v in value)}]")
        elif value is not None:
            parts.append(f"{key}={value!r}")
    return " ".join(parts) or "{}"
