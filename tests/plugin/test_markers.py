"""Markers on trail items: platforms, tags, the ``trailblaze`` marker, ``-k``, and skips."""

from __future__ import annotations

import json

import pytest

#: Prints every item's markers at the end of collection, one ``TBMARK`` line per item.
MARKER_PRINTER = """
import json

def pytest_collection_finish(session):
    for item in session.items:
        facts = item.get_closest_marker("trailblaze")
        skip = item.get_closest_marker("skip")
        names = sorted({m.name for m in item.iter_markers()} - {"trailblaze", "skip"})
        print("TBMARK", item.nodeid, json.dumps({
            "trailblaze": dict(facts.kwargs) if facts else None,
            "skip": skip.kwargs.get("reason") if skip else None,
            "markers": names,
        }, sort_keys=True, default=list))
"""

TWO_PLATFORMS = """
config:
  id: shop/checkout
  target: shop
  tags: [smoke, slow-net]
  devices:
    android: ANDROID_ONDEVICE_INSTRUMENTATION
    web: PLAYWRIGHT_NATIVE
trail:
  - step: Pay
    recording:
      web: []
      android-phone:
        - tapOnElementWithText: { text: Pay }
"""


def markers(result: pytest.RunResult) -> dict[str, dict]:
    """The ``TBMARK`` lines of a run, by node id."""
    found = {}
    for line in result.outlines:
        if line.startswith("TBMARK "):
            _, nodeid, payload = line.split(" ", 2)
            found[nodeid] = json.loads(payload)
    return found


def selected(result: pytest.RunResult) -> list[str]:
    return [line for line in result.outlines if "::" in line and not line.startswith(("TBMARK", "ERROR"))]


@pytest.fixture
def two_platforms(pytester: pytest.Pytester, tb) -> pytest.Pytester:
    tb.write(pytester.path, "trails/shop/checkout.trail.yaml", TWO_PLATFORMS)
    tb.write(
        pytester.path, "trails/web/search.trail.yaml", "trail:\n  - step: s\n    recording:\n      web: []\n"
    )
    return pytester


def test_platform_markers_select_items(two_platforms: pytest.Pytester) -> None:
    web = two_platforms.runpytest("--collect-only", "-q", "-m", "web", "--strict-markers")
    android = two_platforms.runpytest("--collect-only", "-q", "-m", "android", "--strict-markers")
    ios = two_platforms.runpytest("--collect-only", "-q", "-m", "ios", "--strict-markers")

    assert selected(web) == [
        "trails/shop/checkout.trail.yaml::shop/checkout[web]",
        "trails/web/search.trail.yaml::web/search[web]",
    ]
    assert selected(android) == ["trails/shop/checkout.trail.yaml::shop/checkout[android]"]
    assert selected(ios) == []
    assert ios.ret == pytest.ExitCode.NO_TESTS_COLLECTED


def test_tags_become_markers_with_dashes_as_underscores(two_platforms: pytest.Pytester) -> None:
    smoke = two_platforms.runpytest("--collect-only", "-q", "-m", "smoke", "--strict-markers")
    slow = two_platforms.runpytest("--collect-only", "-q", "-m", "slow_net and web", "--strict-markers")
    not_smoke = two_platforms.runpytest("--collect-only", "-q", "-m", "not smoke", "--strict-markers")

    assert selected(smoke) == [
        "trails/shop/checkout.trail.yaml::shop/checkout[android]",
        "trails/shop/checkout.trail.yaml::shop/checkout[web]",
    ]
    assert selected(slow) == ["trails/shop/checkout.trail.yaml::shop/checkout[web]"]
    assert selected(not_smoke) == ["trails/web/search.trail.yaml::web/search[web]"]


def test_strict_markers_run_is_clean_and_markers_are_listed(two_platforms: pytest.Pytester) -> None:
    result = two_platforms.runpytest("--strict-markers", "-m", "android")
    listing = two_platforms.runpytest("--markers")

    result.assert_outcomes(skipped=1, deselected=2)
    assert "not found in `markers` configuration option" not in result.stdout.str()
    listing.stdout.fnmatch_lines(
        ["@pytest.mark.android:*", "@pytest.mark.ios:*", "@pytest.mark.web:*", "@pytest.mark.trailblaze*"]
    )


def test_trailblaze_marker_carries_target_trail_id_driver_and_platform(
    two_platforms: pytest.Pytester,
) -> None:
    two_platforms.makeconftest(MARKER_PRINTER)

    result = two_platforms.runpytest("--collect-only", "-q", "-s", "--strict-markers")
    found = markers(result)

    android = found["trails/shop/checkout.trail.yaml::shop/checkout[android]"]
    web = found["trails/shop/checkout.trail.yaml::shop/checkout[web]"]
    search = found["trails/web/search.trail.yaml::web/search[web]"]
    assert android["trailblaze"]["target"] == "shop"
    assert android["trailblaze"]["trail_id"] == "shop/checkout"
    assert android["trailblaze"]["driver"] == "ANDROID_ONDEVICE_INSTRUMENTATION"
    assert android["trailblaze"]["platform"] == "android"
    assert web["trailblaze"]["driver"] == "PLAYWRIGHT_NATIVE"
    assert web["trailblaze"]["platform"] == "web"
    assert search["trailblaze"]["trail_id"] == "web/search"
    assert search["trailblaze"]["target"] is None
    assert search["trailblaze"]["driver"] is None
    assert set(android["markers"]) >= {"android", "smoke", "slow_net"}
    assert "web" not in android["markers"]
    assert set(web["markers"]) >= {"web", "smoke", "slow_net"}
    result.stdout.fnmatch_lines(["*driver pin ANDROID_ONDEVICE_INSTRUMENTATION (1 item)*"])


