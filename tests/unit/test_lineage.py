"""Closest-wins classifier lineage (docs/upstream.md, Device classifiers): the chain of keys a device
tries, and lookups."""

from __future__ import annotations

import pytest

from pytest_trailblaze.core.errors import TrailblazeError
from pytest_trailblaze.core.run.runner import plan_trail
from pytest_trailblaze.core.trail.lineage import resolution_chain, resolve, segments_for
from pytest_trailblaze.core.trail.model import ANY_DEVICE
from pytest_trailblaze.core.trail.parse import parse_trail


@pytest.mark.parametrize(
    ("segments", "chain"),
    [
        (["android", "phone"], ("android-phone", "android", "phone")),
        (["android", "tablet"], ("android-tablet", "android", "tablet")),
        (["ios", "ipad"], ("ios-ipad", "ios", "ipad")),
        (["ios", "iphone"], ("ios-iphone", "ios", "iphone")),
        (["web"], ("web",)),
        (["android"], ("android",)),
        (["desktop"], ("desktop",)),
        (["desktop", "compose"], ("desktop-compose", "desktop", "compose")),
        (
            ["ios", "revyl-cloud"],
            ("ios-revyl-cloud", "ios-revyl", "ios", "revyl-cloud", "revyl"),
        ),
        (
            ["android", "phone-37"],
            ("android-phone-37", "android-phone", "android", "phone-37", "phone"),
        ),
        (
            ["android", "phone", "pixel"],
            ("android-phone-pixel", "android-phone", "android", "pixel", "phone"),
        ),
    ],
)
def test_resolution_chain(segments: list[str], chain: tuple[str, ...]) -> None:
    assert resolution_chain(segments) == chain
    assert resolution_chain(tuple(segments)) == chain


@pytest.mark.parametrize(
    "segments",
    [
        ["android", "", "phone"],
        ["", "android", "phone", ""],
        ["android", "   ", "phone"],
        [" android ", "phone "],
    ],
)
def test_blank_segments_are_dropped(segments: list[str]) -> None:
    assert resolution_chain(segments) == ("android-phone", "android", "phone")


@pytest.mark.parametrize("segments", [[], [""], ["  ", ""]])
def test_no_segments_no_chain(segments: list[str]) -> None:
    assert resolution_chain(segments) == ()


def test_chain_has_no_duplicates() -> None:
    chain = resolution_chain(["android", "android-phone"])
    assert chain == ("android-android-phone", "android-android", "android", "android-phone")
    assert len(set(chain)) == len(chain)


def test_segments_for() -> None:
    assert segments_for("android", "phone") == ("android", "phone")
    assert segments_for("web") == ("web",)
    assert segments_for("ios", None) == ("ios",)
    assert resolution_chain(segments_for("ios", "ipad")) == ("ios-ipad", "ios", "ipad")


# -- resolve ----------------------------------------------------------------------------------
PHONE = resolution_chain(["android", "phone"])
TABLET = resolution_chain(["android", "tablet"])
IPAD = resolution_chain(["ios", "ipad"])
WEB = resolution_chain(["web"])

RECORDING = {
    "android": ["tap A"],
    "android-tablet": ["tap T"],
    "ios": ["tap I"],
    "web": [],
}


@pytest.mark.parametrize(
    ("chain", "expected"),
    [
        (TABLET, ("android-tablet", ["tap T"])),
        (PHONE, ("android", ["tap A"])),
        (IPAD, ("ios", ["tap I"])),
        (WEB, ("web", [])),
    ],
)
def test_closest_key_wins(chain: tuple[str, ...], expected: tuple[str, list[str]]) -> None:
    assert resolve(RECORDING, chain) == expected


def test_an_empty_recording_is_found_not_skipped() -> None:
    # `[]` is a passing no-op for that device; it must not fall through to a broader key
    assert resolve({"web": [], ANY_DEVICE: ["x"]}, WEB) == ("web", [])
    assert resolve({"android-phone": [], "android": ["x"]}, PHONE) == ("android-phone", [])


def test_segment_lineage_is_tried_after_the_compound_lineage() -> None:
    assert resolve({"phone": 1, "android": 2}, PHONE) == ("android", 2)
    assert resolve({"phone": 1, "tablet": 2}, PHONE) == ("phone", 1)
    assert resolve({"revyl": 1, "ios-revyl": 2}, resolution_chain(["ios", "revyl-cloud"])) == ("ios-revyl", 2)


