"""Device-type recording keys (``phone:``, ``tablet:``, ``iphone:``, ``ipad:``) end to end.

A device's closest-wins chain ends at its device type (``[android, phone]`` tries ``android-phone``,
``android``, then ``phone``), so such keys load, collect as items of their platform, and replay on
the device the real Appium session measures. Each branch below fails on purpose with a message that
names it (``assertEquals`` is instant and runs on every platform), so the report shows which
recording ran on which device.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING
from xml.etree import ElementTree

import pytest

if TYPE_CHECKING:  # the fixtures' types; at run time the fixtures come from conftest.py
    from conftest import AppiumServer

APPS = Path(__file__).resolve().parent / "apps"


def trail(trail_id: str, keys: tuple[str, ...]) -> str:
    """One step whose recording under each key fails saying which key it was."""
    head = f"config:\n  id: {trail_id}\ntrail:\n  - step: Which recording runs\n    recording:\n"
    return head + "".join(
        f"      {key}:\n        - assertEquals: {{actual: ran {key}, expected: nothing}}\n" for key in keys
    )


TRAILS = {
    "trails/types.trail.yaml": trail("types", ("phone", "tablet", "iphone", "ipad")),
    "trails/closest.trail.yaml": trail("closest", ("phone", "android", "ipad", "ios-ipad")),
}


def caps(folder: Path, android: str, ios: str) -> Path:
    path = folder / f"caps-{android}-{ios}.yaml"
    lines = []
    for platform, app in (("android", android), ("ios", ios)):
        lines += [f"{platform}:", "  platformName: Fake", "  appium:automationName: Fake"]
        lines.append(f"  appium:app: {APPS / app}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def failures(junit: Path) -> dict[str, str]:
    """Test name -> its failure message, for every case of the JUnit file."""
    found = {}
    for case in ElementTree.parse(junit).iter("testcase"):
        failure = case.find("failure")
        found[case.get("name", "")] = (
            "" if failure is None else (failure.get("message") or "") + (failure.text or "")
        )
    return found


@pytest.fixture
def trails(pytester: pytest.Pytester) -> Path:
    for relpath, text in TRAILS.items():
        (pytester.path / relpath).parent.mkdir(parents=True, exist_ok=True)
        (pytester.path / relpath).write_text(text, encoding="utf-8")
    return pytester.path / "trails"


def test_device_type_keys_collect_as_items_of_their_platform(pytester: pytest.Pytester, trails: Path) -> None:
    result = pytester.runpytest_subprocess(str(trails), "--collect-only", "-q")
    result.stdout.fnmatch_lines(
        [
            "*closest.trail.yaml::closest[[]android[]]",
            "*closest.trail.yaml::closest[[]ios[]]",
            "*types.trail.yaml::types[[]android[]]",
            "*types.trail.yaml::types[[]ios[]]",
        ]
    )
    assert result.ret == 0
    assert "unknown device classifier" not in result.stdout.str()


@pytest.mark.parametrize(
    ("android_app", "ios_app", "expected"),
    [
        (
            "android.xml",
            "ios.xml",
            {
                "types[android]": "phone",
                "types[ios]": "iphone",
                "closest[android]": "android",  # android-phone, android, phone: the platform is closer
                "closest[ios]": None,  # ios-iphone, ios, iphone: no key (ipad is another device type)
            },
        ),
        (
            "android-tablet.xml",
            "ipad.xml",
            {
                "types[android]": "tablet",
                "types[ios]": "ipad",
                "closest[android]": "android",
                "closest[ios]": "ios-ipad",  # the compound beats the bare device type
            },
        ),
    ],
)
def test_the_measured_device_picks_its_recording(
    pytester: pytest.Pytester,
    trails: Path,
    appium_server: AppiumServer,
    android_app: str,
    ios_app: str,
    expected: dict[str, str | None],
) -> None:
    junit = pytester.path / f"junit-{android_app}.xml"
    result = pytester.runpytest_subprocess(
        str(trails),
        f"--trailblaze-appium-url={appium_server.url}",
        f"--trailblaze-appium-caps={caps(pytester.path, android_app, ios_app)}",
        f"--junitxml={junit}",
        "--trailblaze-agent-steps=fail",
        "-p",
        "no:randomly",
        timeout=120,
    )
    found = failures(junit)
    for name, ran in expected.items():
        message = found[name]
        if ran is None:
            assert "needs an agent: no recording for ios-iphone" in message, (name, message)
        else:
            assert f"got 'ran {ran}'" in message, (name, message)
    assert result.ret == 1
    assert "unknown device classifier" not in result.stdout.str()
