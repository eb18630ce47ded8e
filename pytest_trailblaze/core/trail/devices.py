"""Platforms, device classifiers and upstream driver types (docs/upstream.md, Device classifiers
and Driver types).

A classifier key such as ``android-phone`` names a device family: its first segment is the
platform, or a device-type segment that belongs to one platform (``phone`` and ``tablet`` are
Android's, ``iphone`` and ``ipad`` iOS's, ``compose`` the desktop's). A device reporting
``[android, phone]`` tries ``android-phone``, ``android``, then ``phone`` (``lineage.py``), so a bare
``phone:`` recording is reachable and valid.

Upstream driver enum names (``PLAYWRIGHT_NATIVE``) appear in trail pins; their ``yaml_key``
(``playwright-native``) appears in toolsets, MCP ``_meta`` and environment variables handed to
tool servers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

PLATFORMS: tuple[str, ...] = ("android", "ios", "web", "desktop")

#: Device-type segments a device reports after its platform, and that platform.
SEGMENT_PLATFORMS: dict[str, str] = {
    "phone": "android",
    "tablet": "android",
    "iphone": "ios",
    "ipad": "ios",
    "compose": "desktop",
}

_CLASSIFIER_RE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


@dataclass(frozen=True, slots=True)
class DriverType:
    """One upstream driver: enum name, key used in YAML lists, platform, host requirement."""

    name: str
    yaml_key: str
    platform: str
    requires_host: bool


DRIVER_TYPES: tuple[DriverType, ...] = (
    DriverType("ANDROID_ONDEVICE_ACCESSIBILITY", "android-ondevice-accessibility", "android", False),
    DriverType("ANDROID_ONDEVICE_INSTRUMENTATION", "android-ondevice-instrumentation", "android", False),
    DriverType("IOS_HOST", "ios-host", "ios", True),
    DriverType("IOS_AXE", "ios-axe", "ios", True),
    DriverType("PLAYWRIGHT_NATIVE", "playwright-native", "web", True),
    DriverType("PLAYWRIGHT_ELECTRON", "playwright-electron", "web", True),
    DriverType("REVYL_ANDROID", "revyl-android", "android", True),
    DriverType("REVYL_IOS", "revyl-ios", "ios", True),
    DriverType("COMPOSE", "compose", "desktop", True),
    # This plugin's own host-side drivers for mobile: Appium sessions (web is PLAYWRIGHT_NATIVE).
    DriverType("APPIUM_ANDROID", "appium-android", "android", True),
    DriverType("APPIUM_IOS", "appium-ios", "ios", True),
)

_BY_NAME = {d.name: d for d in DRIVER_TYPES}

#: Driver keys of the web platform, for tools and toolsets that run on any browser driver.
WEB_DRIVER_KEYS: tuple[str, ...] = tuple(d.yaml_key for d in DRIVER_TYPES if d.platform == "web")

#: The driver this plugin runs each platform on; other pins are replaced by it (and noted).
NATIVE_DRIVERS = {"web": "PLAYWRIGHT_NATIVE", "android": "APPIUM_ANDROID", "ios": "APPIUM_IOS"}


def driver_type(name: str) -> DriverType | None:
    """Look a driver enum name up case-insensitively, as upstream's ``fromString`` does."""
    return _BY_NAME.get(name.strip().upper())


def platform_of(classifier: str) -> str:
    """The platform a classifier key belongs to: its first segment, or the platform of that segment."""
    first = classifier.split("-", 1)[0]
    return SEGMENT_PLATFORMS.get(first, first)


def classifier_problem(classifier: str) -> str | None:
    """Why ``classifier`` is not a usable device classifier key, or None when it is."""
    if not _CLASSIFIER_RE.fullmatch(classifier):
        return "classifier keys are lowercase words joined by '-' (like 'android-phone')"
    if platform_of(classifier) not in PLATFORMS:
        return (
            f"its first segment must be a platform ({', '.join(PLATFORMS)}) or a device type "
            f"({', '.join(SEGMENT_PLATFORMS)})"
        )
    return None


#: Classifier keys worth suggesting in a did-you-mean hint.
KNOWN_CLASSIFIERS: tuple[str, ...] = (
    "android",
    "android-phone",
    "android-tablet",
    "ios",
    "ios-iphone",
    "ios-ipad",
    "web",
    "desktop",
    "desktop-compose",
    *SEGMENT_PLATFORMS,
)


def form_factor(platform: str, width_px: int, height_px: int, density: float | None = None) -> str | None:
    """The second classifier segment of a mobile device; None for web and desktop.

    Android: a tablet when its smallest width is at least 600 dp (pixels / density), or, when
    the density is unknown, when its shortest side is at least 1536 px. iOS: an iPad when its
    shortest side is at least 1536 px (window sizes are in pixels here, not points).
    """
    shortest = min(width_px, height_px)
    if platform == "android":
        large = shortest / density >= 600 if density else shortest >= 1536
        return "tablet" if large else "phone"
    if platform == "ios":
        return "ipad" if shortest >= 1536 else "iphone"
    return None
