"""Device info and classifiers (docs/upstream.md, Device classifiers): measured from the Appium
session's window and capabilities.

Android: a tablet when the smallest width is at least 600 dp, dp = px / (deviceScreenDensity / 160);
without a density, when the shortest side is at least 1536 px. iOS: window sizes are points, made
pixels by the session's ``pixelRatio``; an iPad when the shortest side is at least 1536 px.
The rules are unit-tested on ``MobileDriver`` over small stub sessions, and end to end on the fake
driver, whose window is the app XML's ``<app width height>`` and which reports ``appium:`` capabilities.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from selenium.common.exceptions import WebDriverException

from pytest_trailblaze.core.errors import ToolFailure
from pytest_trailblaze.drivers.appium import MobileDriver


class StubSession:
    """What ``MobileDriver.device_info`` reads: the window size and the session's capabilities."""

    def __init__(self, width: int, height: int, **capabilities: Any) -> None:
        self.size = {"width": width, "height": height}
        self.capabilities = capabilities
        self.size_calls = 0

    def get_window_size(self) -> dict[str, int]:
        self.size_calls += 1
        return dict(self.size)


def info(platform: str, width: int, height: int, **capabilities: Any) -> Any:
    return MobileDriver(
        StubSession(width, height, **capabilities), platform, owns_session=False
    ).device_info()


# -- android ------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("width", "height", "classifier"),
    [
        (1080, 2400, "android-phone"),
        (2400, 1080, "android-phone"),  # landscape: the shortest side counts
        (1535, 2048, "android-phone"),
        (1536, 2048, "android-tablet"),
        (2048, 1536, "android-tablet"),
        (2560, 1600, "android-tablet"),
        (720, 1280, "android-phone"),
    ],
)
def test_android_pixel_rule_without_density(width: int, height: int, classifier: str) -> None:
    device = info("android", width, height)
    assert (device.width, device.height, device.density) == (width, height, None)
    assert device.classifier == classifier
    assert device.driver_key == "appium-android"


@pytest.mark.parametrize(
    ("width", "height", "dpi", "density", "classifier"),
    [
        (1080, 2400, 420, 2.625, "android-phone"),  # 411 dp
        (1600, 2560, 480, 3.0, "android-phone"),  # 533 dp: a phone although 1600 px >= 1536 px
        (1200, 1920, 320, 2.0, "android-tablet"),  # exactly 600 dp
        (1198, 1920, 320, 2.0, "android-phone"),  # 599 dp
        (800, 1280, 213, 213 / 160, "android-tablet"),  # 601 dp: a tablet although 800 px < 1536 px
        (1080, 2400, "420", 2.625, "android-phone"),  # a string capability is still a number
    ],
)
def test_android_density_rule(width: int, height: int, dpi: Any, density: float, classifier: str) -> None:
    device = info("android", width, height, deviceScreenDensity=dpi)
    assert device.density == pytest.approx(density)
    assert (device.width, device.height) == (width, height)  # Android windows are pixels already
    assert device.classifier == classifier


@pytest.mark.parametrize("dpi", [None, 0, "", "high"])
def test_android_unusable_density_falls_back_to_pixels(dpi: Any) -> None:
    tablet = info("android", 1600, 2560, deviceScreenDensity=dpi)
    assert tablet.density is None and tablet.classifier == "android-tablet"


def test_android_pixel_ratio_is_ignored() -> None:
    device = info("android", 1080, 2400, pixelRatio=3)
    assert (device.width, device.height) == (1080, 2400)


# -- ios ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("width", "height", "capabilities", "pixels", "classifier"),
    [
        (1179, 2556, {}, (1179, 2556), "ios-iphone"),
        (2048, 2732, {}, (2048, 2732), "ios-ipad"),
        (1535, 2048, {}, (1535, 2048), "ios-iphone"),
        (1536, 2048, {}, (1536, 2048), "ios-ipad"),
        (393, 852, {"pixelRatio": 3}, (1179, 2556), "ios-iphone"),
        (1024, 1366, {"pixelRatio": 2}, (2048, 2732), "ios-ipad"),
        (768, 1024, {"pixelRatio": 2}, (1536, 2048), "ios-ipad"),
        (1024, 1366, {"pixelRatio": "2"}, (2048, 2732), "ios-ipad"),
        (1366, 1024, {"pixelRatio": 2.0}, (2732, 2048), "ios-ipad"),
        (375, 667, {"pixelRatio": 2}, (750, 1334), "ios-iphone"),
    ],
)
def test_ios_pixel_ratio_rule(
    width: int, height: int, capabilities: dict[str, Any], pixels: tuple[int, int], classifier: str
) -> None:
    device = info("ios", width, height, **capabilities)
    assert (device.width, device.height) == pixels
    assert device.density is None
    assert device.classifier == classifier
    assert device.driver_key == "appium-ios"


