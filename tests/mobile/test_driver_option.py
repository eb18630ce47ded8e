"""``--trailblaze-driver`` on Android: an Appium session reporting an upstream on-device driver.

Trails and MCP tools written for ``ANDROID_ONDEVICE_ACCESSIBILITY`` (``_meta`` ``supportedDrivers``)
run on this plugin's Appium session once the option names that driver: the server registers the
tool for the session, sees the driver in its environment and call context, and the reports carry
it. Without the option the same tool is not offered. Real pytest runs, real Appium (fake driver),
the MCP tests' Python fixture server.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import TYPE_CHECKING
from xml.etree import ElementTree

import pytest

if TYPE_CHECKING:  # the fixtures' types; at run time the fixtures come from conftest.py
    from conftest import AppiumServer

REPO = Path(__file__).resolve().parents[2]
PY_SERVER = REPO / "tests" / "mcp" / "servers" / "py_server.py"
APP = Path(__file__).resolve().parent / "apps" / "android.xml"

#: The fixture server is copied next to the trailmap: a ``script:`` must lie inside the workspace.
TRAILMAP = """id: fx
target:
  display_name: Fixture
  mcp_servers:
    - script: py_server.py
  platforms:
    android: {}
"""
TRAIL = """config:
  id: fx/on-device
  target: fx
trail:
  - step: Use the tools written for the accessibility driver
    recording:
      android:
        - tapOnElementWithText: {text: Submit}
        - pyfx_env: {}
        - pyfx_context: {}
        - pyfx_androidDriver: {}
"""
RECORDER = """
import json, pathlib

def pytest_trailblaze_after_tool(name, args, result, context):
    if name.startswith("pyfx_"):
        path = pathlib.Path(__file__).parent / "seen.json"
        seen = json.loads(path.read_text()) if path.exists() else {}
        seen[name] = result.message
        path.write_text(json.dumps(seen))
"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> Path:
    config = pytester.path / "trails" / "config"
    (config / "trailmaps" / "fx").mkdir(parents=True)
    (config / "trailblaze.yaml").write_text("targets: [fx]\n")
    (config / "trailmaps" / "fx" / "trailmap.yaml").write_text(TRAILMAP)
    shutil.copy(PY_SERVER, config / "trailmaps" / "fx" / "py_server.py")
    (pytester.path / "trails" / "on-device.trail.yaml").write_text(TRAIL)
    caps = f"android:\n  platformName: Fake\n  appium:automationName: Fake\n  appium:app: {APP}\n"
    (pytester.path / "caps.yaml").write_text(caps)
    pytester.makeconftest(RECORDER)
    return pytester.path


def run(pytester: pytest.Pytester, appium_server: AppiumServer, *extra: str) -> pytest.RunResult:
    return pytester.runpytest_subprocess(
        "-m",
        "android",
        f"--trailblaze-appium-url={appium_server.url}",
        f"--trailblaze-appium-caps={pytester.path / 'caps.yaml'}",
        f"--junitxml={pytester.path / 'junit.xml'}",
        "--trailblaze-screenshots=off",
        "--trailblaze-mcp-handshake-timeout=30",
        *extra,
        timeout=120,
    )


def driver_property(project: Path) -> str | None:
    (case,) = ElementTree.parse(project / "junit.xml").iter("testcase")
    return {p.get("name"): p.get("value") for p in case.iter("property")}.get("driver")


def test_an_appium_session_reports_the_named_android_driver(
    pytester: pytest.Pytester, project: Path, appium_server: AppiumServer
) -> None:
    result = run(pytester, appium_server, "--trailblaze-driver=ANDROID_ONDEVICE_ACCESSIBILITY")
    result.assert_outcomes(passed=1)
    seen = json.loads((project / "seen.json").read_text())
    assert seen["pyfx_androidDriver"] == "pyfx_androidDriver ran"
    assert json.loads(seen["pyfx_env"])["env"]["TRAILBLAZE_DEVICE_DRIVER"] == "android-ondevice-accessibility"
    assert json.loads(seen["pyfx_env"])["env"]["TRAILBLAZE_DEVICE_PLATFORM"] == "ANDROID"
    device = json.loads(seen["pyfx_context"])["raw"]["device"]
    assert device == {
        "platform": "android",
        "widthPixels": 1080,
        "heightPixels": 2400,
        "driverType": "android-ondevice-accessibility",
    }
    assert driver_property(project) == "android-ondevice-accessibility"


def test_without_the_option_the_session_is_appium_and_the_tool_is_not_offered(
    pytester: pytest.Pytester, project: Path, appium_server: AppiumServer
) -> None:
    result = run(pytester, appium_server)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*unknown tool 'pyfx_androidDriver'*"])
    seen = json.loads((project / "seen.json").read_text())
    assert json.loads(seen["pyfx_env"])["env"]["TRAILBLAZE_DEVICE_DRIVER"] == "appium-android"
    assert driver_property(project) == "appium-android"
