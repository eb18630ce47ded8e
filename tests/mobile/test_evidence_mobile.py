"""Failure evidence of mobile trails on the real Appium server (fake driver): the page source XML
and a screenshot next to the failure, and ``--trailblaze-video`` asking Appium to record the
screen. The fake driver cannot record: the command is sent (the server's log shows it), the
trail runs on, and the run says clearly which driver could not record and why. A test-only driver
that can (``tests/appium/recording-driver``) leaves its recording as ``video.mp4``."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING
from xml.etree import ElementTree

import pytest

if TYPE_CHECKING:
    from conftest import AppiumServer

APP = Path(__file__).resolve().parent / "apps" / "android.xml"

FAILING = """
config: { id: mobile-evidence/failing }
trail:
  - step: Type the user name
    recording:
      android:
        - tapOnElementBySelector:
            nodeSelector: { androidAccessibility: { resourceIdRegex: ".*:id/username" } }
        - inputText: { text: "{{user}}", hideKeyboardAfter: false }
  - verify: A banner that never shows
    recording:
      android:
        - assertVisibleBySelector:
            nodeSelector: { androidAccessibility: { textRegex: Welcome back } }
            timeoutMs: 300
"""


def _run(
    pytester: pytest.Pytester, server: AppiumServer, *args: str, automation: str = "Fake"
) -> pytest.RunResult:
    (pytester.path / "trails").mkdir(exist_ok=True)
    (pytester.path / "trails" / "failing.trail.yaml").write_text(FAILING)
    caps = pytester.path / "caps.yaml"
    caps.write_text(
        f"android:\n  platformName: Fake\n  appium:automationName: {automation}\n  appium:app: {APP}\n"
    )
    return pytester.runpytest_subprocess(
        f"--trailblaze-appium-url={server.url}",
        f"--trailblaze-appium-caps={caps}",
        "-m", "android", "-p", "no:randomly",
        *args,
        timeout=120,
    )  # fmt: skip


def _record(root: Path) -> dict:
    (path,) = (root / "trailblaze-output").glob("*/record.json")
    return json.loads(path.read_text())


def test_a_failure_keeps_the_page_source_and_a_screenshot(
    pytester: pytest.Pytester, appium_server: AppiumServer
) -> None:
    result = _run(pytester, appium_server, "--trailblaze-secret=user=Qx7mobileSECRET")

    result.assert_outcomes(failed=1)
    record = _record(pytester.path)
    folder = pytester.path / record["artifacts_dir"]
    source = (folder / "failure-source.xml").read_text()
    ids = {e.get("resource-id") for e in ElementTree.fromstring(source).iter()}
    assert "com.test:id/username" in ids
    assert "Qx7mobileSECRET" not in source
    assert (folder / "failure.png").read_bytes().startswith(b"\x89PNG")
    kinds = {a["path"]: a["kind"] for a in record["artifacts"]}
    assert kinds["failure-source.xml"] == "page source" and kinds["failure.png"] == "failure screenshot"
    shown = re.search(r"page source: (\S+failure-source.xml)", result.stdout.str())
    assert shown and (pytester.path / shown.group(1)).is_file()
    assert [s["outcome"] for s in record["steps"]] == ["passed", "failed"]


def test_video_on_a_driver_that_cannot_record_is_a_note_not_a_failure(
    pytester: pytest.Pytester, start_appium
) -> None:
    server = start_appium("--log-level", "info")
    result = _run(pytester, server, "--trailblaze-video=on", "--trailblaze-memory=user=ada")

    result.assert_outcomes(failed=1)  # the trail's own failure, nothing more
    note = (
        "video: not recorded on android: the Appium driver 'Fake' cannot record the screen "
        "(start_recording_screen: "
    )
    record = _record(pytester.path)
    assert any(n.startswith(note) for n in record["notes"]), record["notes"]
    assert not [a for a in record["artifacts"] if a["kind"] == "video"]
    result.stdout.fnmatch_lines([f"note: {note}*"])
    assert re.search(r"POST /session/[\w-]+/appium/start_recording_screen", server.log.read_text())


def test_video_on_a_driver_that_records_keeps_the_sessions_recording(
    pytester: pytest.Pytester, appium_server: AppiumServer
) -> None:
    """A driver that serves Appium's screen-recording commands (``tests/appium/recording-driver``:
    the fake driver plus the two commands, as UiAutomator2 and XCUITest serve them): the recording
    starts with the trail and is kept as ``video.mp4`` beside the failure."""
    result = _run(pytester, appium_server, "--trailblaze-video=retain-on-failure", automation="RecordingFake")

    result.assert_outcomes(failed=1)
    record = _record(pytester.path)
    assert not [n for n in record["notes"] if n.startswith("video:")], record["notes"]
    (video,) = [a["path"] for a in record["artifacts"] if a["kind"] == "video"]
    data = (pytester.path / record["artifacts_dir"] / video).read_bytes()
    assert data[4:12] == b"ftypmp42"  # the MP4 the driver sent, byte for byte
    assert re.fullmatch(rb" session [\w-]+", data[12:])
