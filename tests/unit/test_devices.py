"""Platforms, driver types, classifier keys and form factors (docs/upstream.md, Device classifiers)."""

from __future__ import annotations

import pytest

from pytest_trailblaze.core.trail.devices import (
    DRIVER_TYPES,
    KNOWN_CLASSIFIERS,
    PLATFORMS,
    DriverType,
    classifier_problem,
    driver_type,
    form_factor,
    platform_of,
)

# -- driver types ------------------------------------------------------------------------------
UPSTREAM_DRIVERS = [
    ("ANDROID_ONDEVICE_ACCESSIBILITY", "android-ondevice-accessibility", "android", False),
    ("ANDROID_ONDEVICE_INSTRUMENTATION", "android-ondevice-instrumentation", "android", False),
    ("IOS_HOST", "ios-host", "ios", True),
    ("IOS_AXE", "ios-axe", "ios", True),
    ("PLAYWRIGHT_NATIVE", "playwright-native", "web", True),
    ("PLAYWRIGHT_ELECTRON", "playwright-electron", "web", True),
    ("REVYL_ANDROID", "revyl-android", "android", True),
    ("REVYL_IOS", "revyl-ios", "ios", True),
    ("COMPOSE", "compose", "desktop", True),
]


#: This plugin's own drivers, after upstream's.
PLUGIN_DRIVERS = [
    ("APPIUM_ANDROID", "appium-android", "android", True),
    ("APPIUM_IOS", "appium-ios", "ios", True),
]


def test_driver_table_is_upstreams_then_the_plugins() -> None:
    table = [(d.name, d.yaml_key, d.platform, d.requires_host) for d in DRIVER_TYPES]
    assert table == UPSTREAM_DRIVERS + PLUGIN_DRIVERS


@pytest.mark.parametrize(("name", "yaml_key", "platform", "requires_host"), UPSTREAM_DRIVERS)
def test_driver_type_by_enum_name(name: str, yaml_key: str, platform: str, requires_host: bool) -> None:
    assert driver_type(name) == DriverType(name, yaml_key, platform, requires_host)


@pytest.mark.parametrize(
    ("given", "name"),
    [
        ("playwright_native", "PLAYWRIGHT_NATIVE"),
        ("Playwright_Native", "PLAYWRIGHT_NATIVE"),
        ("ios_host", "IOS_HOST"),
        ("compose", "COMPOSE"),
        ("  IOS_AXE ", "IOS_AXE"),
    ],
)
def test_driver_type_is_case_insensitive(given: str, name: str) -> None:
    found = driver_type(given)
    assert found is not None and found.name == name


@pytest.mark.parametrize(
    "given", ["", "  ", "SELENIUM", "PLAYWRIGHT", "ios", "IOS_HOST_X", "PLAYWRIGHT NATIVE"]
)
def test_unknown_driver_type_is_none(given: str) -> None:
    assert driver_type(given) is None


# -- classifier keys --------------------------------------------------------------------------
@pytest.mark.parametrize(
    "key",
    [
        "android",
        "android-phone",
        "android-tablet",
        "ios",
        "ios-iphone",
        "ios-ipad",
        "web",
        "desktop",
        "desktop-compose",
        "ios-revyl-cloud",
        "android-phone-37",
        # a device's own segments are keys too: [android, phone] tries android-phone, android, phone
        "phone",
        "tablet",
        "iphone",
        "ipad",
        "compose",
        "phone-37",  # the segment lineage of a device reporting [android, phone-37]
    ],
)
def test_good_classifier_keys(key: str) -> None:
    assert classifier_problem(key) is None


@pytest.mark.parametrize(
    "key",
    [
        "Android",
        "android-Phone",
        "WEB",
        "android_phone",
        "android phone",
        "",
        "-android",
        "android-",
        "android--phone",
        "android-phone\n",
        "web\n",
        " web",
        "android.phone",
        "*",
    ],
)
def test_badly_spelled_classifier_keys(key: str) -> None:
    problem = classifier_problem(key)
    assert problem is not None and "lowercase" in problem


@pytest.mark.parametrize("key", ["tv", "tv-box", "macos", "pixel", "revyl-cloud", "phones", "watch-phone"])
def test_classifier_keys_must_start_with_a_platform_or_a_device_type(key: str) -> None:
    problem = classifier_problem(key)
    assert problem is not None and "platform" in problem and "device type" in problem
    assert all(p in problem for p in PLATFORMS)
    assert all(segment in problem for segment in ("phone", "tablet", "iphone", "ipad"))


def test_known_classifiers_are_all_valid() -> None:
    assert all(classifier_problem(key) is None for key in KNOWN_CLASSIFIERS)
    assert {platform_of(key) for key in KNOWN_CLASSIFIERS} == set(PLATFORMS)


@pytest.mark.parametrize(
    ("key", "platform"),
    [
        ("android-phone", "android"),
        ("ios", "ios"),
        ("desktop-compose", "desktop"),
        ("web", "web"),
        ("phone", "android"),
        ("tablet", "android"),
        ("phone-37", "android"),
        ("iphone", "ios"),
        ("ipad", "ios"),
        ("compose", "desktop"),
    ],
)
def test_platform_of(key: str, platform: str) -> None:
    assert platform_of(key) == platform


# -- form factors -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("width", "height", "density", "expected"),
    [
        # smallest width in dp decides when the density is known
        (1200, 1920, 2.0, "tablet"),  # exactly 600 dp
        (1199, 1920, 2.0, "phone"),  # 599.5 dp
        (1920, 1200, 2.0, "tablet"),  # landscape: the shortest side counts
        (1920, 1199, 2.0, "phone"),
        (1800, 2880, 3.0, "tablet"),  # 600 dp at xxhdpi
        (1797, 2880, 3.0, "phone"),
        (1260, 2000, 2.1, "tablet"),  # 600 dp with a fractional density
        (1080, 2400, 2.625, "phone"),  # 411 dp, a typical phone
        (1600, 2560, 2.0, "tablet"),  # 800 dp
        (1536, 2048, 3.0, "phone"),  # 512 dp: the density wins over the pixel rule
        (600, 1024, 1.0, "tablet"),
        (599, 1024, 1.0, "phone"),
        (900, 1600, 1.5, "tablet"),
        # without a density: the shortest side in pixels decides
        (1536, 2048, None, "tablet"),
        (1535, 2048, None, "phone"),
        (2048, 1536, None, "tablet"),
        (2048, 1535, None, "phone"),
        (1080, 2400, None, "phone"),
        (1200, 1920, None, "phone"),  # would be a tablet at density 2.0
    ],
)
def test_android_form_factor(width: int, height: int, density: float | None, expected: str) -> None:
    assert form_factor("android", width, height, density) == expected


@pytest.mark.parametrize(
    ("width", "height", "expected"),
    [
        (1536, 2048, "ipad"),
        (2048, 1536, "ipad"),
        (1535, 2048, "iphone"),
        (2048, 1535, "iphone"),
        (1640, 2360, "ipad"),
        (1170, 2532, "iphone"),
        (1290, 2796, "iphone"),
    ],
)
def test_ios_form_factor(width: int, height: int, expected: str) -> None:
    assert form_factor("ios", width, height) == expected
    # the pixel rule holds whatever density is reported
    assert form_factor("ios", width, height, 3.0) == expected


@pytest.mark.parametrize("platform", ["web", "desktop", "tv"])
def test_no_form_factor_off_mobile(platform: str) -> None:
    assert form_factor(platform, 1280, 720) is None
    assert form_factor(platform, 3000, 2000, 2.0) is None
