"""Selector tools on a real Appium server (fake driver), asserted by what the app saw.

``tapOnElementBySelector`` / ``tapOn`` resolve the recorded selector over the page source and click
the element it found (its ``clicks`` goes up by one, nobody else's does) or press it with a W3C
touch gesture (the fake driver's actions log). Assertions must not touch the app at all.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import pytest

from pytest_trailblaze.core.errors import ToolArgumentError, ToolFailure

if TYPE_CHECKING:  # the fixtures' types; at run time the fixtures come from conftest.py
    from conftest import Device

ANDROID_SUBMIT_CENTER = (800, 620)  # bounds [560,560][1040,680]
IOS_SUBMIT_CENTER = (869, 665)  # x=619 y=600 width=500 height=130


def tap(device: Device, selector: dict[str, Any], **args: Any) -> dict[str, int]:
    """Tap by selector; the elements the app saw clicked (id -> clicks)."""
    with device.probe.watch() as effects:
        device.run("tapOnElementBySelector", nodeSelector=selector, **args)
    assert effects.gestures == [], "a plain tap is an element click, not a gesture"
    return effects.clicked


# -- tapOnElementBySelector: each dialect ---------------------------------------------------------------
@pytest.mark.parametrize(
    ("selector", "expected"),
    [
        ({"androidAccessibility": {"resourceIdRegex": ".*:id/submit"}}, "submit"),
        ({"androidAccessibility": {"textRegex": "Submit", "isClickable": True}}, "submit"),
        ({"androidAccessibility": {"contentDescriptionRegex": "Cancel sign in"}}, "cancel"),
        ({"androidAccessibility": {"hintTextRegex": "Password"}}, "password"),
        ({"androidAccessibility": {"isPassword": True}}, "password"),
        ({"androidAccessibility": {"textRegex": "Sign in", "isHeading": True}}, "title"),
        ({"androidAccessibility": {"classNameRegex": r"android\.widget\.EditText"}}, "username"),
        ({"androidAccessibility": {"uniqueId": "com.test:id/terms"}}, "terms"),
        ({"androidMaestro": {"textRegex": "SUBMIT"}}, "submit"),
        ({"androidMaestro": {"accessibilityTextRegex": "submit FORM"}}, "submit"),
        ({"androidMaestro": {"resourceIdRegex": ".*:id/CANCEL"}}, "cancel"),
        ({"androidMaestro": {"hintTextRegex": "username"}}, "username"),
        ({"androidMaestro": {"textRegex": "item.*", "enabled": False}}, "item-b"),
    ],
)
def test_tap_by_android_selector(android: Device, selector: dict[str, Any], expected: str) -> None:
    assert tap(android, selector) == {expected: 1}


@pytest.mark.parametrize(
    ("selector", "expected"),
    [
        ({"iosMaestro": {"textRegex": "submit"}}, "submit"),
        ({"iosMaestro": {"resourceIdRegex": "SUBMITBUTTON"}}, "submit"),
        ({"iosMaestro": {"accessibilityTextRegex": "cancel"}}, "cancel"),
        ({"iosMaestro": {"classNameRegex": "XCUIElementTypeSecureTextField"}}, "password"),
        ({"iosMaestro": {"hintTextRegex": "user.*"}}, "username"),
        ({"iosMaestro": {"textRegex": "Item.*", "selected": True}}, "item-b"),
        ({"iosAxe": {"labelRegex": "Cancel"}}, "cancel"),
        ({"iosAxe": {"roleRegex": "Link"}}, "terms"),
        ({"iosAxe": {"uniqueId": "submitButton", "enabled": True}}, "submit"),
    ],
)
def test_tap_by_ios_selector(ios: Device, selector: dict[str, Any], expected: str) -> None:
    assert tap(ios, selector) == {expected: 1}


def test_tap_reports_the_element(android: Device) -> None:
    result = android.run(
        "tapOnElementBySelector", nodeSelector={"androidAccessibility": {"resourceIdRegex": ".*:id/submit"}}
    )
    assert result.message == "Tapped Button 'Submit'"


def test_native_dialect_is_case_sensitive_on_the_device(android: Device, short_waits: None) -> None:
    with android.probe.watch() as effects, pytest.raises(ToolFailure, match="no visible element matches"):
        android.run("tapOnElementBySelector", nodeSelector={"androidAccessibility": {"textRegex": "submit"}})
    assert effects.clicked == {}


# -- relations and index ---------------------------------------------------------------------------------
ANDROID_RELATIONS = [
    (
        {
            "androidAccessibility": {"classNameRegex": ".*EditText"},
            "below": {"androidAccessibility": {"resourceIdRegex": ".*:id/username"}},
        },
        "password",
    ),
    (
        {
            "androidAccessibility": {"classNameRegex": ".*EditText"},
            "above": {"androidAccessibility": {"resourceIdRegex": ".*:id/password"}},
        },
        "username",
    ),
    (
        {
            "androidAccessibility": {"classNameRegex": ".*Button"},
            "leftOf": {"androidAccessibility": {"textRegex": "Submit"}},
        },
        "cancel",
    ),
    (
        {
            "androidAccessibility": {"classNameRegex": ".*Button"},
            "rightOf": {"androidAccessibility": {"textRegex": "Cancel"}},
        },
        "submit",
    ),
    (  # childOf: any ancestor; the second card's Buy is its direct child, the first card's a grandchild
        {
            "androidAccessibility": {"textRegex": "Buy"},
            "childOf": {
                "androidAccessibility": {"resourceIdRegex": ".*:id/card"},
                "containsDescendants": [{"androidAccessibility": {"textRegex": "Premium plan"}}],
            },
        },
        "premium-buy",
    ),
    (  # containsChild: direct children only, so only the Basic card holds a Buy child
        {
            "androidAccessibility": {"resourceIdRegex": ".*:id/card"},
            "containsChild": {"androidAccessibility": {"textRegex": "Buy"}},
        },
        "card-basic",
    ),
    (  # containsDescendants: every listed selector must match some descendant
        {
            "androidAccessibility": {"resourceIdRegex": ".*:id/card"},
            "containsDescendants": [
                {"androidAccessibility": {"textRegex": "Buy"}},
                {"androidAccessibility": {"textRegex": "Basic plan"}},
            ],
        },
        "card-basic",
    ),
    ({"androidAccessibility": {"resourceIdRegex": ".*:id/item"}, "index": 0}, "item-a"),
    ({"androidAccessibility": {"resourceIdRegex": ".*:id/item"}, "index": 1}, "item-b"),
    ({"androidAccessibility": {"resourceIdRegex": ".*:id/item"}, "index": 2}, "item-c"),
    ({"androidMaestro": {"textRegex": "buy"}, "index": 1}, "basic-buy"),
]


@pytest.mark.parametrize(("selector", "expected"), ANDROID_RELATIONS)
def test_tap_android_relations_and_index(android: Device, selector: dict[str, Any], expected: str) -> None:
    assert tap(android, selector) == {expected: 1}


IOS_RELATIONS = [
    (
        {
            "iosMaestro": {"classNameRegex": "XCUIElementType.*TextField"},
            "below": {"iosMaestro": {"resourceIdRegex": "usernameField"}},
        },
        "password",
    ),
    (
        {
            "iosMaestro": {"classNameRegex": "XCUIElementTypeButton"},
            "leftOf": {"iosMaestro": {"textRegex": "submit"}},
        },
        "cancel",
    ),
    (
        {
            "iosMaestro": {"classNameRegex": "XCUIElementTypeButton"},
            "rightOf": {"iosMaestro": {"textRegex": "cancel"}},
        },
        "submit",
    ),
    (
        {
            "iosMaestro": {"textRegex": "buy"},
            "childOf": {"iosMaestro": {"accessibilityTextRegex": "premium"}},
        },
        "premium-buy",
    ),
    (
        {
            "iosMaestro": {"resourceIdRegex": "card"},
            "containsChild": {"iosMaestro": {"textRegex": "buy"}},
        },
        "card-basic",
    ),
    ({"iosMaestro": {"classNameRegex": "XCUIElementTypeCell"}, "index": 0}, "item-a"),
    ({"iosMaestro": {"classNameRegex": "XCUIElementTypeCell"}, "index": 2}, "item-c"),
]


@pytest.mark.parametrize(("selector", "expected"), IOS_RELATIONS)
def test_tap_ios_relations_and_index(ios: Device, selector: dict[str, Any], expected: str) -> None:
    assert tap(ios, selector) == {expected: 1}


def test_without_index_the_first_in_reading_order_is_tapped(device: Device) -> None:
    dialect = "androidMaestro" if device.platform == "android" else "iosMaestro"
    # the document lists Item C first; reading order puts Item A first
    assert tap(device, {dialect: {"textRegex": "item [a-c]"}}) == {"item-a": 1}


def test_index_past_the_matches_finds_nothing(android: Device, short_waits: None) -> None:
    with android.probe.watch() as effects, pytest.raises(ToolFailure, match="index=3"):
        android.run(
            "tapOnElementBySelector",
            nodeSelector={"androidAccessibility": {"resourceIdRegex": ".*:id/item"}, "index": 3},
        )
    assert effects.clicked == {}


# -- failures --------------------------------------------------------------------------------------------
def test_invisible_element_is_not_tapped(device: Device, short_waits: None) -> None:
    dialect = "androidMaestro" if device.platform == "android" else "iosMaestro"
    started = time.monotonic()
    with device.probe.watch() as effects, pytest.raises(ToolFailure) as failure:
        device.run("tapOnElementBySelector", nodeSelector={dialect: {"textRegex": "Hidden banner"}})
    assert time.monotonic() - started >= 0.3  # it waited for the element
    assert "no visible element matches" in str(failure.value)
    assert "Hidden banner" in str(failure.value) and "waited 0.3 s" in str(failure.value)
    assert effects.clicked == {} and effects.gestures == []


@pytest.mark.parametrize("matcher", ["web", "compose"])
def test_web_and_compose_selectors_fail_clearly(android: Device, matcher: str) -> None:
    fields = {"web": {"ariaRole": "button"}, "compose": {"testTag": "submit"}}[matcher]
    started = time.monotonic()
    with android.probe.watch() as effects, pytest.raises(ToolFailure, match=f"`{matcher}` selector"):
        android.run("tapOnElementBySelector", nodeSelector={matcher: fields})
    assert time.monotonic() - started < 2  # a selector that cannot work does not wait
    assert effects.clicked == {}


def test_missing_node_selector(android: Device) -> None:
    with pytest.raises(ToolFailure, match="needs a `nodeSelector`"):
        android.run("tapOnElementBySelector")


def test_misspelt_selector_field_is_an_argument_error(android: Device) -> None:
    with android.probe.watch() as effects, pytest.raises(ToolArgumentError) as error:
        android.run("tapOnElementBySelector", nodeSelector={"androidAccessibility": {"textRegx": "Submit"}})
    assert "textRegx" in str(error.value) and "tapOnElementBySelector" in str(error.value)
    assert effects.clicked == {}


# -- long press ------------------------------------------------------------------------------------------
def test_long_press_is_a_w3c_touch_hold_at_the_center(device: Device) -> None:
    dialect = "androidMaestro" if device.platform == "android" else "iosMaestro"
    center = ANDROID_SUBMIT_CENTER if device.platform == "android" else IOS_SUBMIT_CENTER
    with device.probe.watch() as effects:
        result = device.run(
            "tapOnElementBySelector", nodeSelector={dialect: {"textRegex": "submit"}}, longPress=True
        )
    assert effects.clicked == {}  # a gesture, not an element click
    assert len(effects.gestures) == 1
    press = effects.gestures[0]
    assert press.pointer_type == "touch"
    assert press.is_press and press.start == center
    assert press.held_ms >= 500
    assert result.message.startswith("Long-pressed")


# -- tapOn -----------------------------------------------------------------------------------------------
def test_tap_on_clicks_the_element(device: Device) -> None:
    dialect = "androidMaestro" if device.platform == "android" else "iosMaestro"
    with device.probe.watch() as effects:
        device.run("tapOn", selector={dialect: {"textRegex": "cancel"}})
    assert effects.clicked == {"cancel": 1} and effects.gestures == []


@pytest.mark.parametrize(
    ("point", "android_xy", "ios_xy"),
    [
        ("25%, 50%", (680, 620), (744, 665)),
        ("0%,0%", (560, 560), (619, 600)),
        ("100%, 100%", (1040, 680), (1119, 730)),
        ("0.5, 0.25", (800, 590), (869, 632)),
    ],
)
def test_tap_on_relative_point(
    device: Device, point: str, android_xy: tuple[int, int], ios_xy: tuple[int, int]
) -> None:
    dialect = "androidMaestro" if device.platform == "android" else "iosMaestro"
    expected = android_xy if device.platform == "android" else ios_xy
    with device.probe.watch() as effects:
        device.run("tapOn", selector={dialect: {"textRegex": "submit"}}, relativePoint=point)
    assert effects.clicked == {}
    assert len(effects.gestures) == 1
    gesture = effects.gestures[0]
    assert gesture.is_press and gesture.start == expected
    assert gesture.held_ms < 500  # a tap, not a long press


def test_tap_on_relative_point_long_press(android: Device) -> None:
    with android.probe.watch() as effects:
        android.run(
            "tapOn",
            selector={"androidAccessibility": {"textRegex": "Submit"}},
            relativePoint="10%, 90%",
            longPress=True,
        )
    (gesture,) = effects.gestures
    assert gesture.is_press and gesture.start == (608, 668) and gesture.held_ms >= 500


@pytest.mark.parametrize("point", ["150%, 10%", "50%", "left, top"])
def test_tap_on_bad_relative_point(android: Device, point: str) -> None:
    with android.probe.watch() as effects, pytest.raises(ToolFailure, match="relative point"):
        android.run("tapOn", selector={"androidAccessibility": {"textRegex": "Submit"}}, relativePoint=point)
    assert effects.gestures == [] and effects.clicked == {}


# -- assertVisibleBySelector / assertNotVisibleBySelector -------------------------------------------------
def title_selector(device: Device) -> dict[str, Any]:
    if device.platform == "android":
        return {"androidAccessibility": {"resourceIdRegex": ".*:id/title"}}
    return {"iosMaestro": {"resourceIdRegex": "title"}}


def test_assert_visible_found(device: Device) -> None:
    with device.probe.watch() as effects:
        result = device.run("assertVisibleBySelector", nodeSelector=title_selector(device))
    assert "is visible" in result.message
    assert effects.clicked == {} and effects.gestures == []  # an assertion does not touch the app


@pytest.mark.parametrize(
    ("expected", "mode", "passes"),
    [
        ("Sign in", "EXACT", True),
        ("  Sign in ", "EXACT", True),  # trimmed
        ("Sign", "EXACT", False),
        ("sign in", "EXACT", False),
        ("Sign", "PREFIX", True),
        ("Sign in", "PREFIX", True),
        ("in", "PREFIX", False),
        (r"Sign\s+\w+", "REGEX", True),
        ("Sign", "REGEX", False),  # anchored
        ("sign in", "REGEX", False),  # native: case-sensitive
        ("(?i)sign in", "REGEX", True),
    ],
)
def test_assert_visible_expected_text(device: Device, expected: str, mode: str, passes: bool) -> None:
    args = {"nodeSelector": title_selector(device), "expectedText": expected, "textMatchMode": mode}
    if passes:
        device.run("assertVisibleBySelector", args)
        return
    with pytest.raises(ToolFailure) as failure:
        device.run("assertVisibleBySelector", args)
    message = str(failure.value)
    assert "'Sign in'" in message and repr(expected) in message and mode in message


def test_assert_visible_default_mode_is_exact(android: Device) -> None:
    with pytest.raises(ToolFailure, match=r"\(EXACT\)"):
        android.run("assertVisibleBySelector", nodeSelector=title_selector(android), expectedText="Sign")


def test_assert_visible_times_out_with_a_clear_message(device: Device) -> None:
    dialect = "androidAccessibility" if device.platform == "android" else "iosMaestro"
    started = time.monotonic()
    with pytest.raises(ToolFailure) as failure:
        device.run("assertVisibleBySelector", nodeSelector={dialect: {"textRegex": "Nope"}}, timeoutMs=500)
    elapsed = time.monotonic() - started
    assert 0.5 <= elapsed < 3
    message = str(failure.value)
    assert "no visible element matches" in message
    assert f"{dialect}(textRegex='Nope')" in message
    assert "waited 0.5 s" in message


def test_assert_visible_ignores_invisible_elements(android: Device) -> None:
    with pytest.raises(ToolFailure, match="no visible element matches"):
        android.run(
            "assertVisibleBySelector",
            nodeSelector={"androidAccessibility": {"resourceIdRegex": ".*:id/banner"}},
            timeoutMs=300,
        )


def test_assert_not_visible_passes_for_absent_and_invisible(device: Device) -> None:
    dialect = "androidMaestro" if device.platform == "android" else "iosMaestro"
    started = time.monotonic()
    for text in ("Nope", "Hidden banner"):
        result = device.run("assertNotVisibleBySelector", nodeSelector={dialect: {"textRegex": text}})
        assert "nothing matches" in result.message
    assert time.monotonic() - started < 2  # no waiting when it already holds


def test_assert_not_visible_fails_for_a_visible_element(device: Device) -> None:
    started = time.monotonic()
    with device.probe.watch() as effects, pytest.raises(ToolFailure) as failure:
        device.run("assertNotVisibleBySelector", nodeSelector=title_selector(device), timeoutMs=400)
    assert 0.4 <= time.monotonic() - started < 3
    assert "is still visible" in str(failure.value) and "Sign in" in str(failure.value)
    assert effects.clicked == {} and effects.gestures == []
