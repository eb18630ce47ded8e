"""Failures other tools can read: real pytest runs of real trails on Chromium.

- a failed step is an ``AssertionError`` to pytest-rerunfailures (``--only-rerun``), under xdist;
- ``--tb=line``, the short summary (``-rA``) and JUnit get one line: the trail's file, the failing
  step's line and ``AssertionError: step i/N 'text': cause``; the report's location is that step;
- pytest-timeout's signal method stops a trail like any step failure: located, with its tool,
  its cause and a screenshot, no traceback into the plugin;
- allure-pytest results carry the trail's title and description, its steps with their tool calls,
  and the failure evidence as attachments.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from xml.etree import ElementTree

import pytest

FAILING = """
config:
  id: shop/checkout
  title: Check out the cart
  description: The counter stands in for the cart.
  tags: [smoke]
trailhead:
  step: Open the counter
  recording:
    web:
      web_navigate: { url: "{{app}}/index.html#counter" }
trail:
  - step: Add to cart
    recording:
      web:
        - web_click: { ref: "css=#increment-btn" }
  - verify: The cart holds five items
    recording:
      web:
        - web_verifyValue: { ref: "css=#counter-value", expected: "5" }
"""
CAUSE = "css=#counter-value does not contain '5' (its text is '1')"
HEADLINE = f"AssertionError: step 2/2 'The cart holds five items': {CAUSE}"

PASSING = """
config: { id: shop/about }
trail:
  - step: Open About
    recording:
      web:
        - web_navigate: { url: "{{app}}/index.html#about" }
        - web_verifyTextVisible: { text: "Version: 1.0.0" }
"""

#: Passes from its second attempt on: the first call leaves a mark and fails.
FLAKY_TOOL = """
from pathlib import Path

from pytest_trailblaze import ToolFailure, tool


@tool(description="Fails once, then passes (a flaky back end)")
def combo_flaky(ctx, mark: str) -> str:
    seen = Path(mark)
    if not seen.exists():
        seen.write_text("seen")
        raise ToolFailure("the back end was not ready")
    return "ready"


def pytest_trailblaze_register_tools(registry, config):
    registry.register(combo_flaky)


def pytest_runtest_logreport(report):
    if report.failed and report.when == "call" and report.location:
        print(f"TBLOC {report.nodeid} {report.location[1]}")
"""

FLAKY = """
config: { id: shop/flaky }
trail:
  - step: Ask the back end
    recording:
      web:
        - combo_flaky: { mark: flaky.seen }
"""

BROKEN_HEAD = """
config: { id: shop/broken-head }
trailhead:
  step: Open a page that is not there
  recording:
    web:
      web_verifyTextVisible: { text: "No such text anywhere" }
trail:
  - step: Never runs
    recording:
      web: []
