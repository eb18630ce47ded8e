"""``--collect-only`` lists items without importing Playwright or starting a browser."""

from __future__ import annotations

import uuid

import pytest

PROBE = """
import sys

HEAVY = ("playwright", "greenlet", "appium", "mcp")

def _heavy():
    return sorted(m for m in sys.modules if m.split(".")[0] in HEAVY)

def pytest_collection_finish(session):
    print("AT-COLLECTION-FINISH heavy=%s children=%s" % (_heavy(), descendants()))

def pytest_unconfigure(config):
    print("AT-UNCONFIGURE heavy=%s" % (_heavy(),))
"""

TRAIL = """
trailhead:
  step: Open the app
  recording:
    web:
      web_navigate: { url: "{{app}}/index.html#counter" }
trail:
  - step: Click increment
    recording:
      web:
        - web_click: { ref: "css=#increment-btn" }
"""


def line_of(result: pytest.RunResult, prefix: str) -> str:
    lines = [line for line in result.outlines if line.startswith(prefix)]
    assert len(lines) == 1, result.stdout.str()
    return lines[0]


@pytest.fixture
def probed(pytester: pytest.Pytester, tb) -> pytest.Pytester:
    pytester.makeconftest(tb.PROCESS_PROBE + PROBE)
    for name in ("one", "two", "three"):
        tb.write(pytester.path, f"trails/{name}.trail.yaml", TRAIL)
    return pytester


def test_collect_only_imports_no_playwright_and_starts_no_browser(probed: pytest.Pytester, tb) -> None:
    run_id = uuid.uuid4().hex
    result = probed.runpytest_subprocess(
        "--collect-only",
        "-q",
        "-s",
        # pytest-playwright (installed for the combination tests) imports Playwright itself when
        # pytest starts; what is measured here is that this plugin does not
        "-p",
        "no:playwright",
        tb.APP_MEMORY,
        f"--trailblaze-browser-arg=--trailblaze-test-run={run_id}",
    )

    assert result.ret == 0
    assert len([line for line in result.outlines if "::" in line]) == 3
    assert line_of(result, "AT-COLLECTION-FINISH") == "AT-COLLECTION-FINISH heavy=[] children=[]"
    assert line_of(result, "AT-UNCONFIGURE") == "AT-UNCONFIGURE heavy=[]"
    assert tb.matching(run_id) == {}


def test_the_probe_sees_playwright_when_trails_do_run(probed: pytest.Pytester, tb) -> None:
    """The control of the test above: the same probe reports Playwright once a trail runs."""
    result = probed.runpytest_subprocess("-s", tb.APP_MEMORY, "trails/one.trail.yaml")

    result.assert_outcomes(passed=1)
    assert "'playwright'" in line_of(result, "AT-UNCONFIGURE")
