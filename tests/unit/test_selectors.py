"""Node selectors resolved in pure Python over Appium page sources (docs/upstream.md, Node selectors
on mobile).

Text patterns follow upstream's matching rules, which its corpus states as cases in
``matcher-parity-fixtures.json`` (test data, beside the corpus trails): every case runs
through the real dialect matchers (native: ``androidAccessibility`` / ``iosAxe``; Maestro:
``androidMaestro`` / ``iosMaestro``) on a one-node tree, and through ``matches_pattern`` directly.
The rest covers ``parse_hierarchy`` on UiAutomator2- and XCUITest-shaped XML, every field mapping of
the mobile dialects, relations, ``index`` in reading order, and visibility.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest
from corpus import corpus_root

from pytest_trailblaze.core.screen.hierarchy import Node, java_quotes, matches_pattern, parse_hierarchy
from pytest_trailblaze.core.screen.node_selectors import (
    ANDROID_ACCESSIBILITY,
    ANDROID_MAESTRO,
    IOS_AXE,
    IOS_MAESTRO,
    SelectorError,
    describe,
    find_all,
    reading_order,
)


def _parity_cases() -> list[Any]:
    root = corpus_root()
    path = None if root is None else root / "matcher-parity-fixtures.json"
    if path is None or not path.is_file():
        return [pytest.param(None, marks=pytest.mark.skip(reason="matcher-parity-fixtures.json is absent"))]
    cases = json.loads(path.read_text(encoding="utf-8"))["cases"]
    return [pytest.param(case, id=f"{i:02d}-{case['name'][:60]}") for i, case in enumerate(cases)]


PARITY = _parity_cases()


def one_node(tag: str = "node", **attrs: str) -> list[Node]:
    """A one-node tree, serialised and parsed back (so newlines and entities go through XML)."""
    xml = ElementTree.tostring(ElementTree.Element(tag, attrs), encoding="unicode")
    return parse_hierarchy(xml)


def selects(nodes: list[Node], selector: dict[str, Any]) -> bool:
    return bool(find_all(nodes, selector))


# -- the matcher-parity contract ----------------------------------------------------------------------
def test_parity_fixtures_are_there(corpus_dir: Path) -> None:
    cases = json.loads((corpus_dir / "matcher-parity-fixtures.json").read_text(encoding="utf-8"))["cases"]
    assert len(cases) >= 45
    assert all({"pattern", "text", "nativeMatches", "maestroMatches"} <= set(c) for c in cases)


@pytest.mark.parametrize("case", PARITY)
def test_parity_native_android_accessibility(case: dict[str, Any]) -> None:
    nodes = one_node(text=case["text"])
    assert selects(nodes, {"androidAccessibility": {"textRegex": case["pattern"]}}) is case["nativeMatches"]


@pytest.mark.parametrize("case", PARITY)
def test_parity_maestro_android_maestro(case: dict[str, Any]) -> None:
    nodes = one_node(text=case["text"])
    assert selects(nodes, {"androidMaestro": {"textRegex": case["pattern"]}}) is case["maestroMatches"]


@pytest.mark.parametrize("case", PARITY)
def test_parity_native_ios_axe(case: dict[str, Any]) -> None:
    nodes = one_node("XCUIElementTypeStaticText", type="XCUIElementTypeStaticText", label=case["text"])
    assert selects(nodes, {"iosAxe": {"labelRegex": case["pattern"]}}) is case["nativeMatches"]


@pytest.mark.parametrize("case", PARITY)
def test_parity_maestro_ios_maestro(case: dict[str, Any]) -> None:
    nodes = one_node("XCUIElementTypeStaticText", type="XCUIElementTypeStaticText", label=case["text"])
    assert (
        selects(nodes, {"iosMaestro": {"accessibilityTextRegex": case["pattern"]}}) is case["maestroMatches"]
    )


@pytest.mark.parametrize("case", PARITY)
def test_parity_matches_pattern_directly(case: dict[str, Any]) -> None:
    assert matches_pattern(case["pattern"], case["text"]) is case["nativeMatches"]
    assert matches_pattern(case["pattern"], case["text"], maestro=True) is case["maestroMatches"]


# -- \Q...\E quoting and the contract's corners ---------------------------------------------------------
@pytest.mark.parametrize(
    ("pattern", "text", "expected"),
    [
        (r"\Q$3.00\E", "$3.00", True),
        (r"\Q$3.00\E", "$3,00", False),
        (r"\Qa.b\E", "axb", False),  # the dot is quoted: no wildcard
        (r"\Qa.b\E", "a.b", True),
        (r"Total: \Q(+$1.00)\E \d+", "Total: (+$1.00) 12", True),
        (r"\Q[x]\E|\Q(y)\E", "(y)", True),  # two quoted runs around an alternation
        (r"\Q[x]\E|\Q(y)\E", "[x]", True),
        (r"\Q*\E+", "***", True),  # a quantifier after a quoted run applies to the run
        (r"\Qunterminated.*", "unterminated.*", True),  # \Q without \E quotes to the end
        (r"\Qunterminated.*", "unterminatedXYZ", False),
        (r"\\Qa", "\\Qa", True),  # an escaped backslash does not start a quote
        (r"\\Qa", "Qa", False),
    ],
)
def test_java_quotes_in_both_dialects(pattern: str, text: str, expected: bool) -> None:
    assert matches_pattern(pattern, text) is expected
    assert matches_pattern(pattern, text, maestro=True) is expected


def test_java_quotes_translation() -> None:
    assert java_quotes(r"\Q$1.00\E") == r"\$1\.00"
    assert java_quotes(r"a\Q.\Eb\d") == r"a\.b\d"
    assert java_quotes(r"\\Q") == r"\\Q"
    assert java_quotes("plain") == "plain"


def test_none_pattern_selects_anything_and_none_text_nothing() -> None:
    assert matches_pattern(None, None)
    assert matches_pattern(None, "x")
    assert not matches_pattern("x", None)
    assert not matches_pattern(".*", None)
    assert not matches_pattern(".*", None, maestro=True)


def test_invalid_regex_native_is_a_literal_and_case_sensitive() -> None:
    assert matches_pattern("a(b", "a(b")
    assert not matches_pattern("a(b", "A(B")
    assert matches_pattern("a(b", "A(B", maestro=True)  # Maestro: escaped, case-insensitive literal
    assert not matches_pattern("a(b", "xa(b", maestro=True)


def test_maestro_is_multiline_and_dotall_by_default() -> None:
    assert matches_pattern("first.second", "first\nsecond", maestro=True)
    assert not matches_pattern("first.second", "first\nsecond")
    assert matches_pattern("(?-s)first.second", "first.second", maestro=True)
    assert not matches_pattern("(?-s)first.second", "first\nsecond", maestro=True)


# -- parse_hierarchy ------------------------------------------------------------------------------------
UIAUTOMATOR2 = """<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>
<hierarchy index="0" class="hierarchy" rotation="0" width="1080" height="2400">
  <android.widget.FrameLayout index="0" package="com.example" class="android.widget.FrameLayout" text=""
      checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false"
      long-clickable="false" password="false" scrollable="false" selected="false"
      bounds="[0,0][1080,2400]" displayed="true">
    <android.widget.TextView index="0" package="com.example" class="android.widget.TextView"
        text="Welcome" resource-id="com.example:id/title" content-desc="Welcome header" heading="true"
        enabled="true" clickable="false" bounds="[48,120][1032,220]" displayed="true"/>
    <android.widget.EditText index="1" package="com.example" class="android.widget.EditText" text=""
        hint="Email address" resource-id="com.example:id/email" clickable="true" focusable="true"
        focused="true" enabled="true" password="false" input-type="33" bounds="[48,300][1032,420]"
        displayed="true"/>
    <android.widget.EditText index="2" package="com.example" class="android.widget.EditText" text=""
        hint="Password" resource-id="com.example:id/password" password="true" enabled="true"
        bounds="[48,460][1032,580]" displayed="true"/>
    <android.widget.Button index="3" package="com.example" class="android.widget.Button" text="Log in"
        resource-id="com.example:id/login" clickable="true" enabled="false" bounds="[-10,640][1032,760]"
        displayed="true"/>
  </android.widget.FrameLayout>
