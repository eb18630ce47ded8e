"""Text tools on a real Appium server (fake driver): typing, erasing, and the older text selectors.

Typing goes into the field tapped last; the fake driver keeps typed text in the ``value`` runtime
attribute of ``MockInputField`` elements, which the tests read with plain client calls.
``tapOnElementWithText`` & co. find elements by a case-insensitive substring of their text.
"""

from __future__ import annotations

import re
import time
from typing import TYPE_CHECKING, Any

import pytest

from pytest_trailblaze.core.errors import ToolFailure

if TYPE_CHECKING:  # the fixtures' types; at run time the fixtures come from conftest.py
    from conftest import Device


def field_selector(device: Device, name: str) -> dict[str, Any]:
    """``username`` / ``password`` by their recorded resource id."""
    if device.platform == "android":
        return {"androidAccessibility": {"resourceIdRegex": f".*:id/{name}"}}
    return {"iosMaestro": {"resourceIdRegex": f"{name}Field"}}


def focus(device: Device, name: str) -> None:
    device.run("tapOnElementBySelector", nodeSelector=field_selector(device, name))


@pytest.fixture(autouse=True)
def empty_fields(request: pytest.FixtureRequest) -> None:
    """Both fields start empty (the module's session keeps what earlier tests typed)."""
    for fixture in ("android", "ios", "device"):
        if fixture in request.fixturenames:
            device = request.getfixturevalue(fixture)
            for field in ("username", "password"):
                device.probe.set_value(field, "")
            return


# -- inputText ---------------------------------------------------------------------------------------
def test_input_text_types_into_the_tapped_field(device: Device) -> None:
    focus(device, "username")
    result = device.run("inputText", text="grace.hopper")
    assert device.probe.value("username") == "grace.hopper"
    assert device.probe.value("password") == ""
    assert result.message == "Typed 12 character(s)"


def test_input_text_follows_the_focus(device: Device) -> None:
    focus(device, "username")
    device.run("inputText", text="first")
    focus(device, "password")
    device.run("inputText", text="s3cret!")
    assert device.probe.value("username") == "first"
    assert device.probe.value("password") == "s3cret!"


def test_input_text_interpolates_memory(android: Device) -> None:
    android.memory.set("user", "Grace Hopper")
    focus(android, "username")
    android.run("inputText", text="{{user}} <{{memory.user}}> ${user}")
    assert android.probe.value("username") == "Grace Hopper <Grace Hopper> Grace Hopper"


def test_input_text_then_tries_to_hide_the_keyboard(device: Device) -> None:
    focus(device, "username")
    with device.commands.capture():  # the fake driver cannot hide a keyboard: not the step's failure
        device.run("inputText", text="abc")
    assert [script for script, _ in device.commands.scripts()] == ["mobile: hideKeyboard"]
    with device.commands.capture():
        device.run("inputText", text="abc", hideKeyboardAfter=False)
    assert device.commands.scripts() == []
    assert device.probe.value("username") == "abc"


def test_input_text_with_no_field_tapped(device: Device) -> None:
    with device.probe.watch() as effects, pytest.raises(ToolFailure, match="no text field has the focus"):
        device.run("inputText", text="lost")
    assert effects.clicked == {}
    assert device.probe.value("username") == "" and device.probe.value("password") == ""


def test_input_text_into_a_button_fails_with_the_servers_answer(android: Device) -> None:
    android.run("tapOnElementBySelector", nodeSelector={"androidAccessibility": {"textRegex": "Submit"}})
    with pytest.raises(ToolFailure) as failure:
        android.run("inputText", text="nope", hideKeyboardAfter=False)
    message = str(failure.value)
    assert "type into the focused field" in message
    assert "invalid state" in message  # the fake driver's answer (InvalidElementStateError)
    assert android.probe.value("username") == ""


# -- inputTextRandom ------------------------------------------------------------------------------------
def test_input_text_random_types_and_remembers(device: Device) -> None:
    focus(device, "username")
    result = device.run("inputTextRandom", variable="code", prefix="ID-", digitCount=4)
    typed = device.probe.value("username")
    assert re.fullmatch(r"ID-\d{4}", typed)
    assert device.memory.get("code") == typed
    assert typed in result.message


def test_input_text_random_defaults(android: Device) -> None:
    focus(android, "password")
    android.run("inputTextRandom", variable="otp")
    typed = android.probe.value("password")
    assert re.fullmatch(r"TBZ-\d{6}", typed)
    assert android.memory.get("otp") == typed
    focus(android, "username")
    android.run("inputText", text="{{otp}}")  # the remembered value is usable by later steps
    assert android.probe.value("username") == typed


# -- eraseText / clearText --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("count", "left"),
    [(6, "hello"), (1, "hello worl"), (0, "hello world"), (11, ""), (50, ""), (None, "")],
)
def test_erase_text(device: Device, count: int | None, left: str) -> None:
    device.probe.set_value("username", "hello world")
    focus(device, "username")
    args = {} if count is None else {"charactersToErase": count}
    result = device.run("eraseText", args)
    assert device.probe.value("username") == left
    assert result.message == ("Erased all text" if count is None else f"Erased {count} character(s)")


def test_erase_text_after_typing(android: Device) -> None:
    focus(android, "username")
    android.run("inputText", text="grace@example.test", hideKeyboardAfter=False)
    android.run("eraseText", charactersToErase=len(".test"))
    assert android.probe.value("username") == "grace@example"
    android.run("inputText", text="grace@example.org", hideKeyboardAfter=False)
    assert android.probe.value("username") == "grace@example.org"


