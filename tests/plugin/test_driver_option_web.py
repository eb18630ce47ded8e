"""``--trailblaze-driver``: the sessions of its platform report that upstream driver (real runs).

The plugin still drives the browser with Playwright, but what depends on the driver follows the
option: Python tools and MCP tools filtered by driver, the MCP server's ``TRAILBLAZE_DEVICE_DRIVER``
and ``_trailblazeContext.device.driverType``, the device info tools see, the JUnit ``driver``
property and the ``trailblaze`` marker. The MCP server is the MCP tests' Python fixture server.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest

REPO = Path(__file__).resolve().parents[2]
PY_SERVER = REPO / "tests" / "mcp" / "servers" / "py_server.py"
FAST = ("--trailblaze-screenshots=off", "--trailblaze-mcp-handshake-timeout=30", "-p", "no:randomly")

CONFTEST = """
import json, pathlib, re

import pytest_trailblaze as tb

OUT = pathlib.Path(__file__).parent / "seen"


@tb.tool(drivers=["playwright-electron"])
def electronOnly(ctx) -> str:
    \"\"\"A tool for Electron sessions only.\"\"\"
    return "electron tool ran"


@tb.tool(drivers=["playwright-native"])
def nativeOnly(ctx) -> str:
    \"\"\"A tool for Playwright-native sessions only.\"\"\"
    return "native tool ran"


@tb.tool()
def whoAmI(ctx) -> str:
    \"\"\"The device as tools see it.\"\"\"
    return json.dumps(ctx.device.as_context())


def pytest_trailblaze_register_tools(registry, config):
    for tool in (electronOnly, nativeOnly, whoAmI):
        registry.register(tool)


def pytest_trailblaze_after_tool(name, args, result, context):
    OUT.mkdir(exist_ok=True)
    item = re.sub(r"[^A-Za-z0-9]+", "-", context.trail_path.rsplit("/", 1)[-1])
    path = OUT / f"{item}.json"
    seen = json.loads(path.read_text()) if path.exists() else {}
    seen[name] = result.message
    path.write_text(json.dumps(seen))
"""

#: The fixture server is copied next to the trailmap: a ``script:`` must lie inside the workspace.
TRAILMAP = """id: fx
target:
  display_name: Fixture
  mcp_servers:
    - script: py_server.py
  platforms:
    web: {}
