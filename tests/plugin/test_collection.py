"""Collection: which files become trails, item names, platforms per trail, deterministic ids."""

from __future__ import annotations

import pytest

WEB_STEP = """
trail:
  - step: Do nothing on the web
    recording:
      web: []
"""

NL_ONLY = """
trail:
  - step: Open the app and look around
"""


def collected(result: pytest.RunResult) -> list[str]:
    """Node ids printed by ``--collect-only -q``, in order."""
    return [line for line in result.outlines if "::" in line and not line.startswith(("ERROR", "FAILED"))]


def test_trail_files_are_collected_and_other_yaml_is_not(pytester: pytest.Pytester, tb) -> None:
    tb.write(pytester.path, "trails/login.trail.yaml", WEB_STEP)
    tb.write(pytester.path, "trails/checkout/trail.yaml", WEB_STEP)
    tb.write(pytester.path, "trails/trailblaze.yaml", WEB_STEP)
    tb.write(pytester.path, "trails/settings.yaml", WEB_STEP)
    tb.write(pytester.path, "trails/notes.trail.yml", WEB_STEP)
    tb.write(pytester.path, "trails/trail.yaml.bak", WEB_STEP)

    result = pytester.runpytest("--collect-only", "-q")

    assert collected(result) == [
        "trails/checkout/trail.yaml::checkout[web]",
        "trails/login.trail.yaml::login[web]",
    ]
    assert result.ret == 0


def test_ini_patterns_replace_the_default_patterns(pytester: pytest.Pytester, tb) -> None:
    pytester.makeini("[pytest]\ntrailblaze_patterns =\n    *.flow.yaml\n    *.yaml\n")
    tb.write(pytester.path, "trails/login.flow.yaml", WEB_STEP)
    tb.write(pytester.path, "trails/other.yaml", WEB_STEP)
    tb.write(pytester.path, "trails/trailblaze.yaml", WEB_STEP)

    result = pytester.runpytest("--collect-only", "-q")

    files = [line.split("::", 1)[0] for line in collected(result)]
    assert files == ["trails/login.flow.yaml", "trails/other.yaml"], "trailblaze.yaml is never a trail"


def test_ini_pattern_without_the_defaults_stops_collecting_trail_yaml(pytester: pytest.Pytester, tb) -> None:
    pytester.makeini("[pytest]\ntrailblaze_patterns = *.flow.yaml\n")
    tb.write(pytester.path, "trails/login.flow.yaml", WEB_STEP)
    tb.write(pytester.path, "trails/login.trail.yaml", WEB_STEP)
    tb.write(pytester.path, "trails/checkout/trail.yaml", WEB_STEP)

    result = pytester.runpytest("--collect-only", "-q")

    assert [line.split("::", 1)[0] for line in collected(result)] == ["trails/login.flow.yaml"]


def test_item_names_come_from_config_id_or_the_path(pytester: pytest.Pytester, tb) -> None:
    tb.write(pytester.path, "suite/trails/web/login.trail.yaml", WEB_STEP)
    tb.write(pytester.path, "suite/trails/web/checkout/trail.yaml", WEB_STEP)
    tb.write(pytester.path, "suite/trails/shop/cart.trail.yaml", "config:\n  id: shop/the-cart\n" + WEB_STEP)
    tb.write(pytester.path, "suite/trails/nested/trails/deep.trail.yaml", WEB_STEP)
    tb.write(
        pytester.path,
        "suite/trails/legacy/about/android-phone.trail.yaml",
        """
        - prompts:
            - step: Check the version number
              recording:
                tools:
                  - assertVisibleWithText: { text: "1.0.0" }
        """,
    )

    result = pytester.runpytest("--collect-only", "-q", "suite")

    assert sorted(collected(result)) == sorted(
        [
            "suite/trails/legacy/about/android-phone.trail.yaml::legacy/about[android]",
            "suite/trails/nested/trails/deep.trail.yaml::deep[web]",
            "suite/trails/shop/cart.trail.yaml::shop/the-cart[web]",
            "suite/trails/web/checkout/trail.yaml::web/checkout[web]",
            "suite/trails/web/login.trail.yaml::web/login[web]",
        ]
    )


def test_one_item_per_platform_in_platform_order(pytester: pytest.Pytester, tb) -> None:
    tb.write(
        pytester.path,
        "trails/everywhere.trail.yaml",
        """
        config:
          devices:
            desktop: COMPOSE
        trailhead:
          step: Start
          recording:
            ios-iphone:
              launchApp: { appId: com.example }
        trail:
          - step: Tap
            recording:
              web: []
              android-tablet: []
        """,
    )
    tb.write(
        pytester.path,
        "trails/devices-only.trail.yaml",
        """
        config:
          devices:
            web: PLAYWRIGHT_NATIVE
            android-phone: ANDROID_ONDEVICE_ACCESSIBILITY
        trail:
          - step: Look around
        """,
    )

    result = pytester.runpytest("--collect-only", "-q")

    assert collected(result) == [
        "trails/devices-only.trail.yaml::devices-only[android]",
        "trails/devices-only.trail.yaml::devices-only[web]",
        "trails/everywhere.trail.yaml::everywhere[android]",
        "trails/everywhere.trail.yaml::everywhere[ios]",
        "trails/everywhere.trail.yaml::everywhere[web]",
        "trails/everywhere.trail.yaml::everywhere[desktop]",
    ]


def test_a_trail_without_classifiers_runs_on_the_configured_platform(pytester: pytest.Pytester, tb) -> None:
    tb.write(pytester.path, "trails/explore.trail.yaml", NL_ONLY)
    tb.write(pytester.path, "trails/legacy.trail.yaml", "- tools:\n    - wait: { timeToWaitInSeconds: 0 }\n")

    default = pytester.runpytest("--collect-only", "-q")
    android = pytester.runpytest("--collect-only", "-q", "--trailblaze-platform", "android")

    assert collected(default) == [
        "trails/explore.trail.yaml::explore[web]",
        "trails/legacy.trail.yaml::legacy[web]",
    ]
    assert collected(android) == [
        "trails/explore.trail.yaml::explore[android]",
        "trails/legacy.trail.yaml::legacy[android]",
    ]


def test_ids_are_identical_across_processes_and_hash_seeds(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tb
) -> None:
    for index, classifiers in enumerate(["web, ios-ipad, android-phone", "android, web", "desktop, ios"]):
        steps = "\n".join(f"      {c.strip()}: []" for c in classifiers.split(","))
        tb.write(
            pytester.path, f"trails/t{index}.trail.yaml", f"trail:\n  - step: s\n    recording:\n{steps}\n"
        )
    tb.write(pytester.path, "trails/nl/trail.yaml", NL_ONLY)

    runs = []
    for seed in ("1", "2", "3"):
        monkeypatch.setenv("PYTHONHASHSEED", seed)
        runs.append(collected(pytester.runpytest_subprocess("--collect-only", "-q", "-p", "no:randomly")))

    assert runs[0] == runs[1] == runs[2]
    assert len(runs[0]) == 8