def test_ios_density_capability_is_ignored() -> None:
    assert info("ios", 2048, 2732, deviceScreenDensity=480).classifier == "ios-ipad"


def test_lineage_of_the_measured_device() -> None:
    assert info("android", 2560, 1600).chain() == ("android-tablet", "android", "tablet")
    assert info("ios", 393, 852, pixelRatio=3).chain() == ("ios-iphone", "ios", "iphone")


def test_device_is_measured_once_per_session() -> None:
    session = StubSession(1080, 2400)
    first = MobileDriver(session, "android", owns_session=False).device_info()
    second = MobileDriver(session, "android", owns_session=False).device_info()
    assert first == second and session.size_calls == 1


def test_window_size_failure_is_a_tool_failure() -> None:
    class Broken(StubSession):
        def get_window_size(self) -> dict[str, int]:
            raise WebDriverException("window size is not available")

    with pytest.raises(ToolFailure, match="get the window size: window size is not available"):
        MobileDriver(Broken(1, 1), "android", owns_session=False).device_info()


# -- end to end on the fake driver ----------------------------------------------------------------------
def app_xml(folder: Path, width: int, height: int) -> Path:
    path = folder / f"app-{width}x{height}.xml"
    path.write_text(
        f'<app width="{width}" height="{height}"><hierarchy width="{width}" height="{height}">'
        f'<MockButton id="ok" class="android.widget.Button" text="OK" bounds="[0,0][100,100]" '
        f'left="0" top="0" width="100" height="100"/></hierarchy></app>',
        encoding="utf-8",
    )
    return path


@pytest.mark.parametrize(
    ("platform", "width", "height", "extra", "expected"),
    [
        ("android", 1080, 2400, {}, ("android-phone", 1080, 2400, None)),
        ("android", 2560, 1600, {}, ("android-tablet", 2560, 1600, None)),
        ("android", 1535, 2048, {}, ("android-phone", 1535, 2048, None)),
        ("android", 1536, 2048, {}, ("android-tablet", 1536, 2048, None)),
        ("android", 1600, 2560, {"deviceScreenDensity": 480}, ("android-phone", 1600, 2560, 3.0)),
        ("android", 800, 1280, {"deviceScreenDensity": 160}, ("android-tablet", 800, 1280, 1.0)),
        ("ios", 1179, 2556, {}, ("ios-iphone", 1179, 2556, None)),
        ("ios", 2048, 2732, {}, ("ios-ipad", 2048, 2732, None)),
        ("ios", 393, 852, {"pixelRatio": 3}, ("ios-iphone", 1179, 2556, None)),
        ("ios", 1024, 1366, {"pixelRatio": 2}, ("ios-ipad", 2048, 2732, None)),
    ],
)
def test_classifier_on_the_fake_driver(
    open_session: Callable[..., Any],
    tmp_path: Path,
    platform: str,
    width: int,
    height: int,
    extra: dict[str, Any],
    expected: tuple[str, int, int, float | None],
) -> None:
    session = open_session(app_xml(tmp_path, width, height), **extra)
    try:
        assert session.get_window_size() == {"width": width, "height": height}
        device = MobileDriver(session, platform, owns_session=False).device_info()
        assert (device.classifier, device.width, device.height, device.density) == expected
    finally:
        session.quit()


@pytest.mark.parametrize(
    ("app", "platform", "classifier"),
    [
        ("android.xml", "android", "android-phone"),
        ("android-tablet.xml", "android", "android-tablet"),
        ("ios.xml", "ios", "ios-iphone"),
        ("ipad.xml", "ios", "ios-ipad"),
    ],
)
def test_fixture_apps_classify(
    open_session: Callable[..., Any], app: str, platform: str, classifier: str
) -> None:
    session = open_session(Path(__file__).parent / "apps" / app)
    try:
        assert MobileDriver(session, platform, owns_session=False).device_info().classifier == classifier
    finally:
        session.quit()