"""


def trail(trail_id: str, *calls: str) -> str:
    body = "".join(f"        - {call}: {{}}\n" for call in calls)
    return (
        f"config:\n  id: {trail_id}\n  target: fx\ntrail:\n  - step: Call\n    recording:\n      web:\n{body}"
    )


@pytest.fixture
def project(pytester: pytest.Pytester) -> Path:
    config = pytester.path / "trails" / "config"
    (config / "trailmaps" / "fx").mkdir(parents=True)
    (config / "trailblaze.yaml").write_text("targets: [fx]\n")
    (config / "trailmaps" / "fx" / "trailmap.yaml").write_text(TRAILMAP)
    shutil.copy(PY_SERVER, config / "trailmaps" / "fx" / "py_server.py")
    pytester.makeconftest(CONFTEST)
    trails = {
        "electron": ("electronOnly", "whoAmI", "pyfx_env", "pyfx_context"),
        "native": ("nativeOnly", "whoAmI", "pyfx_env"),
        "mcpnative": ("pyfx_playwrightDriver",),
    }
    for name, calls in trails.items():
        (pytester.path / "trails" / f"{name}.trail.yaml").write_text(trail(f"fx/{name}", *calls))
    return pytester.path


def junit(path: Path) -> dict[str, dict[str, Any]]:
    cases = {}
    for case in ElementTree.parse(path).iter("testcase"):
        failure = case.find("failure")
        cases[case.get("name", "")] = {
            "properties": {p.get("name"): p.get("value") for p in case.iter("property")},
            "failure": None if failure is None else (failure.get("message") or "") + (failure.text or ""),
        }
    return cases


def seen(project: Path, name: str) -> dict[str, Any]:
    return json.loads((project / "seen" / f"{name}-trail-yaml.json").read_text())


def test_without_the_option_sessions_report_playwright_native(
    pytester: pytest.Pytester, project: Path
) -> None:
    result = pytester.runpytest_subprocess(*FAST, f"--junitxml={project / 'j.xml'}", timeout=120)
    result.assert_outcomes(passed=2, failed=1)
    cases = junit(project / "j.xml")
    assert (
        "runs with drivers playwright-electron, not with playwright-native"
        in cases["fx/electron[web]"]["failure"]
    )
    native = seen(project, "native")
    assert json.loads(native["whoAmI"])["driverType"] == "playwright-native"
    assert json.loads(native["pyfx_env"])["env"]["TRAILBLAZE_DEVICE_DRIVER"] == "playwright-native"
    assert cases["fx/native[web]"]["properties"]["driver"] == "playwright-native"


@pytest.mark.parametrize("spelling", ["PLAYWRIGHT_ELECTRON", "playwright-electron"])
def test_the_option_changes_the_reported_driver_and_the_tools(
    pytester: pytest.Pytester, project: Path, spelling: str
) -> None:
    result = pytester.runpytest_subprocess(
        *FAST, f"--junitxml={project / 'j.xml'}", f"--trailblaze-driver={spelling}", timeout=120
    )
    result.assert_outcomes(passed=1, failed=2)
    cases = junit(project / "j.xml")

    electron = seen(project, "electron")
    assert electron["electronOnly"] == "electron tool ran"
    assert json.loads(electron["whoAmI"]) == {
        "platform": "web",
        "widthPixels": 1280,
        "heightPixels": 800,
        "driverType": "playwright-electron",
    }
    assert json.loads(electron["pyfx_env"])["env"]["TRAILBLAZE_DEVICE_DRIVER"] == "playwright-electron"
    assert json.loads(electron["pyfx_context"])["raw"]["device"]["driverType"] == "playwright-electron"
    assert cases["fx/electron[web]"]["properties"]["driver"] == "playwright-electron"

    # tools for the other driver are not offered to this session any more
    assert (
        "runs with drivers playwright-native, not with playwright-electron"
        in cases["fx/native[web]"]["failure"]
    )
    mcp_native = cases["fx/mcpnative[web]"]["failure"]
    assert "unknown tool 'pyfx_playwrightDriver'" in mcp_native  # its supportedDrivers exclude the session


def test_the_option_reaches_the_marker(pytester: pytest.Pytester, project: Path) -> None:
    pytester.makeconftest(
        CONFTEST
        + """
def pytest_collection_modifyitems(items):
    for item in items:
        print("MARK", item.nodeid, item.get_closest_marker("trailblaze").kwargs["driver"])
"""
    )
    result = pytester.runpytest_subprocess(
        "--collect-only", "-q", "-s", "--trailblaze-driver=playwright-electron"
    )
    result.stdout.fnmatch_lines(["MARK *electron.trail.yaml::fx/electron[[]web[]] PLAYWRIGHT_ELECTRON"])


def test_a_driver_of_another_platform_leaves_web_sessions_alone(
    pytester: pytest.Pytester, project: Path
) -> None:
    result = pytester.runpytest_subprocess(
        *FAST, f"--junitxml={project / 'j.xml'}", "--trailblaze-driver=IOS_HOST", timeout=120
    )
    result.assert_outcomes(passed=2, failed=1)
    assert junit(project / "j.xml")["fx/native[web]"]["properties"]["driver"] == "playwright-native"


def test_an_unknown_driver_is_a_usage_error(pytester: pytest.Pytester, project: Path) -> None:
    result = pytester.runpytest_subprocess("--trailblaze-driver=selenium")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--trailblaze-driver: unknown driver 'selenium'*PLAYWRIGHT_ELECTRON*"])
