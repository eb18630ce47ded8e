"""A device's view hierarchy read into nodes, and text patterns matched against their attributes.

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
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
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


#: Fields one types into: EditText on Android, (secure) text fields and text views on iOS.
TEXT_FIELD_KINDS = ("EditText", "TextField", "XCUIElementTypeTextView")


def is_text_field(node: Node) -> bool:
    return any(word in node.kind for word in TEXT_FIELD_KINDS)