def test_driver_option_overrides_the_pin_of_its_platform(two_platforms: pytest.Pytester) -> None:
    two_platforms.makeconftest(MARKER_PRINTER)

    result = two_platforms.runpytest(
        "--collect-only", "-q", "-s", "--trailblaze-driver", "PLAYWRIGHT_ELECTRON"
    )
    found = markers(result)

    assert found["trails/shop/checkout.trail.yaml::shop/checkout[web]"]["trailblaze"]["driver"] == (
        "PLAYWRIGHT_ELECTRON"
    )
    assert (
        found["trails/web/search.trail.yaml::web/search[web]"]["trailblaze"]["driver"]
        == "PLAYWRIGHT_ELECTRON"
    )
    assert found["trails/shop/checkout.trail.yaml::shop/checkout[android]"]["trailblaze"]["driver"] == (
        "ANDROID_ONDEVICE_INSTRUMENTATION"
    )


def test_driver_pins_keyed_by_a_full_classifier_reach_the_marker(pytester: pytest.Pytester, tb) -> None:
    """Upstream pins are mostly ``ios-iphone: IOS_HOST`` / ``android-phone: ...``, not platform keys."""
    pytester.makeconftest(MARKER_PRINTER)
    tb.write(
        pytester.path,
        "trails/contacts.trail.yaml",
        """
        config:
          devices:
            ios-iphone: IOS_HOST
            android-phone: ANDROID_ONDEVICE_ACCESSIBILITY
        trail:
          - step: Open contacts
            recording:
              ios-iphone: []
              android-phone: []
        """,
    )

    result = pytester.runpytest("--collect-only", "-q", "-s")
    found = markers(result)

    assert found["trails/contacts.trail.yaml::contacts[ios]"]["trailblaze"]["driver"] == "IOS_HOST"
    assert found["trails/contacts.trail.yaml::contacts[android]"]["trailblaze"]["driver"] == (
        "ANDROID_ONDEVICE_ACCESSIBILITY"
    )
    result.stdout.fnmatch_lines(["*driver pin IOS_HOST (1 item)*"])


def test_k_selects_by_trail_id(two_platforms: pytest.Pytester) -> None:
    result = two_platforms.runpytest("--collect-only", "-q", "-k", "checkout and web")
    search = two_platforms.runpytest("--collect-only", "-q", "-k", "search")

    assert selected(result) == ["trails/shop/checkout.trail.yaml::shop/checkout[web]"]
    assert selected(search) == ["trails/web/search.trail.yaml::web/search[web]"]


def test_config_skip_is_closest_wins_per_platform(pytester: pytest.Pytester, tb) -> None:
    pytester.makeconftest(MARKER_PRINTER)
    tb.write(
        pytester.path,
        "trails/skips.trail.yaml",
        """
        config:
          skip:
            web: broken on the web
            android: "  "
            android-phone: phones crash
        trail:
          - step: s
            recording:
              web: []
              ios: []
              android-phone: []
        """,
    )
    tb.write(
        pytester.path,
        "trails/blank.trail.yaml",
        """
        config:
          skip:
            web: ""
        trail:
          - step: s
            recording:
              web: []
        """,
    )
    tb.write(
        pytester.path,
        "trails/nl.trail.yaml",
        """
        config:
          skip:
            ios-ipad: ""
            android: not ready anywhere
        trail:
          - step: Look around
        """,
    )

    found = markers(pytester.runpytest("--collect-only", "-q", "-s"))

    assert "broken on the web" in found["trails/skips.trail.yaml::skips[web]"]["skip"]
    # android: the closest key is blank, so config.skip does not skip it; ios has no key at all.
    # Neither is skipped at collection for lacking a driver: a make_driver hook may provide one
    # (test_hooks.py::test_a_make_driver_hook_serves_platforms_the_plugin_has_no_driver_for).
    assert found["trails/skips.trail.yaml::skips[android]"]["skip"] is None
    assert found["trails/skips.trail.yaml::skips[ios]"]["skip"] is None
    assert found["trails/blank.trail.yaml::blank[web]"]["skip"] is None
    assert "not ready anywhere" in found["trails/nl.trail.yaml::nl[web]"]["skip"]


def test_mobile_items_without_a_driver_are_skipped_with_the_fix(two_platforms: pytest.Pytester) -> None:
    result = two_platforms.runpytest("-rs", "-m", "android or ios")

    result.assert_outcomes(skipped=1, deselected=2)
    result.stdout.fnmatch_lines(["SKIPPED *no android driver configured*--trailblaze-appium-url*"])


def test_a_tag_starting_with_a_digit_still_collects(pytester: pytest.Pytester, tb) -> None:
    tb.write(
        pytester.path,
        "trails/fast.trail.yaml",
        "config:\n  tags: [2fast, smoke]\ntrail:\n  - step: s\n    recording:\n      web: []\n",
    )

    result = pytester.runpytest("--collect-only", "-q", "--strict-markers")

    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()
    assert selected(result) == ["trails/fast.trail.yaml::fast[web]"]
    assert result.ret == pytest.ExitCode.OK
