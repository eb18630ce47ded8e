"""Upstream's remaining element tools on a real Appium server (fake driver).

The Maestro-era ``assertVisibleWith*`` / ``longPress*`` tools, the queries scripted tools use
(``findMatches``, ``waitUntilNotVisible``: answers as data, never a failure for "not there"), and
``dragByPoints``. Effects are read with plain client calls (clicks, the W3C actions log).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_trailblaze.core.errors import ToolArgumentError, ToolFailure
from pytest_trailblaze.core.run.runner import TrailRunner, plan_trail
from pytest_trailblaze.core.tooling.context import ToolContext
from pytest_trailblaze.core.tooling.memory import Memory
from pytest_trailblaze.core.trail.parse import parse_trail
from pytest_trailblaze.drivers.appium import MobileDriver

if TYPE_CHECKING:  # the fixtures' types; at run time the fixtures come from conftest.py
    from conftest import Device

from conftest import make_registry

ANDROID_SUBMIT = {"left": 560, "top": 560, "right": 1040, "bottom": 680}
IOS_SUBMIT = {"left": 619, "top": 600, "right": 1119, "bottom": 730}


def maestro(device: Device, **fields: Any) -> dict[str, Any]:
    return {"androidMaestro" if device.platform == "android" else "iosMaestro": fields}


# -- assertVisibleWithAccessibilityText / assertVisibleWithResourceId --------------------------------------
@pytest.mark.parametrize(
    ("android_text", "ios_text"),
    [("Submit form", "Submit"), ("SUBMIT FO", "subm"), ("cancel sign", "CANCEL")],
)
def test_assert_visible_with_accessibility_text(device: Device, android_text: str, ios_text: str) -> None:
    text = android_text if device.platform == "android" else ios_text
    with device.probe.watch() as effects:
        result = device.run("assertVisibleWithAccessibilityText", accessibilityText=text)
    assert result.message.endswith("is visible")
    assert effects.clicked == {} and effects.gestures == []


def test_assert_visible_with_accessibility_text_is_not_plain_text(android: Device, short_waits: None) -> None:
    # "Item A" is a text; no element has it as its content description
    with pytest.raises(ToolFailure, match="no visible element matches") as failure:
        android.run("assertVisibleWithAccessibilityText", accessibilityText="Item A")
    assert "accessibilityTextRegex" in str(failure.value)


def test_assert_visible_with_accessibility_text_id_and_index(ios: Device, short_waits: None) -> None:
    ios.run("assertVisibleWithAccessibilityText", accessibilityText="buy", id="buy", index=1)
    with pytest.raises(ToolFailure):
        ios.run("assertVisibleWithAccessibilityText", accessibilityText="buy", id="buy", index=2)


@pytest.mark.parametrize(
    ("android_args", "ios_args"),
    [
        ({"resourceId": "com.test:id/submit"}, {"resourceId": "submitButton"}),
        ({"resourceId": ".*:id/SUBMIT"}, {"resourceId": "SUBMIT.*"}),  # a regex over the whole id, any case
        ({"resourceId": ".*:id/item", "index": 2}, {"resourceId": "item[ABC]", "index": 2}),
        (
            {"resourceId": ".*:id/(submit|cancel)", "accessibilityText": "Cancel.*"},
            {"resourceId": ".*Button", "accessibilityText": "Canc.*"},
        ),
    ],
)
def test_assert_visible_with_resource_id(
    device: Device, android_args: dict[str, Any], ios_args: dict[str, Any]
) -> None:
    args = android_args if device.platform == "android" else ios_args
    result = device.run("assertVisibleWithResourceId", args)
    assert result.message.endswith("is visible")


@pytest.mark.parametrize("resource_id", ["com.test:id/sub", "com.test:id/banner", "com.test:id/nope"])
def test_assert_visible_with_resource_id_fails(android: Device, short_waits: None, resource_id: str) -> None:
    """Not a substring (``sub``), not an invisible element (``banner``), not a missing one."""
    with pytest.raises(ToolFailure, match="no visible element matches"):
        android.run("assertVisibleWithResourceId", resourceId=resource_id)


# -- long presses by text ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("tool", "android_args", "ios_args", "center"),
    [
        ("longPressOnElementWithText", {"text": "submIT"}, {"text": "SUBMIT"}, "submit"),
        ("longPressOnElementWithText", {"text": "buy", "index": "1"}, {"text": "buy", "index": 1}, "basic"),
        (
            "longPressElementWithAccessibilityText",
            {"accessibilityText": "submit f"},
            {"accessibilityText": "su"},
            "submit",
        ),
        (
            "longPressElementWithAccessibilityText",
            {"accessibilityText": "Cancel"},
            {"accessibilityText": "ca"},
            "cancel",
        ),
    ],
)
def test_long_press_by_text_holds_at_the_elements_center(
    device: Device, tool: str, android_args: dict[str, Any], ios_args: dict[str, Any], center: str
) -> None:
    centers = {
        "android": {"submit": (800, 620), "cancel": (280, 620), "basic": (540, 1630)},
        "ios": {"submit": (869, 665), "cancel": (310, 665), "basic": (589, 1780)},
    }
    with device.probe.watch() as effects:
        result = device.run(tool, android_args if device.platform == "android" else ios_args)
    assert effects.clicked == {}  # a held touch, not an element click
    (press,) = effects.gestures
    assert press.pointer_type == "touch" and press.is_press
    assert press.start == centers[device.platform][center]
    assert press.held_ms >= 500
    assert result.message.startswith("Long-pressed")


@pytest.mark.parametrize("tool", ["longPressOnElementWithText", "longPressElementWithAccessibilityText"])
def test_long_press_index_must_be_a_position(android: Device, tool: str) -> None:
    key = "text" if tool == "longPressOnElementWithText" else "accessibilityText"
    with android.probe.watch() as effects, pytest.raises(ToolArgumentError, match="index") as error:
        android.run(tool, {key: "buy", "index": "second"})
    assert error.value.tool == tool and "'second'" in str(error.value)
    assert effects.gestures == []


def test_long_press_on_missing_text(android: Device, short_waits: None) -> None:
    with android.probe.watch() as effects, pytest.raises(ToolFailure, match="no visible element matches"):
        android.run("longPressOnElementWithText", text="Hidden banner")
    assert effects.gestures == []


# -- findMatches ------------------------------------------------------------------------------------------
def test_find_matches_describes_every_match(device: Device) -> None:
    with device.probe.watch() as effects:
        result = device.run("findMatches", selector=maestro(device, textRegex="buy"))
    assert result.message == "findMatches: 2 matches"
    premium, basic = result.data
    if device.platform == "android":
        assert premium == {
            "indexPath": [0, 0, 0, 6, 1, 0],
            "bounds": {"left": 40, "top": 1260, "right": 1040, "bottom": 1400},
            "matchedText": "Buy",
            "accessibilityId": None,
            "resourceId": None,
        }
        assert basic["indexPath"] == [0, 0, 0, 7, 1]
    else:
        assert premium == {
            "indexPath": [0, 0, 6, 1, 0],
            "bounds": {"left": 60, "top": 1360, "right": 1119, "bottom": 1520},
            "matchedText": "Buy",
            "accessibilityId": "Buy",
            "resourceId": "buy",
        }
        assert basic["indexPath"] == [0, 0, 7, 1]
    assert effects.clicked == {} and effects.gestures == []


def test_find_matches_names_and_bounds(device: Device) -> None:
    result = device.run("findMatches", selector=maestro(device, textRegex="Submit"))
    (submit,) = result.data
    assert result.message == "findMatches: 1 match"
    if device.platform == "android":
        assert submit["bounds"] == ANDROID_SUBMIT
        assert (submit["matchedText"], submit["accessibilityId"]) == ("Submit", "Submit form")
        assert submit["resourceId"] == "com.test:id/submit"
    else:
        assert submit["bounds"] == IOS_SUBMIT
        assert (submit["matchedText"], submit["resourceId"]) == ("Submit", "submitButton")


def test_find_matches_path_leads_to_the_element(android: Device) -> None:
    """The index path walks the page source the server gave: the same element as by XPath."""
    (submit,) = android.run("findMatches", selector=maestro(android, textRegex="Submit")).data
    from xml.etree import ElementTree

    element = ElementTree.fromstring(android.session.page_source)
    for index in submit["indexPath"]:
        element = list(element)[index]
    assert element.get("id") == "submit"


def page_reads(device: Device) -> int:
    return device.commands.names().count("getPageSource")


def test_find_matches_nothing_is_an_empty_answer_not_a_failure(device: Device) -> None:
    with device.commands.capture():
        result = device.run("findMatches", selector=maestro(device, textRegex="Welcome back"))
    assert (result.message, result.data) == ("findMatches: 0 matches", [])
    assert page_reads(device) == 1  # no timeoutMs: one look at the screen


def test_find_matches_waits_up_to_its_timeout(android: Device) -> None:
    started = time.monotonic()
    result = android.run("findMatches", selector=maestro(android, textRegex="Welcome back"), timeoutMs=600)
    assert result.data == [] and time.monotonic() - started >= 0.6
    with android.commands.capture():
        found = android.run("findMatches", selector=maestro(android, textRegex="Cancel"), timeoutMs=30_000)
    assert len(found.data) == 1 and page_reads(android) == 1  # found on the first look: no more waiting


def test_find_matches_skips_invisible_elements_and_honours_index(android: Device) -> None:
    assert android.run("findMatches", selector=maestro(android, textRegex="Hidden banner")).data == []
    (second,) = android.run("findMatches", selector={**maestro(android, textRegex="Item.*"), "index": 1}).data
    assert second["matchedText"] == "Item B"  # reading order: A, B, C


def test_find_matches_needs_a_selector(android: Device) -> None:
    with pytest.raises(ToolArgumentError, match="selector"):
        android.run("findMatches", timeoutMs=10)


# -- waitUntilNotVisible ----------------------------------------------------------------------------------
def test_wait_until_not_visible_answers_true_for_what_is_not_there(device: Device) -> None:
    for selector in (maestro(device, textRegex="Welcome back"), maestro(device, textRegex="Hidden banner")):
        with device.commands.capture():
            result = device.run("waitUntilNotVisible", nodeSelector=selector, timeoutMs=5000)
        assert (result.data, result.message) == (True, "waitUntilNotVisible: selector is not visible")
        assert page_reads(device) == 1  # gone on the first look: no waiting


def test_wait_until_not_visible_answers_false_after_its_timeout(device: Device) -> None:
    started = time.monotonic()
    selector = maestro(device, textRegex="Submit")
    with device.commands.capture():
        result = device.run("waitUntilNotVisible", nodeSelector=selector, timeoutMs=500)
    assert result.data is False
    assert result.message == "waitUntilNotVisible: selector still visible after 500ms"
    assert time.monotonic() - started >= 0.5 and page_reads(device) >= 2  # it kept looking


def test_wait_until_not_visible_rejects_a_negative_timeout(android: Device) -> None:
    with pytest.raises(ToolArgumentError, match="timeoutMs"):
        android.run("waitUntilNotVisible", nodeSelector=maestro(android, textRegex="Submit"), timeoutMs=-1)


class DisappearingSession:
    """A session whose screen shows a spinner for the first ``polls`` page-source reads, then not."""

    def __init__(self, polls: int) -> None:
        self.polls = polls
        self.reads = 0
        self.capabilities: dict[str, Any] = {}

    @property
    def page_source(self) -> str:
        self.reads += 1
        shown = "true" if self.reads <= self.polls else "false"
        return (
            '<hierarchy><android.widget.ProgressBar class="android.widget.ProgressBar" text="Loading" '
            f'displayed="{shown}" bounds="[0,0][100,100]"/></hierarchy>'
        )

    def get_window_size(self) -> dict[str, int]:
        return {"width": 1080, "height": 2400}


def test_wait_until_not_visible_waits_for_the_element_to_go(tmp_path: Path) -> None:
    session = DisappearingSession(polls=3)
    driver = MobileDriver(session, "android", owns_session=True)
    ctx = ToolContext(make_registry("android"), Memory(), driver.device_info(), driver, None, tmp_path)
    selector = {"androidAccessibility": {"textRegex": "Loading"}}
    result = ctx.registry.execute("waitUntilNotVisible", {"nodeSelector": selector, "timeoutMs": 10_000}, ctx)
    assert result.data is True and session.reads == 4  # looked until it was gone, then stopped


# -- dragByPoints -------------------------------------------------------------------------------------------
def test_drag_by_points_is_a_slow_touch_drag(device: Device) -> None:
    with device.probe.watch() as effects:
        result = device.run("dragByPoints", startX=100, startY=900, endX=700, endY=300)
    assert effects.clicked == {}
    (drag,) = effects.gestures
    assert drag.pointer_type == "touch" and drag.is_drag
    assert (drag.start, drag.end) == ((100, 900), (700, 300))
    moves = [a for a in drag.actions if a["type"] == "pointerMove"]
    assert int(moves[-1]["duration"]) == 1000  # upstream's default
    assert result.message == "Dragged from (100, 900) to (700, 300) in 1000 ms"


def test_drag_by_points_duration(android: Device) -> None:
    with android.probe.watch() as effects:
        android.run("dragByPoints", startX=10, startY=20, endX=30, endY=40, durationMs=250)
    moves = [a for a in effects.gestures[0].actions if a["type"] == "pointerMove"]
    assert int(moves[-1]["duration"]) == 250


@pytest.mark.parametrize(
    ("args", "named"),
    [
        ({"startX": 1, "startY": 2, "endX": 3}, "endY"),
        ({"startX": 1, "startY": 2, "endX": 3, "endY": 4, "durationMs": -5}, "durationMs"),
        ({"startX": "left", "startY": 2, "endX": 3, "endY": 4}, "startX"),
    ],
)
def test_drag_by_points_bad_arguments(android: Device, args: dict[str, Any], named: str) -> None:
    with android.probe.watch() as effects, pytest.raises(ToolArgumentError, match=named):
        android.run("dragByPoints", args)
    assert effects.gestures == []


# -- flags, as upstream declares them ---------------------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "llm", "recordable", "verification"),
    [
        ("assertVisibleWithAccessibilityText", False, True, True),
        ("assertVisibleWithResourceId", False, True, True),
        ("longPressOnElementWithText", False, True, False),
        ("longPressElementWithAccessibilityText", False, True, False),
        ("findMatches", False, False, False),
        ("waitUntilNotVisible", False, False, False),
        ("dragByPoints", False, True, False),
    ],
)
def test_flags(name: str, llm: bool, recordable: bool, verification: bool) -> None:
    descriptor = make_registry("android").get(name).descriptor
    flags = (descriptor.surface_to_llm, descriptor.is_recordable, descriptor.is_verification)
    assert flags == (llm, recordable, verification)
    assert descriptor.platforms == {"android", "ios"}
    web = make_registry("web")
    assert web.unsupported_reason(web.get(name)) is not None


# -- as a trail writes them ------------------------------------------------------------------------------
RECORDED = """\
trail:
  - step: Use the tools as recordings write them
    recording:
      android:
        - assertVisibleWithResourceId: {resourceId: "com.test:id/submit"}
        - assertVisibleWithAccessibilityText: {accessibilityText: Submit form, index: 0}
        - longPressOnElementWithText: {text: buy, index: 1}
        - longPressElementWithAccessibilityText: {accessibilityText: cancel sign in}
        - findMatches:
            selector:
              androidAccessibility:
                textRegex: Item A
            timeoutMs: 3000
        - waitUntilNotVisible:
            nodeSelector: {androidAccessibility: {textRegex: Loading}}
            timeoutMs: 100
        - dragByPoints: {startX: 540, startY: 2000, endX: 540, endY: 600, durationMs: 300}
"""


def test_a_recorded_trail_replays_through_the_runner(android: Device) -> None:
    """YAML as upstream records it (an unquoted ``index: 1`` for a text parameter included)."""
    trail = parse_trail(RECORDED, "recorded.trail.yaml")
    plan = plan_trail(trail, android.driver.device_info().chain())
    with android.probe.watch() as effects:
        TrailRunner(plan, android.ctx).run_steps()
    assert effects.clicked == {}
    starts = [g.start for g in effects.gestures]
    assert starts == [(540, 1630), (280, 620), (540, 2000)]  # basic plan's Buy, Cancel, the drag
    logged = {entry.name: entry.message for entry in android.ctx.tool_log}
    assert logged["findMatches"] == "findMatches: 1 match"
    assert logged["waitUntilNotVisible"] == "waitUntilNotVisible: selector is not visible"
