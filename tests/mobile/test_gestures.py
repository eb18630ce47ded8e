"""Gesture tools on a real Appium server (fake driver), asserted through its W3C actions log.

The fake driver records every ``performActions`` chain; the tests read the touch pointer's moves:
where the finger goes down, where it lifts, how long it stays. A swipe's direction is the finger's
direction (``swipe UP`` moves the finger up); scrolling ``DOWN`` moves the finger up.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_trailblaze.core.errors import ToolArgumentError, ToolFailure
from pytest_trailblaze.core.tooling.context import ToolContext
from pytest_trailblaze.core.tooling.memory import Memory
from pytest_trailblaze.core.tooling.registry import ToolRegistry
from pytest_trailblaze.drivers.appium import MobileDriver
from pytest_trailblaze.tools import builtin_tools, mobile_input
from pytest_trailblaze.tools import mobile as mobile_tools

if TYPE_CHECKING:  # the fixtures' types; at run time the fixtures come from conftest.py
    from conftest import Device, Gesture

SIZES = {"android": (1080, 2400), "ios": (1179, 2556)}


def one_gesture(device: Device, tool: str, args: dict[str, Any] | None = None) -> Gesture:
    with device.probe.watch() as effects:
        device.run(tool, args or {})
    assert effects.clicked == {}, "a gesture clicks no element"
    assert len(effects.gestures) == 1, effects.gestures
    gesture = effects.gestures[0]
    assert gesture.pointer_type == "touch"
    return gesture


def inside(point: tuple[int, int], box: tuple[int, int, int, int]) -> bool:
    x, y = point
    left, top, width, height = box
    return left <= x <= left + width and top <= y <= top + height


# -- swipe ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("direction", ["UP", "DOWN", "LEFT", "RIGHT", "up"])
def test_swipe_moves_the_finger_that_way(device: Device, direction: str) -> None:
    gesture = one_gesture(device, "swipe", {"direction": direction})
    width, height = SIZES[device.platform]
    assert gesture.is_drag
    (sx, sy), (ex, ey) = gesture.start, gesture.end
    assert inside(gesture.start, (0, 0, width, height)) and inside(gesture.end, (0, 0, width, height))
    dx, dy = ex - sx, ey - sy
    expected = {"UP": (0, -1), "DOWN": (0, 1), "LEFT": (-1, 0), "RIGHT": (1, 0)}[direction.upper()]
    if expected[0] == 0:
        assert dx == 0 and dy * expected[1] > height // 4, (gesture.start, gesture.end)
    else:
        assert dy == 0 and dx * expected[0] > width // 4, (gesture.start, gesture.end)


def test_swipe_defaults_to_down(android: Device) -> None:
    gesture = one_gesture(android, "swipe")
    assert gesture.end[1] > gesture.start[1] and gesture.end[0] == gesture.start[0]


def test_swipe_on_element_text_stays_inside_the_element(device: Device) -> None:
    box = (40, 1440, 1000, 80) if device.platform == "android" else (60, 1560, 1059, 100)  # "Basic plan"
    gesture = one_gesture(device, "swipe", {"direction": "LEFT", "swipeOnElementText": "basic PLAN"})
    assert gesture.is_drag and gesture.end[0] < gesture.start[0]
    assert inside(gesture.start, box) and inside(gesture.end, box)


def test_swipe_on_missing_element_text(android: Device, short_waits: None) -> None:
    with android.probe.watch() as effects, pytest.raises(ToolFailure, match="no visible element matches"):
        android.run("swipe", direction="UP", swipeOnElementText="Nope")
    assert effects.gestures == []


# -- swipeWithRelativeCoordinates ----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("start", "end"),
    [("50%, 80%", "50%, 20%"), ("90%,50%", "10%,50%"), ("0.5, 0.1", "0.5, 0.9")],
)
def test_swipe_with_relative_coordinates(device: Device, start: str, end: str) -> None:
    gesture = one_gesture(
        device, "swipeWithRelativeCoordinates", {"startRelative": start, "endRelative": end}
    )
    width, height = SIZES[device.platform]
    sx, sy = mobile_tools.parse_relative(start)
    ex, ey = mobile_tools.parse_relative(end)
    assert gesture.is_drag
    assert gesture.start == (round(width * sx), round(height * sy))
    assert gesture.end == (round(width * ex), round(height * ey))


def test_swipe_with_relative_coordinates_duration(android: Device) -> None:
    gesture = one_gesture(
        android,
        "swipeWithRelativeCoordinates",
        {"startRelative": "50%, 70%", "endRelative": "50%, 30%", "durationMs": 900},
    )
    move = [a for a in gesture.actions if a["type"] == "pointerMove"][-1]
    assert move["duration"] == 900


def test_swipe_with_relative_coordinates_on_an_element(android: Device) -> None:
    gesture = one_gesture(
        android,
        "swipeWithRelativeCoordinates",
        {"startRelative": "90%, 50%", "endRelative": "10%, 50%", "swipeOnElementText": "premium plan"},
    )
    # "Premium plan": bounds [40,1140][1040,1220]
    assert gesture.start == (40 + 900, 1140 + 40) and gesture.end == (40 + 100, 1140 + 40)


# -- tapOnPoint -----------------------------------------------------------------------------------------
def test_tap_on_point(device: Device) -> None:
    gesture = one_gesture(device, "tapOnPoint", {"x": 123, "y": 456})
    assert gesture.is_press and gesture.start == (123, 456)
    assert gesture.held_ms < 500


def test_long_press_on_point(device: Device) -> None:
    gesture = one_gesture(device, "tapOnPoint", {"x": 10, "y": 20, "longPress": True})
    assert gesture.is_press and gesture.start == (10, 20)
    assert gesture.held_ms >= 500


def test_tap_on_point_needs_integers(android: Device) -> None:
    with android.probe.watch() as effects, pytest.raises(ToolArgumentError, match="tapOnPoint") as error:
        android.run("tapOnPoint", x="left", y=3)
    assert "x" in str(error.value)
    assert effects.gestures == []


# -- scrollUntilTextIsVisible -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "args",
    [
        {"text": "submit"},
        {"text": "PREMIUM"},
        {"textRegex": "Item [AB]"},
        {"id": "__TITLE__"},
        {"text": "Terms of service", "visibilityPercentage": 50},  # half of it is on screen
    ],
)
def test_scroll_finds_a_visible_element_without_scrolling(device: Device, args: dict[str, Any]) -> None:
    if args.get("id") == "__TITLE__":
        args = {"id": "com.test:id/title" if device.platform == "android" else "title"}
    with device.probe.watch() as effects:
        result = device.run("scrollUntilTextIsVisible", args)
    assert effects.gestures == [] and effects.clicked == {}
    assert "is visible" in result.message


@pytest.mark.parametrize(
    ("args", "finger"),
    [
        ({"text": "Nope"}, "UP"),  # scrolling DOWN: the finger moves up
        ({"text": "Nope", "direction": "UP"}, "DOWN"),
        ({"text": "Terms of service"}, "UP"),  # only half of it is on screen
        ({"text": "Hidden banner"}, "UP"),  # never visible
        ({"textRegex": "Item"}, "UP"),  # anchored: no item is called just "Item"
    ],
)
def test_scroll_gives_up_when_the_screen_stops_changing(
    device: Device, args: dict[str, Any], finger: str
) -> None:
    started = time.monotonic()
    with device.probe.watch() as effects, pytest.raises(ToolFailure) as failure:
        device.run("scrollUntilTextIsVisible", args)
    elapsed = time.monotonic() - started
    # the fake app's page source never changes: one swipe, then the same screen again, then stop
    assert len(effects.gestures) == 1, effects.gestures
    assert elapsed < 3
    gesture = effects.gestures[0]
    assert gesture.is_drag and gesture.start[0] == gesture.end[0]
    assert (gesture.end[1] < gesture.start[1]) == (finger == "UP")
    direction = args.get("direction", "DOWN").lower()
    message = str(failure.value)
    assert f"scrolled {direction}" in message and "came into view" in message
    assert "textRegex=" in message


def test_scroll_needs_exactly_one_target(android: Device) -> None:
    for args in ({}, {"text": "a", "id": "b"}, {"text": "a", "textRegex": "b"}):
        with pytest.raises(ToolFailure, match="exactly one of text, textRegex or id"):
            android.run("scrollUntilTextIsVisible", args)


class ScrollingSession:
    """A stub Appium session whose page source changes after every swipe (a long list).

    It answers what ``MobileDriver`` asks for a scroll: the window size, the page source, and W3C
    actions (``execute``); the target text appears after ``appears_after`` swipes (never when None).
    """

    def __init__(self, appears_after: int | None) -> None:
        self.appears_after = appears_after
        self.swipes = 0
        self.capabilities: dict[str, Any] = {}
        self.w3c = True

    def get_window_size(self) -> dict[str, int]:
        return {"width": 1000, "height": 2000}

    @property
    def page_source(self) -> str:
        shown = self.appears_after is not None and self.swipes >= self.appears_after
        rows = "".join(
            f'<android.widget.TextView class="android.widget.TextView" text="Row {self.swipes}-{i}" '
            f'bounds="[0,{i * 200}][1000,{i * 200 + 150}]"/>'
            for i in range(5)
        )
        target = (
            '<android.widget.TextView class="android.widget.TextView" text="The end" '
            'bounds="[0,1200][1000,1350]"/>'
            if shown
            else ""
        )
        return f'<hierarchy rotation="0">{rows}{target}</hierarchy>'

    def execute(self, command: str, params: Any = None) -> dict[str, Any]:
        if command == "actions":
            self.swipes += 1
        return {"value": None}


@pytest.mark.parametrize(
    ("appears_after", "swipes"),
    [
        (0, 0),
        (2, 2),
        (mobile_input.MAX_SCROLLS, mobile_input.MAX_SCROLLS),  # found after the last allowed swipe
        (None, mobile_input.MAX_SCROLLS),  # never: MAX_SCROLLS swipes, each one looked at
    ],
)
def test_scroll_keeps_going_while_the_screen_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, appears_after: int | None, swipes: int
) -> None:
    monkeypatch.setattr(mobile_input.time, "sleep", lambda seconds: None)
    session = ScrollingSession(appears_after)
    driver = MobileDriver(session, "android", owns_session=True)
    registry = ToolRegistry(platform="android", driver_key="appium-android")
    registry.register_all(builtin_tools())
    ctx = ToolContext(registry, Memory(), driver.device_info(), driver, None, tmp_path)
    if appears_after is None:
        with pytest.raises(ToolFailure, match="came into view"):
            ctx.registry.execute("scrollUntilTextIsVisible", {"text": "the end"}, ctx)
    else:
        result = ctx.registry.execute("scrollUntilTextIsVisible", {"text": "the end"}, ctx)
        assert "The end" in result.message
    assert session.swipes == swipes


# -- wait and takeSnapshot --------------------------------------------------------------------------------
def test_wait(android: Device) -> None:
    started = time.monotonic()
    with android.probe.watch() as effects:
        result = android.run("wait", timeToWaitInSeconds=0.3)
    assert 0.3 <= time.monotonic() - started < 1.5
    assert result.message == "Waited 0.3 s"
    assert effects.gestures == [] and effects.clicked == {}


def test_take_snapshot(device: Device) -> None:
    result = device.run("takeSnapshot", screenName="Sign in / start", description="before typing")
    folder = device.ctx.artifacts_dir / "snapshots"
    image = folder / "Sign_in_start.png"
    tree = folder / "Sign_in_start.hierarchy.txt"
    assert image.read_bytes() == device.session.get_screenshot_as_png()
    assert image.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    assert tree.read_text(encoding="utf-8") == device.session.page_source
    assert "before typing" in result.message and str(image) in result.message
