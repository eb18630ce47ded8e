"""Node selectors resolved in pure Python over a device's view hierarchy (docs/upstream.md, Node
selectors on mobile): each dialect's matchers, relations between nodes, and reading order.

The hierarchy and the text patterns the matchers use are read in ``hierarchy``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TypeAlias

from ..jsondata import JsonValue, SelectorSpec
from .hierarchy import Node, is_text_field, matches_pattern

# -- driver matchers ---------------------------------------------------------------------------------
#: Whether a node has what one matcher field of a selector asks (``textRegex: "Sign in"``).
Matcher: TypeAlias = Callable[[Node, JsonValue], bool]


def _pattern(value: JsonValue) -> str | None:
    """A matcher's text pattern (``NodeSelector`` makes every pattern field text)."""
    if value is None or isinstance(value, str):
        return value
    raise SelectorError(f"a text matcher takes a pattern, not {value!r}")


def _text(attrs: tuple[str, ...], *, maestro: bool = False) -> Matcher:
    return lambda node, pattern: matches_pattern(_pattern(pattern), node.get(*attrs), maestro=maestro)


def _either(*attrs: str, maestro: bool = False) -> Matcher:
    """Matches when any of the attributes matches (iOS text lives in label or value)."""
    return lambda node, pattern: any(
        matches_pattern(_pattern(pattern), node.get(a), maestro=maestro)
        for a in attrs
        if node.get(a) is not None
    )


def _bool(*attrs: str) -> Matcher:
    return lambda node, wanted: node.flag(*attrs) == wanted


def _class(*, maestro: bool = False) -> Matcher:
    return lambda node, pattern: matches_pattern(_pattern(pattern), node.kind, maestro=maestro)


def _editable(node: Node, wanted: object) -> bool:
    return is_text_field(node) == wanted


ANDROID_ACCESSIBILITY: dict[str, Matcher] = {
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
ANDROID_MAESTRO: dict[str, Matcher] = {
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
IOS_MAESTRO: dict[str, Matcher] = {
    "textRegex": _either("label", "value", "name", maestro=True),
    "resourceIdRegex": _text(("name",), maestro=True),
    "accessibilityTextRegex": _text(("label",), maestro=True),
    "classNameRegex": _class(maestro=True),
    "hintTextRegex": _text(("placeholderValue",), maestro=True),
    "focused": _bool("focused", "hasFocus"),
    "selected": _bool("selected"),
}
IOS_AXE: dict[str, Matcher] = {
    "roleRegex": lambda node, p: matches_pattern(
        _pattern(p), (node.get("type") or node.tag).removeprefix("XCUIElementType")
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
DIALECTS: dict[str, dict[str, Matcher]] = {
    "androidAccessibility": ANDROID_ACCESSIBILITY,
    "androidMaestro": ANDROID_MAESTRO,
    "iosMaestro": IOS_MAESTRO,
    "iosAxe": IOS_AXE,
}
UNSUPPORTED = ("web", "compose")


class SelectorError(ValueError):
    """A selector this resolver cannot evaluate (a web or compose matcher on a mobile tree)."""


def _selector(value: JsonValue, key: str) -> SelectorSpec:
    """A nested selector (a relation's, or a dialect's matchers); ``NodeSelector`` makes it a mapping."""
    if isinstance(value, Mapping):
        return value
    raise SelectorError(f"`{key}` takes a mapping, not {value!r}")


def _listed(value: JsonValue, key: str) -> list[JsonValue]:
    if isinstance(value, list):
        return value
    raise SelectorError(f"`{key}` takes a list of selectors, not {value!r}")


# -- resolution --------------------------------------------------------------------------------------
def matches(node: Node, selector: SelectorSpec, nodes: list[Node]) -> bool:
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
        self._checks: dict[int, list[tuple[Matcher | None, str, JsonValue]]] = {}

    def matches(self, node: Node, selector: SelectorSpec) -> bool:
        for matcher, key, value in self._checks_of(selector):
            if matcher is not None:
                if not matcher(node, value):
                    return False
            elif key in UNSUPPORTED:
                raise SelectorError(f"a `{key}` selector cannot be resolved on a mobile view hierarchy")
            elif not self._relation(key, value, node):
                return False
        return True

    def _checks_of(self, selector: SelectorSpec) -> list[tuple[Matcher | None, str, JsonValue]]:
        """The selector's tests in its order: (matcher, field, wanted), or (None, key, value) for the rest."""
        checks = self._checks.get(id(selector))
        if checks is None:
            checks = []
            for key, value in selector.items():
                if value is None or key == "index":
                    continue
                if key in DIALECTS:
                    found = DIALECTS[key]
                    fields = _selector(value, key).items()
                    checks += [(found[f], f, v) for f, v in fields if v is not None and f in found]
                else:
                    checks.append((None, key, value))
            self._checks[id(selector)] = checks
        return checks

    def _relation(self, key: str, value: JsonValue, node: Node) -> bool:
        if key == "containsDescendants":
            subs = [_selector(sub, key) for sub in _listed(value, key)]
            return all(any(self.matches(d, sub) for d in node.descendants()) for sub in subs)
        if key == "containsChild":
            return any(self.matches(child, _selector(value, key)) for child in node.children)
        if key == "childOf":
            return any(self.matches(a, _selector(value, key)) for a in node.ancestors())
        test = {
            "below": lambda a: node.y >= a.bottom,
            "above": lambda a: node.bottom <= a.y,
            "leftOf": lambda a: node.right <= a.x,
            "rightOf": lambda a: node.x >= a.right,
        }.get(key)
        if test is None:
            raise SelectorError(f"unknown selector key `{key}`")
        return any(a is not node and test(a) for a in self._anchors_of(_selector(value, key)))

    def _anchors_of(self, value: SelectorSpec) -> list[Node]:
        found = self._anchors.get(id(value))
        if found is None:
            found = self._anchors[id(value)] = [n for n in self.nodes if self.matches(n, value)]
        return found


def reading_order(node: Node) -> tuple[int, int]:
    """Top to bottom, then left to right."""
    return node.y, node.x


def find_all(nodes: list[Node], selector: SelectorSpec) -> list[Node]:
    """Every node the selector matches, in reading order; ``index`` keeps only that one."""
    resolution = _Resolution(nodes)
    found = sorted((n for n in nodes if resolution.matches(n, selector)), key=reading_order)
    index = selector.get("index")
    if index is not None:
        if not isinstance(index, int):
            raise SelectorError(f"a selector's index is a whole number, not {index!r}")
        return [found[index]] if 0 <= index < len(found) else []
    return found


def describe(selector: SelectorSpec) -> str:
    """A compact rendering of a selector for messages."""
    parts = []
    for key, value in selector.items():
        if isinstance(value, Mapping):
            inner = ", ".join(f"{k}={v!r}" for k, v in value.items() if v is not None)
            parts.append(f"{key}({inner})")
        elif isinstance(value, list):
            items = (describe(v) if isinstance(v, Mapping) else repr(v) for v in value)
            parts.append(f"{key}[{', '.join(items)}]")
        elif value is not None:
            parts.append(f"{key}={value!r}")
    return " ".join(parts) or "{}"