"""


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


@pytest.fixture
def wide(monkeypatch: pytest.MonkeyPatch) -> None:
    """A wide terminal, so the short summary is not cut to 80 columns."""
    monkeypatch.setenv("COLUMNS", "240")


def test_rerunfailures_reruns_a_failed_step_as_an_assertion_under_xdist(pytester, tb, wide) -> None:
    tb.write(pytester.path, "conftest.py", FLAKY_TOOL)
    checkout = tb.write(pytester.path, "trails/checkout.trail.yaml", FAILING).read_text(encoding="utf-8")
    tb.write(pytester.path, "trails/flaky.trail.yaml", FLAKY)
    head = tb.write(pytester.path, "trails/broken_head.trail.yaml", BROKEN_HEAD).read_text(encoding="utf-8")

    result = pytester.runpytest_subprocess(
        tb.APP_MEMORY, "-p", "no:randomly", "-n", "2", "-s",
        "--reruns", "1", "--only-rerun", "AssertionError",
        "--tb=line", "-rA", "--junitxml=junit.xml",
        timeout=240,
    )  # fmt: skip

    # the failed step and the flaky one are rerun; the trailhead ERROR is no assertion: not rerun
    assert result.parseoutcomes() == {"failed": 1, "passed": 1, "errors": 1, "rerun": 2}
    out = result.stdout.str()
    step_line = line_of(checkout, "verify: The cart holds five items")
    assert f"trails/checkout.trail.yaml:{step_line}: {HEADLINE}" in result.outlines  # --tb=line
    head_line = line_of(head, "step: Open a page that is not there")
    assert (
        f"trails/broken_head.trail.yaml:{head_line}: TrailheadError: could not reach the starting state: "
        f"trails/broken_head.trail.yaml:{head_line}:3: the trailhead failed: Open a page that is not there"
    ) in result.outlines
    assert "tool 1 of 1" not in out, "--tb=line shows one line per failure"
    assert f"FAILED trails/checkout.trail.yaml::shop/checkout[web] - {HEADLINE}" in result.outlines
    assert "PASSED trails/flaky.trail.yaml::shop/flaky[web]" in out
    assert re.search(r"ERROR trails/broken_head.trail.yaml::shop/broken-head\[web\] - TrailheadError: ", out)
    # the report's location is the failing step (0-based, as pytest keeps it)
    assert f"TBLOC trails/checkout.trail.yaml::shop/checkout[web] {step_line - 1}" in out

    failures = ElementTree.parse(pytester.path / "junit.xml").getroot().iter("failure")
    assert [f.get("message") for f in failures] == [HEADLINE]  # JUnit's one-line message


def test_a_timeout_signal_stops_the_trail_like_a_step_failure(pytester, tb, wide) -> None:
    """Only the call phase is timed (``timeout_func_only``): the trailhead and the browser start are
    not, so the timeout always lands in the long wait of step 2."""
    trail = """
        config: { id: slow/wait }
        trailhead:
          step: Open the counter
          recording:
            web:
              web_navigate: { url: "{{app}}/index.html#counter" }
        trail:
          - step: Nothing to do
            recording:
              web: []
          - step: Wait for the slow back end
            recording:
              web:
                - web_click: { ref: "css=#increment-btn" }
                - wait: { timeToWaitInSeconds: 120 }
          - step: Never reached
            recording:
              web: []
        """
    source = tb.write(pytester.path, "trails/slow.trail.yaml", trail).read_text(encoding="utf-8")
    tb.write(pytester.path, "pytest.ini", "[pytest]\ntimeout_func_only = true\n")

    result = pytester.runpytest_subprocess(
        tb.APP_MEMORY, "-p", "no:randomly", "--timeout", "3", "--timeout-method", "signal", "-rA",
        "--junitxml=junit.xml", timeout=240,
    )  # fmt: skip

    result.assert_outcomes(failed=1)
    step_line, tool_line = line_of(source, "Wait for the slow back end"), line_of(source, "wait:")
    cause = "stopped while running: Timeout (>3.0s) from pytest-timeout."
    result.stdout.fnmatch_lines(
        [
            f"trails/slow.trail.yaml:{step_line}:5: step 2 of 3 failed: Wait for the slow back end",
            f'  tool 2 of 2 (line {tool_line}): wait {{"timeToWaitInSeconds": 120}}',
            f"  cause: {cause}",
            "  screenshot: trailblaze-output/*/failure.png",
            f"AssertionError: step 2/3 'Wait for the slow back end': {cause}",
        ]
    )
    shot = re.search(r"  screenshot: (\S+failure\.png)", result.stdout.str())
    assert shot and (pytester.path / shot.group(1)).read_bytes()[:4] == b"\x89PNG"
    failures = result.stdout.str().split("= FAILURES =")[1].split("Captured stdout call")[0]
    assert "Traceback" not in failures and "pytest_trailblaze/" not in failures
    junit = ElementTree.parse(pytester.path / "junit.xml").getroot()
    failure = next(junit.iter("failure"))
    assert failure.get("message") == f"AssertionError: step 2/3 'Wait for the slow back end': {cause}"
    assert f"trails/slow.trail.yaml:{step_line}:5: step 2 of 3 failed" in (failure.text or "")
    props = {p.get("name"): p.get("value") for p in junit.iter("property")}
    assert props["failing_step"] == "step 2 of 3: Wait for the slow back end"
    assert props["steps_run"] == "1/3"


def _allure_results(folder: Path) -> tuple[dict[str, dict], list[dict]]:
    results = [json.loads(p.read_text()) for p in folder.glob("*-result.json")]
    containers = [json.loads(p.read_text()) for p in folder.glob("*-container.json")]
    return {r["fullName"].rsplit("#", 1)[1]: r for r in results}, containers


def test_allure_results_show_trail_title_steps_tool_calls_and_evidence(pytester, tb) -> None:
    tb.write(pytester.path, "trails/checkout.trail.yaml", FAILING)
    tb.write(pytester.path, "trails/about.trail.yaml", PASSING)
    tb.write(pytester.path, "tests/test_plain.py", 'def test_plain():\n    """A plain test."""\n')

    result = pytester.runpytest_subprocess(
        tb.APP_MEMORY, "-p", "no:randomly", "--alluredir=allure-results", "trails", "tests", timeout=240
    )

    result.assert_outcomes(failed=1, passed=2)
    folder = pytester.path / "allure-results"
    results, containers = _allure_results(folder)

    failed = results["shop/checkout[web]"]
    assert failed["name"] == "Check out the cart [web]"
    description = "The counter stands in for the cart.\n\nTrail file: trails/checkout.trail.yaml"
    assert failed["description"] == description
    assert failed["status"] == "failed"
    assert failed["statusDetails"]["message"].startswith(HEADLINE + "\n")
    assert {"name": "tag", "value": "smoke"} in failed["labels"]
    steps = failed["steps"]
    names = ["step 1/2: Add to cart", "step 2/2: verify: The cart holds five items"]
    assert [s["name"] for s in steps] == names
    assert [s["status"] for s in steps] == ["passed", "failed"]
    click, verify = steps[0]["steps"][0], steps[1]["steps"][0]
    assert click["name"] == "web_click"
    assert click["parameters"] == [{"name": "ref", "value": "css=#increment-btn"}]
    assert verify["name"] == "web_verifyValue" and verify["status"] == "failed"
    assert verify["statusDetails"]["message"].strip() == f"AssertionError: {CAUSE}"
    assert {"name": "expected", "value": "5"} in verify["parameters"]
    assert all(s["stop"] >= s["start"] for s in (*steps, click, verify))
    shots = [a for a in failed["attachments"] if a["name"] == "failure.png"]
    assert shots and shots[0]["type"] == "image/png"
    assert (folder / shots[0]["source"]).read_bytes()[:4] == b"\x89PNG"

    befores = [b for c in containers for b in c.get("befores", []) if b["name"] == "trailblaze_run"]
    heads = [s for b in befores for s in b.get("steps", [])]
    assert "trailhead: Open the counter" in [s["name"] for s in heads]
    assert any(t["name"] == "web_navigate" for s in heads for t in s.get("steps", []))

    passed = results["shop/about[web]"]
    assert passed["name"] == "shop/about[web]" and passed["status"] == "passed"
    assert passed["description"] == "Trail file: trails/about.trail.yaml"
    assert [t["name"] for t in passed["steps"][0]["steps"]] == ["web_navigate", "web_verifyTextVisible"]
    assert results["test_plain"]["description"] == "A plain test."  # other tests keep allure's ways