</hierarchy>
"""

XCUITEST = """<?xml version="1.0" encoding="UTF-8"?>
<XCUIElementTypeApplication type="XCUIElementTypeApplication" name="Shop" label="Shop" enabled="true"
    visible="true" accessible="false" x="0" y="0" width="393" height="852" index="0">
  <XCUIElementTypeWindow type="XCUIElementTypeWindow" enabled="true" visible="true" x="0" y="0"
      width="393" height="852" index="0">
    <XCUIElementTypeStaticText type="XCUIElementTypeStaticText" value="Welcome" name="title"
        label="Welcome" enabled="true" visible="true" accessible="true" x="20" y="60" width="353"
        height="40" index="0"/>
    <XCUIElementTypeTextField type="XCUIElementTypeTextField" value="" name="emailField" label="Email"
        placeholderValue="you@example.com" enabled="true" visible="true" x="20" y="120" width="353"
        height="44" index="1"/>
    <XCUIElementTypeButton type="XCUIElementTypeButton" name="login" label="Log in" enabled="false"
        visible="true" x="20" y="180" width="353" height="44" index="2"/>
    <XCUIElementTypeButton type="XCUIElementTypeButton" name="help" label="Help" enabled="true"
        visible="false" x="20" y="240" width="353" height="44" index="3"/>
  </XCUIElementTypeWindow>