def test_clear_text(device: Device) -> None:
    device.probe.set_value("password", "hunter2")
    device.probe.set_value("username", "keep me")
    focus(device, "password")
    assert device.run("clearText").message == "Cleared the field"
    assert device.probe.value("password") == ""
    assert device.probe.value("username") == "keep me"


def test_erase_with_no_field_tapped(device: Device) -> None:
    device.probe.set_value("username", "untouched")
    with pytest.raises(ToolFailure, match="no text field has the focus"):
        device.run("eraseText")
    assert device.probe.value("username") == "untouched"


# -- the older text tools: substring, any case, id, index --------------------------------------------------
def test_assert_visible_with_text(device: Device) -> None:
    with device.probe.watch() as effects:
        for text in ("Sign in", "SIGN IN", "ign", "terms OF"):
            assert "is visible" in device.run("assertVisibleWithText", text=text).message
    assert effects.clicked == {} and effects.gestures == []


def test_assert_visible_with_text_and_id(device: Device, short_waits: None) -> None:
    item_id = ".*:id/item" if device.platform == "android" else "item[A-C]"
    device.run("assertVisibleWithText", text="item", id=item_id, index=2)
    with pytest.raises(ToolFailure, match="no visible element matches"):
        device.run("assertVisibleWithText", text="Sign in", id=item_id)


def test_assert_visible_with_text_missing(device: Device, short_waits: None) -> None:
    started = time.monotonic()
    with pytest.raises(ToolFailure) as failure:
        device.run("assertVisibleWithText", text="Welcome back")
    assert time.monotonic() - started >= 0.3
    assert "no visible element matches" in str(failure.value) and "Welcome" in str(failure.value)


def test_assert_visible_with_text_ignores_invisible(device: Device, short_waits: None) -> None:
    with pytest.raises(ToolFailure):
        device.run("assertVisibleWithText", text="hidden banner")


def test_assert_not_visible_with_text(device: Device) -> None:
    started = time.monotonic()
    for text in ("error", "Hidden banner"):
        assert "no element shows" in device.run("assertNotVisibleWithText", text=text).message
    assert time.monotonic() - started < 2


def test_assert_not_visible_with_text_fails_when_shown(device: Device, short_waits: None) -> None:
    with pytest.raises(ToolFailure) as failure:
        device.run("assertNotVisibleWithText", text="submit")
    assert "is still visible" in str(failure.value) and "'submit'" in str(failure.value)


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"text": "Submit"}, "submit"),
        ({"text": "ubmi"}, "submit"),  # substring
        ({"text": "CANCEL"}, "cancel"),  # any case
        ({"text": "buy"}, "premium-buy"),  # first in reading order
        ({"text": "buy", "index": 1}, "basic-buy"),
        ({"text": "item", "index": 2}, "item-c"),  # reading order, not document order
        ({"text": "(+"}, None),  # regex characters are literal: nothing has them
    ],
)
def test_tap_on_element_with_text(
    device: Device, short_waits: None, args: dict[str, Any], expected: str | None
) -> None:
    with device.probe.watch() as effects:
        if expected is None:
            with pytest.raises(ToolFailure, match="no visible element matches"):
                device.run("tapOnElementWithText", args)
        else:
            device.run("tapOnElementWithText", args)
    assert effects.clicked == ({expected: 1} if expected else {})


def test_tap_on_element_with_text_and_id(device: Device) -> None:
    item_id = ".*:id/item" if device.platform == "android" else "itemB"
    with device.probe.watch() as effects:
        device.run(
            "tapOnElementWithText", text="item", id=item_id, index=1 if device.platform == "android" else 0
        )
    assert effects.clicked == {"item-b": 1}


def test_tap_on_element_with_text_enabled_and_selected(android: Device, ios: Device) -> None:
    with android.probe.watch() as effects:
        android.run("tapOnElementWithText", text="item", enabled=False)
    assert effects.clicked == {"item-b": 1}
    with ios.probe.watch() as effects:
        ios.run("tapOnElementWithText", text="item", selected=True)
    assert effects.clicked == {"item-b": 1}


@pytest.mark.parametrize(
    ("android_args", "ios_args", "expected"),
    [
        ({"accessibilityText": "Submit form"}, {"accessibilityText": "Submit"}, "submit"),
        ({"accessibilityText": "submit FO"}, {"accessibilityText": "SUBM"}, "submit"),
        ({"accessibilityText": "cancel"}, {"accessibilityText": "cancel"}, "cancel"),
        (
            {"accessibilityText": "sign", "id": ".*:id/cancel"},
            {"accessibilityText": "c", "id": "cancelButton"},
            "cancel",
        ),
    ],
)
def test_tap_on_element_with_accessibility_text(
    device: Device, android_args: dict[str, Any], ios_args: dict[str, Any], expected: str
) -> None:
    with device.probe.watch() as effects:
        device.run(
            "tapOnElementWithAccessibilityText", android_args if device.platform == "android" else ios_args
        )
    assert effects.clicked == {expected: 1}


def test_tap_on_element_with_accessibility_text_index(ios: Device) -> None:
    with ios.probe.watch() as effects:
        ios.run("tapOnElementWithAccessibilityText", accessibilityText="buy", index="1")
    assert effects.clicked == {"basic-buy": 1}


def test_tap_on_element_with_accessibility_text_ignores_plain_text(
    android: Device, short_waits: None
) -> None:
    # "Item A" is a text, not anybody's content description
    with android.probe.watch() as effects, pytest.raises(ToolFailure):
        android.run("tapOnElementWithAccessibilityText", accessibilityText="Item A")
    assert effects.clicked == {}