def test_any_device_matches_last() -> None:
    recording = {ANY_DEVICE: "any", "android": "android"}
    assert resolve(recording, PHONE) == ("android", "android")
    assert resolve(recording, IPAD) == (ANY_DEVICE, "any")
    assert resolve({ANY_DEVICE: "any", "phone": "phone"}, PHONE) == ("phone", "phone")
    assert resolve({ANY_DEVICE: "any"}, ()) == (ANY_DEVICE, "any")


@pytest.mark.parametrize("chain", [IPAD, WEB, ()])
def test_nothing_matches(chain: tuple[str, ...]) -> None:
    assert resolve({"android": 1, "android-phone": 2}, chain) is None
    assert resolve({}, chain) is None


def test_keys_are_exact_not_prefixes() -> None:
    assert resolve({"android-phone-37": 1, "androi": 2}, PHONE) is None


def test_resolve_accepts_any_iterable_chain() -> None:
    assert resolve(RECORDING, iter(TABLET)) == ("android-tablet", ["tap T"])


# -- device-type keys in real trails (``phone:``) -----------------------------------------------------
FORM_FACTOR_TRAIL = """\
config:
  id: form-factors
trailhead:
  step: Open the app
  recording:
    tablet:
      launchApp: {appId: com.example.tablet}
    phone:
      launchApp: {appId: com.example.phone}
trail:
  - step: Tap the big button
    recording:
      phone:
        - tapOnPoint: {x: 1, y: 1}
      tablet:
        - tapOnPoint: {x: 2, y: 2}
      ipad:
        - tapOnPoint: {x: 3, y: 3}
  - step: Platform first, then the device type
    recording:
      phone: []
      android:
        - wait: {timeToWaitInSeconds: 0}
      iphone:
        - wait: {timeToWaitInSeconds: 1}
  - step: The compound beats everything
    recording:
      phone: []
      android: []
      android-phone:
        - wait: {timeToWaitInSeconds: 2}
"""


def _planned(chain: tuple[str, ...]) -> list[tuple[str | None, list[dict[str, object]] | None]]:
    trail = parse_trail(FORM_FACTOR_TRAIL, "form-factors.trail.yaml")
    plan = plan_trail(trail, chain)
    steps = [plan.trailhead, *plan.steps]
    return [
        (s.matched, None if s.calls is None else [{c.name: dict(c.args)} for c in s.calls])
        for s in steps
        if s is not None
    ]


def test_device_type_keys_load_and_name_their_platforms() -> None:
    trail = parse_trail(FORM_FACTOR_TRAIL, "form-factors.trail.yaml")
    assert set(trail.classifiers()) == {"tablet", "phone", "ipad", "android", "iphone", "android-phone"}
    assert trail.platforms() == ("android", "ios")


def test_a_phone_takes_its_phone_recordings_where_nothing_closer_exists() -> None:
    assert _planned(PHONE) == [
        ("phone", [{"launchApp": {"appId": "com.example.phone"}}]),
        ("phone", [{"tapOnPoint": {"x": 1, "y": 1}}]),
        ("android", [{"wait": {"timeToWaitInSeconds": 0}}]),  # android-phone, android, then phone
        ("android-phone", [{"wait": {"timeToWaitInSeconds": 2}}]),
    ]


def test_a_tablet_takes_its_tablet_recordings() -> None:
    assert _planned(TABLET) == [
        ("tablet", [{"launchApp": {"appId": "com.example.tablet"}}]),
        ("tablet", [{"tapOnPoint": {"x": 2, "y": 2}}]),
        ("android", [{"wait": {"timeToWaitInSeconds": 0}}]),
        ("android", []),
    ]


def test_device_types_of_another_platform_never_match() -> None:
    iphone = resolution_chain(["ios", "iphone"])
    assert _planned(iphone) == [
        (None, None),  # phone / tablet are Android's: no recording for an iPhone
        (None, None),
        ("iphone", [{"wait": {"timeToWaitInSeconds": 1}}]),
        (None, None),
    ]
    assert _planned(IPAD)[1] == ("ipad", [{"tapOnPoint": {"x": 3, "y": 3}}])


def test_a_misspelt_device_type_is_still_a_located_error() -> None:
    bad = FORM_FACTOR_TRAIL.replace(
        "      tablet:\n        - tapOnPoint", "      tablets:\n        - tapOnPoint"
    )
    with pytest.raises(TrailblazeError) as error:
        parse_trail(bad, "form-factors.trail.yaml")
    text = str(error.value)
    assert "form-factors.trail.yaml:15:7: unknown device classifier 'tablets'" in text
    assert "fix: did you mean 'tablet'?" in text