</XCUIElementTypeApplication>
"""


def test_parse_uiautomator2_document_order_and_tree() -> None:
    nodes = parse_hierarchy(UIAUTOMATOR2)
    assert [n.tag for n in nodes] == [
        "hierarchy",
        "android.widget.FrameLayout",
        "android.widget.TextView",
        "android.widget.EditText",
        "android.widget.EditText",
        "android.widget.Button",
    ]
    root, frame = nodes[0], nodes[1]
    assert root.parent is None and frame.parent is root
    assert frame.children == nodes[2:]
    assert all(n.parent is frame for n in nodes[2:])
    assert list(nodes[5].ancestors()) == [frame, root]
    assert list(root.descendants()) == nodes[1:]


def test_parse_uiautomator2_bounds_and_attributes() -> None:
    nodes = parse_hierarchy(UIAUTOMATOR2)
    title, email, password, login = nodes[2:]
    assert (title.x, title.y, title.width, title.height) == (48, 120, 984, 100)
    assert (title.right, title.bottom, title.center) == (1032, 220, (540, 170))
    assert (login.x, login.width) == (-10, 1042)  # negative coordinates parse
    assert title.get("class") == "android.widget.TextView"
    assert title.get("text") == "Welcome"
    assert title.get("content-desc") == "Welcome header"
    assert title.get("resource-id") == "com.example:id/title"
    assert email.get("hint") == "Email address"
    assert email.get("text") == ""
    assert email.get("missing", "hint") == "Email address"  # first present name wins
    assert email.get("missing") is None
    assert email.flag("focused") is True
    assert email.flag("password") is False
    assert password.flag("password") is True
    assert login.flag("enabled") is False
    assert login.flag("checked") is None  # absent: unknown, not False


def test_parse_uiautomator2_xpaths() -> None:
    nodes = parse_hierarchy(UIAUTOMATOR2)
    frame = "/hierarchy/android.widget.FrameLayout[1]"
    assert [n.xpath for n in nodes] == [
        "/hierarchy",
        frame,
        f"{frame}/android.widget.TextView[1]",
        f"{frame}/android.widget.EditText[1]",
        f"{frame}/android.widget.EditText[2]",  # counted among siblings of the same tag
        f"{frame}/android.widget.Button[1]",
    ]


def test_parse_xcuitest_rects_attributes_and_xpaths() -> None:
    nodes = parse_hierarchy(XCUITEST)
    app, window, title, field_, login, help_ = nodes
    assert (title.x, title.y, title.width, title.height) == (20, 60, 353, 40)
    assert title.get("type") == "XCUIElementTypeStaticText"
    assert title.get("name") == "title"
    assert title.get("label") == "Welcome"
    assert title.get("value") == "Welcome"
    assert field_.get("placeholderValue") == "you@example.com"
    assert login.flag("enabled") is False
    assert help_.flag("visible") is False
    assert window.parent is app and login.parent is window
    assert [n.xpath for n in nodes] == [
        "/XCUIElementTypeApplication",
        "/XCUIElementTypeApplication/XCUIElementTypeWindow[1]",
        "/XCUIElementTypeApplication/XCUIElementTypeWindow[1]/XCUIElementTypeStaticText[1]",
        "/XCUIElementTypeApplication/XCUIElementTypeWindow[1]/XCUIElementTypeTextField[1]",
        "/XCUIElementTypeApplication/XCUIElementTypeWindow[1]/XCUIElementTypeButton[1]",
        "/XCUIElementTypeApplication/XCUIElementTypeWindow[1]/XCUIElementTypeButton[2]",
    ]


def test_parse_fake_driver_rects_and_bounds_precedence() -> None:
    nodes = parse_hierarchy(
        '<app width="100" height="200"><a left="5" top="7" width="10.5" height="20"/>'
        '<b bounds="[1,2][3,4]" left="50" top="60" width="70" height="80"/></app>'
    )
    a, b = nodes[1], nodes[2]
    assert (a.x, a.y, a.width, a.height) == (5, 7, 10, 20)
    assert (b.x, b.y, b.width, b.height) == (1, 2, 2, 2)  # UiAutomator2 bounds win


def test_parse_invalid_xml_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="not valid XML"):
        parse_hierarchy("<hierarchy><unclosed></hierarchy>")


def test_node_label_names_kind_and_text() -> None:
    title = parse_hierarchy(UIAUTOMATOR2)[2]
    assert title.label() == "TextView 'Welcome'"
    assert parse_hierarchy(XCUITEST)[4].label() == "XCUIElementTypeButton 'Log in'"


# -- field mappings ---------------------------------------------------------------------------------------
#: (dialect, field, value, attributes of a matching node, attributes of a node that must not match)
FIELDS: list[tuple[str, str, Any, dict[str, str], dict[str, str]]] = [
    # androidAccessibility: native, case-sensitive
    (
        "androidAccessibility",
        "classNameRegex",
        r"android\.widget\.Edit.*",
        {"class": "android.widget.EditText"},
        {"class": "android.widget.TextView"},
    ),
    (
        "androidAccessibility",
        "resourceIdRegex",
        ".*:id/email",
        {"resource-id": "com.x:id/email"},
        {"resource-id": "com.x:id/EMAIL"},
    ),
    (
        "androidAccessibility",
        "uniqueId",
        "com.x:id/email",
        {"resource-id": "com.x:id/email"},
        {"resource-id": "com.x:id/name"},
    ),
    (
        "androidAccessibility",
        "composeTestTagRegex",
        "login_button",
        {"resource-id": "login_button"},
        {"resource-id": "other"},
    ),
    ("androidAccessibility", "textRegex", "Log in", {"text": "Log in"}, {"text": "log in"}),
    (
        "androidAccessibility",
        "contentDescriptionRegex",
        "Close.*",
        {"content-desc": "Close dialog"},
        {"content-desc": "Open dialog"},
    ),
    ("androidAccessibility", "hintTextRegex", "Email", {"hint": "Email"}, {"hint": "Password"}),
    ("androidAccessibility", "paneTitleRegex", "Settings", {"pane-title": "Settings"}, {"pane-title": "x"}),
    ("androidAccessibility", "isEnabled", True, {"enabled": "true"}, {"enabled": "false"}),
    ("androidAccessibility", "isEnabled", False, {"enabled": "false"}, {"enabled": "true"}),
    ("androidAccessibility", "isClickable", True, {"clickable": "true"}, {"clickable": "false"}),
    ("androidAccessibility", "isCheckable", True, {"checkable": "true"}, {"checkable": "false"}),
    ("androidAccessibility", "isChecked", True, {"checked": "true"}, {"checked": "false"}),
    ("androidAccessibility", "isSelected", True, {"selected": "true"}, {"selected": "false"}),
    ("androidAccessibility", "isFocused", True, {"focused": "true"}, {"focused": "false"}),
    ("androidAccessibility", "isScrollable", True, {"scrollable": "true"}, {"scrollable": "false"}),
    ("androidAccessibility", "isPassword", True, {"password": "true"}, {"password": "false"}),
    ("androidAccessibility", "isHeading", True, {"heading": "true"}, {"heading": "false"}),
    # UiAutomator2 names the attribute `multiline` (io.appium.uiautomator2.utils.Attribute.MULTI_LINE)
    ("androidAccessibility", "isMultiLine", True, {"multiline": "true"}, {"multiline": "false"}),
    (
        "androidAccessibility",
        "isEditable",
        True,
        {"class": "android.widget.EditText"},
        {"class": "android.widget.TextView"},
    ),
    (
        "androidAccessibility",
        "isEditable",
        False,
        {"class": "android.widget.Button"},
        {"class": "android.widget.EditText"},
    ),
    ("androidAccessibility", "inputType", 33, {"input-type": "33"}, {"input-type": "1"}),
    # androidMaestro: Maestro dialect, case-insensitive
    ("androidMaestro", "textRegex", "log in", {"text": "LOG IN"}, {"text": "log out"}),
    (
        "androidMaestro",
        "resourceIdRegex",
        ".*:ID/EMAIL",
        {"resource-id": "com.x:id/email"},
        {"resource-id": "com.x:id/name"},
    ),
    (
        "androidMaestro",
        "accessibilityTextRegex",
        "close dialog",
        {"content-desc": "Close Dialog"},
        {"content-desc": "Open"},
    ),
    (
        "androidMaestro",
        "classNameRegex",
        ".*edittext",
        {"class": "android.widget.EditText"},
        {"class": "android.widget.Button"},
    ),
    ("androidMaestro", "hintTextRegex", "email", {"hint": "Email"}, {"hint": "Password"}),
    ("androidMaestro", "clickable", True, {"clickable": "true"}, {"clickable": "false"}),
    ("androidMaestro", "enabled", False, {"enabled": "false"}, {"enabled": "true"}),
    ("androidMaestro", "focused", True, {"focused": "true"}, {"focused": "false"}),
    ("androidMaestro", "checked", True, {"checked": "true"}, {"checked": "false"}),
    ("androidMaestro", "selected", True, {"selected": "true"}, {"selected": "false"}),
    # iosMaestro: XCUITest attributes, Maestro dialect
    ("iosMaestro", "textRegex", "log in", {"label": "Log In"}, {"label": "Log out"}),
    ("iosMaestro", "textRegex", "42 items", {"value": "42 Items"}, {"value": "41 items"}),
    ("iosMaestro", "resourceIdRegex", "loginbutton", {"name": "loginButton"}, {"name": "helpButton"}),
    ("iosMaestro", "accessibilityTextRegex", "log in", {"label": "Log in"}, {"label": "Help"}),
    (
        "iosMaestro",
        "classNameRegex",
        "xcuielementtypebutton",
        {"type": "XCUIElementTypeButton"},
        {"type": "XCUIElementTypeCell"},
    ),
    (
        "iosMaestro",
        "hintTextRegex",
        "search.*",
        {"placeholderValue": "Search products"},
        {"placeholderValue": "Email"},
    ),
    ("iosMaestro", "focused", True, {"focused": "true"}, {"focused": "false"}),
    ("iosMaestro", "focused", True, {"hasFocus": "true"}, {"hasFocus": "false"}),
    ("iosMaestro", "selected", True, {"selected": "true"}, {"selected": "false"}),
    # iosAxe: native dialect over XCUITest attributes
    ("iosAxe", "roleRegex", "Button", {"type": "XCUIElementTypeButton"}, {"type": "XCUIElementTypeCell"}),
    (
        "iosAxe",
        "typeRegex",
        "XCUIElementTypeButton",
        {"type": "XCUIElementTypeButton"},
        {"type": "XCUIElementTypeCell"},
    ),
    ("iosAxe", "labelRegex", "Log in", {"label": "Log in"}, {"label": "log in"}),
    ("iosAxe", "valueRegex", r"\d+%", {"value": "40%"}, {"value": "forty"}),
    ("iosAxe", "uniqueId", "loginButton", {"name": "loginButton"}, {"name": "LOGINBUTTON"}),
    ("iosAxe", "titleRegex", "Inbox", {"title": "Inbox"}, {"title": "Outbox"}),
    ("iosAxe", "subroleRegex", "AXToggle", {"subrole": "AXToggle"}, {"subrole": "AXSwitch"}),
    ("iosAxe", "customAction", "Delete", {"customActions": "Delete"}, {"customActions": "Archive"}),
    ("iosAxe", "enabled", False, {"enabled": "false"}, {"enabled": "true"}),
]


def _field_id(row: tuple[Any, ...]) -> str:
    return f"{row[0]}.{row[1]}={row[2]!r}"


@pytest.mark.parametrize(("dialect", "field", "value", "good", "bad"), FIELDS, ids=map(_field_id, FIELDS))
def test_field_mapping(
    dialect: str, field: str, value: Any, good: dict[str, str], bad: dict[str, str]
) -> None:
    selector = {dialect: {field: value}}
    assert selects(one_node(**good), selector), f"{field}={value!r} should select {good}"
    assert not selects(one_node(**bad), selector), f"{field}={value!r} should not select {bad}"


def test_every_dialect_field_is_covered() -> None:
    covered = {(d, f) for d, f, *_ in FIELDS}
    for dialect, table in (
        ("androidMaestro", ANDROID_MAESTRO),
        ("iosMaestro", IOS_MAESTRO),
        ("iosAxe", IOS_AXE),
    ):
        assert {(dialect, f) for f in table} <= covered, dialect
    unmapped_in_uiautomator2 = {  # no UiAutomator2 page-source attribute carries these
        "labeledByTextRegex",
        "stateDescriptionRegex",
        "roleDescriptionRegex",
        "collectionItemRowIndex",
        "collectionItemColumnIndex",
    }
    missing = {f for f in ANDROID_ACCESSIBILITY if ("androidAccessibility", f) not in covered}
    assert missing == unmapped_in_uiautomator2


@pytest.mark.parametrize(
    ("dialect", "field", "value"),
    [
        ("androidAccessibility", "textRegex", ".*"),
        ("androidAccessibility", "contentDescriptionRegex", ".*"),
        ("androidAccessibility", "hintTextRegex", ".*"),
        ("androidAccessibility", "resourceIdRegex", ".*"),
        ("androidAccessibility", "isChecked", False),
        ("androidAccessibility", "isEnabled", True),
        ("androidAccessibility", "inputType", 1),
        ("androidMaestro", "textRegex", ".*"),
        ("androidMaestro", "accessibilityTextRegex", ".*"),
        ("androidMaestro", "checked", False),
        ("iosMaestro", "textRegex", ".*"),
        ("iosMaestro", "resourceIdRegex", ".*"),
        ("iosMaestro", "hintTextRegex", ".*"),
        ("iosAxe", "labelRegex", ".*"),
        ("iosAxe", "valueRegex", ".*"),
        ("iosAxe", "enabled", True),
    ],
)
def test_pattern_set_but_property_missing_is_no_match(dialect: str, field: str, value: Any) -> None:
    assert not selects(one_node("bare"), {dialect: {field: value}})


def test_null_pattern_is_no_constraint() -> None:
    nodes = one_node(text="Anything", **{"class": "android.widget.TextView"})
    assert selects(nodes, {"androidAccessibility": {"textRegex": None, "isEnabled": None}})
    assert selects(nodes, {"androidAccessibility": {}})
    assert selects(nodes, {"androidAccessibility": None})
    assert selects(nodes, {})
    assert selects(one_node("bare"), {"iosMaestro": {"textRegex": None}})


def test_all_fields_of_a_matcher_must_hold() -> None:
    nodes = one_node(text="Log in", enabled="false", **{"class": "android.widget.Button"})
    assert selects(nodes, {"androidAccessibility": {"textRegex": "Log in", "isEnabled": False}})
    assert not selects(nodes, {"androidAccessibility": {"textRegex": "Log in", "isEnabled": True}})
    assert not selects(nodes, {"androidAccessibility": {"textRegex": "Log out", "isEnabled": False}})


@pytest.mark.parametrize("attr", ["true", "TRUE", " True "])
def test_booleans_read_true_case_insensitively(attr: str) -> None:
    assert selects(one_node(checked=attr), {"androidAccessibility": {"isChecked": True}})


@pytest.mark.parametrize("attr", ["false", "1", "yes", ""])
def test_booleans_are_exact(attr: str) -> None:
    nodes = one_node(checked=attr)
    assert not selects(nodes, {"androidAccessibility": {"isChecked": True}})
    assert selects(nodes, {"androidAccessibility": {"isChecked": False}})


def test_class_name_falls_back_to_the_tag() -> None:
    nodes = one_node("android.widget.Switch")
    assert selects(nodes, {"androidAccessibility": {"classNameRegex": "android.widget.Switch"}})
    assert selects(nodes, {"androidMaestro": {"classNameRegex": ".*switch"}})


@pytest.mark.parametrize("matcher", ["web", "compose"])
def test_web_and_compose_matchers_are_rejected(matcher: str) -> None:
    nodes = one_node(text="x")
    with pytest.raises(SelectorError, match=matcher):
        find_all(nodes, {matcher: {"textRegex": "x"}})


def test_web_matcher_inside_a_relation_is_rejected() -> None:
    nodes = parse_hierarchy('<r><a text="x" bounds="[0,0][1,1]"/><b text="y" bounds="[0,5][1,6]"/></r>')
    with pytest.raises(SelectorError):
        find_all(
            nodes, {"androidAccessibility": {"textRegex": "y"}, "below": {"web": {"ariaRole": "button"}}}
        )


@pytest.mark.parametrize(
    ("selector", "says"),
    [
        ({"androidAccessibility": {"textRegex": 5}}, "a text matcher takes a pattern, not 5"),
        ({"androidAccessibility": "y"}, "`androidAccessibility` takes a mapping, not 'y'"),
        ({"androidAccessibility": {"textRegex": "y"}, "below": ["x"]}, "`below` takes a mapping, not ['x']"),
        (
            {"androidAccessibility": {"textRegex": "y"}, "containsDescendants": {"textRegex": "x"}},
            "`containsDescendants` takes a list of selectors",
        ),
        (
            {"androidAccessibility": {"textRegex": "y"}, "index": "0"},
            "a selector's index is a whole number, not '0'",
        ),
    ],
)
def test_a_selector_of_the_wrong_shape_is_rejected_by_name(selector: dict[str, Any], says: str) -> None:
    """Selectors that did not come through the tools' schema (a driver's caller, a hook) may hold
    anything: the resolver names what is wrong instead of failing inside."""
    nodes = parse_hierarchy('<r><a text="x" bounds="[0,0][1,1]"/><b text="y" bounds="[0,5][1,6]"/></r>')
    with pytest.raises(SelectorError) as raised:
        find_all(nodes, selector)
    assert says in str(raised.value)


def test_describe_renders_a_list_item_that_is_not_a_selector_as_written() -> None:
    assert describe({"containsDescendants": [{"androidAccessibility": {"textRegex": "a"}}, 3]}) == (
        "containsDescendants[androidAccessibility(textRegex='a'), 3]"
    )


def test_describe_renders_a_selector() -> None:
    text = describe(
        {
            "androidAccessibility": {"textRegex": "Submit", "isEnabled": True, "hintTextRegex": None},
            "below": {"androidAccessibility": {"resourceIdRegex": ".*:id/name"}},
            "index": 1,
        }
    )
    assert "textRegex='Submit'" in text and "isEnabled=True" in text and "hintTextRegex" not in text
    assert "below(" in text and "index=1" in text


# -- relations and index: a UiAutomator2-shaped screen ---------------------------------------------------
def _a(kind: str, bounds: tuple[int, int, int, int], close: bool = True, **attrs: str) -> str:
    """One UiAutomator2-shaped element: tag and ``class`` are the widget class, bounds as UiAutomator2."""
    x1, y1, x2, y2 = bounds
    extra = "".join(f' {k.replace("_", "-")}="{v}"' for k, v in attrs.items())
    tag = f"android.widget.{kind}"
    return f'<{tag} class="{tag}"{extra} bounds="[{x1},{y1}][{x2},{y2}]"{"/" if close else ""}>'


ANDROID_SCREEN = "".join(
    [
        '<hierarchy rotation="0" width="1000" height="2000">',
        _a("FrameLayout", (0, 0, 1000, 2000), close=False),
        _a("TextView", (0, 0, 1000, 100), text="Title"),
        _a("TextView", (0, 200, 400, 300), text="Name"),
        _a("EditText", (500, 200, 1000, 300), resource_id="app:id/name"),
        _a("TextView", (0, 400, 400, 500), text="Email"),
        _a("EditText", (500, 400, 1000, 500), resource_id="app:id/email"),
        _a("LinearLayout", (0, 600, 1000, 700), close=False, resource_id="app:id/row"),
        _a("Button", (700, 600, 1000, 700), text="Item", resource_id="app:id/c"),
        _a("Button", (0, 600, 300, 700), text="Item", resource_id="app:id/a"),
        _a("Button", (350, 600, 650, 700), text="Item", resource_id="app:id/b"),
        "</android.widget.LinearLayout>",
        _a("Button", (0, 550, 1000, 590), text="Item", resource_id="app:id/top"),
        _a("LinearLayout", (0, 800, 1000, 1000), close=False, resource_id="app:id/card"),
        _a("TextView", (0, 800, 1000, 850), text="Premium"),
        _a("FrameLayout", (0, 900, 1000, 1000), close=False, resource_id="app:id/footer"),
        _a("Button", (0, 900, 1000, 1000), text="Buy", resource_id="app:id/buy1"),
        "</android.widget.FrameLayout>",
        "</android.widget.LinearLayout>",
        _a("LinearLayout", (0, 1100, 1000, 1300), close=False, resource_id="app:id/card"),
        _a("TextView", (0, 1100, 1000, 1150), text="Basic"),
        _a("Button", (0, 1200, 1000, 1300), text="Buy", resource_id="app:id/buy2"),
        "</android.widget.LinearLayout>",
        _a("TextView", (0, 1400, 1000, 1500), text="Ghost", displayed="false"),
        _a("TextView", (0, 1600, 0, 1600), text="Flat"),
        "</android.widget.FrameLayout>",
        "</hierarchy>",
    ]
)


@pytest.fixture(scope="module")
def android_screen() -> list[Node]:
    return parse_hierarchy(ANDROID_SCREEN)


def ids(nodes: list[Node]) -> list[str | None]:
    return [n.get("resource-id", "name") for n in nodes]


def aa(**fields: Any) -> dict[str, Any]:
    return {"androidAccessibility": fields}


def test_below(android_screen: list[Node]) -> None:
    found = find_all(
        android_screen, {**aa(classNameRegex=".*EditText"), "below": aa(resourceIdRegex=".*/name")}
    )
    assert ids(found) == ["app:id/email"]
    texts = find_all(android_screen, {**aa(textRegex="Name|Email"), "below": aa(textRegex="Title")})
    assert [n.get("text") for n in texts] == ["Name", "Email"]


def test_above(android_screen: list[Node]) -> None:
    found = find_all(android_screen, {**aa(classNameRegex=".*EditText"), "above": aa(textRegex="Email")})
    assert ids(found) == ["app:id/name"]
    assert find_all(android_screen, {**aa(textRegex="Title"), "above": aa(textRegex="Title")}) == []


def test_left_of_and_right_of(android_screen: list[Node]) -> None:
    left = find_all(android_screen, {**aa(textRegex="Item"), "leftOf": aa(resourceIdRegex=".*/b")})
    assert ids(left) == ["app:id/a"]
    right = find_all(android_screen, {**aa(textRegex="Item"), "rightOf": aa(resourceIdRegex=".*/b")})
    assert ids(right) == ["app:id/c"]
    labels = find_all(
        android_screen, {**aa(textRegex="Name|Email"), "leftOf": aa(resourceIdRegex=".*/email")}
    )
    assert [n.get("text") for n in labels] == ["Name", "Email"]  # spatial only: any row


def test_child_of_matches_any_ancestor(android_screen: list[Node]) -> None:
    buys = find_all(android_screen, {**aa(textRegex="Buy"), "childOf": aa(resourceIdRegex=".*/card")})
    assert ids(buys) == ["app:id/buy1", "app:id/buy2"]  # buy1 is a grandchild of its card
    direct = find_all(android_screen, {**aa(textRegex="Buy"), "childOf": aa(resourceIdRegex=".*/footer")})
    assert ids(direct) == ["app:id/buy1"]


def test_contains_child_is_direct_children_only(android_screen: list[Node]) -> None:
    cards = find_all(android_screen, {**aa(resourceIdRegex=".*/card"), "containsChild": aa(textRegex="Buy")})
    assert len(cards) == 1 and cards[0].y == 1100  # the first card holds Buy one level deeper
    footers = find_all(
        android_screen, {**aa(resourceIdRegex=".*/footer"), "containsChild": aa(textRegex="Buy")}
    )
    assert ids(footers) == ["app:id/footer"]


def test_contains_descendants_all_must_match(android_screen: list[Node]) -> None:
    both = find_all(
        android_screen,
        {
            **aa(resourceIdRegex=".*/card"),
            "containsDescendants": [aa(textRegex="Buy"), aa(textRegex="Premium")],
        },
    )
    assert [n.y for n in both] == [800]
    none = find_all(
        android_screen,
        {
            **aa(resourceIdRegex=".*/card"),
            "containsDescendants": [aa(textRegex="Premium"), aa(textRegex="Basic")],
        },
    )
    assert none == []
    any_buy = find_all(
        android_screen, {**aa(resourceIdRegex=".*/card"), "containsDescendants": [aa(textRegex="Buy")]}
    )
    assert [n.y for n in any_buy] == [800, 1100]


def test_relations_combine_with_nested_relations(android_screen: list[Node]) -> None:
    selector = {
        **aa(textRegex="Buy"),
        "childOf": {**aa(resourceIdRegex=".*/card"), "containsChild": aa(textRegex="Basic")},
    }
    assert ids(find_all(android_screen, selector)) == ["app:id/buy2"]


def test_reading_order_then_index(android_screen: list[Node]) -> None:
    items = find_all(android_screen, aa(textRegex="Item"))
    # top (y=550) first, then the row left to right although the document lists c, a, b
    assert ids(items) == ["app:id/top", "app:id/a", "app:id/b", "app:id/c"]
    assert [reading_order(n) for n in items] == [(550, 0), (600, 0), (600, 350), (600, 700)]
    for i, expected in enumerate(["app:id/top", "app:id/a", "app:id/b", "app:id/c"]):
        assert ids(find_all(android_screen, {**aa(textRegex="Item"), "index": i})) == [expected]
    assert find_all(android_screen, {**aa(textRegex="Item"), "index": 4}) == []
    assert find_all(android_screen, {**aa(textRegex="Item"), "index": -1}) == []


def test_index_applies_after_relations(android_screen: list[Node]) -> None:
    selector = {**aa(textRegex="Item"), "childOf": aa(resourceIdRegex=".*/row"), "index": 0}
    assert ids(find_all(android_screen, selector)) == ["app:id/a"]


def test_invisible_nodes_are_found_but_not_visible(android_screen: list[Node]) -> None:
    ghost = find_all(android_screen, aa(textRegex="Ghost"))
    flat = find_all(android_screen, aa(textRegex="Flat"))
    assert len(ghost) == 1 and not ghost[0].visible  # displayed="false"
    assert len(flat) == 1 and not flat[0].visible  # zero area
    assert find_all(android_screen, aa(textRegex="Title"))[0].visible
    assert parse_hierarchy('<r><n text="no bounds"/></r>')[1].visible  # nothing says otherwise


# -- relations and index: an XCUITest-shaped screen ------------------------------------------------------
def _x(kind: str, rect: tuple[int, int, int, int], close: bool = True, **attrs: str) -> str:
    """One XCUITest-shaped element: tag and ``type`` are the element type, with x/y/width/height."""
    x, y, w, h = rect
    extra = "".join(f' {k}="{v}"' for k, v in attrs.items())
    tag = f"XCUIElementType{kind}"
    end = "/" if close else ""
    return f'<{tag} type="{tag}"{extra} x="{x}" y="{y}" width="{w}" height="{h}"{end}>'


IOS_SCREEN = "".join(
    [
        _x("Application", (0, 0, 400, 800), close=False, name="App"),
        _x("StaticText", (0, 0, 400, 40), name="title", label="Title"),
        _x("TextField", (0, 60, 400, 40), name="nameField", label="Name"),
        _x("TextField", (0, 120, 400, 40), name="emailField", label="Email"),
        _x("Other", (0, 200, 400, 50), close=False, name="row"),
        _x("Button", (300, 200, 100, 50), name="right", label="Go"),
        _x("Button", (0, 200, 100, 50), name="left", label="Go"),
        _x("Button", (150, 200, 100, 50), name="middle", label="Go"),
        "</XCUIElementTypeOther>",
        _x("Cell", (0, 300, 400, 100), close=False, name="cell"),
        _x("Other", (0, 300, 400, 100), close=False, name="cellBody"),
        _x("StaticText", (0, 300, 400, 50), name="cellText", label="Deep"),
        "</XCUIElementTypeOther>",
        "</XCUIElementTypeCell>",
        _x("Button", (150, 500, 100, 50), name="hidden", label="Go", visible="false"),
        "</XCUIElementTypeApplication>",
    ]
)


@pytest.fixture(scope="module")
def ios_screen() -> list[Node]:
    return parse_hierarchy(IOS_SCREEN)


def im(**fields: Any) -> dict[str, Any]:
    return {"iosMaestro": fields}


def names(nodes: list[Node]) -> list[str | None]:
    return [n.get("name") for n in nodes]


def test_ios_spatial_relations(ios_screen: list[Node]) -> None:
    fields = im(classNameRegex="XCUIElementTypeTextField")
    assert names(find_all(ios_screen, {**fields, "below": im(textRegex="name")})) == ["emailField"]
    assert names(find_all(ios_screen, {**fields, "above": im(resourceIdRegex="emailfield")})) == ["nameField"]
    go = im(textRegex="go")
    assert names(find_all(ios_screen, {**go, "leftOf": im(resourceIdRegex="middle")})) == ["left"]
    assert names(find_all(ios_screen, {**go, "rightOf": im(resourceIdRegex="middle")})) == ["right"]


def test_ios_structure_relations(ios_screen: list[Node]) -> None:
    assert names(find_all(ios_screen, {**im(textRegex="deep"), "childOf": im(resourceIdRegex="cell")})) == [
        "cellText"
    ]
    assert names(
        find_all(ios_screen, {**im(resourceIdRegex="cell.*"), "containsChild": im(textRegex="deep")})
    ) == ["cellBody"]
    assert names(
        find_all(ios_screen, {**im(resourceIdRegex="cell"), "containsDescendants": [im(textRegex="deep")]})
    ) == ["cell"]


def test_ios_reading_order_and_index(ios_screen: list[Node]) -> None:
    go = im(textRegex="go")
    assert names(find_all(ios_screen, go)) == ["left", "middle", "right", "hidden"]
    assert names(find_all(ios_screen, {**go, "index": 1})) == ["middle"]
    hidden = find_all(ios_screen, {**go, "index": 3})
    assert names(hidden) == ["hidden"] and not hidden[0].visible


def test_ios_axe_over_xcuitest(ios_screen: list[Node]) -> None:
    found = find_all(ios_screen, {"iosAxe": {"roleRegex": "TextField", "labelRegex": "Email"}})
    assert names(found) == ["emailField"]
    assert find_all(ios_screen, {"iosAxe": {"labelRegex": "email"}}) == []  # native: case-sensitive
