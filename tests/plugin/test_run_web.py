"""Trails replayed on headless Chromium against the sample app opened from disk."""

from __future__ import annotations

import re

import pytest

PASSING = """
config:
  id: run/passing
trailhead:
  step: Open the counter
  recording:
    web:
      web_navigate: { url: "{{app}}/index.html#counter" }
trail:
  - step: Click increment twice
    recording:
      web:
        - web_click: { ref: "css=#increment-btn" }
        - web_click: { nodeSelector: { web: { ariaRole: button, ariaNameRegex: "^Increment$" } } }
  - verify: The counter shows 2
    recording:
      web:
        - web_verifyValue: { ref: "css=#counter-value", expected: "2" }
  - step: Nothing to do on the web
    recording:
      web: []
"""

AGENT = """
config:
  id: run/agent
trail:
  - step: Open the counter
    recording:
      web:
        - web_navigate: { url: "{{app}}/index.html#counter" }
  - step: Click increment with the agent
    recording:
      android-phone:
        - tapOnElementWithText: { text: "+" }
  - verify: Never reached
    recording:
      web:
        - assertEquals: { actual: never, expected: reached }
"""

NOT_RECORDABLE = """
config:
  id: run/not-recordable
trail:
  - step: Open the counter
    recording:
      web:
        - web_navigate: { url: "{{app}}/index.html#counter" }
  - step: Judge the colours
    recordable: false
    recording:
      web: []
"""

CLOSEST = """
config:
  id: run/closest
trail:
  - step: Check with the web recording, not the desktop one
    recording:
      desktop:
        - assertEquals: { actual: desktop, expected: used }
      web:
        - assertEquals: { actual: web, expected: web }
      ios-iphone:
        - assertEquals: { actual: ios, expected: used }
"""

TRAILHEAD_FAILS = """
config:
  id: run/trailhead-fails
trailhead:
  step: Open a page that does not exist
  recording:
    web:
      web_navigate: { url: "{{app}}/no-such-page.html" }
trail:
  - step: Never reached
    recording:
      web: []
"""

STEP_FAILS = """
config:
  id: run/step-fails
trail:
  - step: Compare two values
    recording:
      web:
        - assertEquals: { actual: apples, expected: pears }
"""


@pytest.fixture
def run_dir(pytester: pytest.Pytester, tb) -> pytest.Pytester:
    for name, text in {
        "passing": PASSING,
        "agent": AGENT,
        "not-recordable": NOT_RECORDABLE,
        "closest": CLOSEST,
        "trailhead-fails": TRAILHEAD_FAILS,
        "step-fails": STEP_FAILS,
    }.items():
        tb.write(pytester.path, f"trails/{name}.trail.yaml", text)
    return pytester


def section(result: pytest.RunResult, title: str) -> str:
    """The text of one ``____ title ____`` section of the failure / error report."""
    text = result.stdout.str()
    match = re.search(
        rf"_+ (?:ERROR at setup of )?{re.escape(title)} _+\n(.*?)(?=\n_{{3,}} |\n=+ )", text, re.S
    )
    assert match, f"no section {title!r} in:\n{text}"
    return match.group(1)


def test_three_states_closest_wins_and_error_versus_failure(run_dir: pytest.Pytester, tb) -> None:
    result = run_dir.runpytest(tb.APP_MEMORY, "-rA", "-m", "web")

    result.assert_outcomes(passed=2, failed=3, errors=1, deselected=3)
    result.stdout.fnmatch_lines(
        [
            "PASSED trails/closest.trail.yaml::run/closest[web]",
            "PASSED trails/passing.trail.yaml::run/passing[web]",
        ],
        consecutive=False,
    )
    assert re.search(
        r"^ERROR trails/trailhead-fails.trail.yaml::run/trailhead-fails\[web\]", result.stdout.str(), re.M
    )
    for nodeid in ("agent.trail.yaml::run/agent", "not-recordable.trail.yaml::run/not-recordable",
                   "step-fails.trail.yaml::run/step-fails"):  # fmt: skip
        assert re.search(rf"^FAILED trails/{re.escape(nodeid)}\[web\]", result.stdout.str(), re.M)

    agent = section(result, "run/agent[web]")
    assert agent.startswith("trails/agent.trail.yaml:8:5: step 2 of 3 needs an agent: no recording for web\n")
    assert "step: Click increment with the agent" in agent
    assert "--trailblaze-agent-steps=skip" in agent

    not_recordable = section(result, "run/not-recordable[web]")
    assert "step 2 of 2 needs an agent: no recording for web" in not_recordable
    assert "recordable: false" in not_recordable

    failed = section(result, "run/step-fails[web]")
    assert failed.startswith("trails/step-fails.trail.yaml:4:5: step 1 of 1 failed: Compare two values\n")
    assert "cause: expected 'pears' but got 'apples'" in failed
    assert "Traceback" not in failed

    head = section(result, "run/trailhead-fails[web]")
    assert "could not reach the starting state" in head
    assert "no-such-page.html" in head
    assert "Traceback" not in head and "pytest_trailblaze/" not in head


def test_agent_steps_can_be_skipped_instead(run_dir: pytest.Pytester, tb) -> None:
    result = run_dir.runpytest(
        tb.APP_MEMORY, "-rs", "-m", "web", "--trailblaze-agent-steps=skip",
        "trails/agent.trail.yaml", "trails/not-recordable.trail.yaml",
    )  # fmt: skip

    result.assert_outcomes(skipped=2, deselected=1)
    result.stdout.fnmatch_lines(
        [
            "SKIPPED * step 2 of 3 needs an agent: no recording for web*",
            "SKIPPED * step 2 of 2 needs an agent: no recording for web*",
        ]
    )


def test_the_failing_example_shows_step_tool_cause_and_screenshot(pytester: pytest.Pytester, tb) -> None:
    source = (tb.EXAMPLES / "trails" / "failing" / "checkout.trail.yaml").read_text(encoding="utf-8")
    trail = tb.write(pytester.path, "trails/failing/checkout.trail.yaml", source)
    lines = source.splitlines()
    step_line = next(i for i, line in enumerate(lines, 1) if "step: Click the Pay button" in line)
    step_col = lines[step_line - 1].index("step:") + 1
    tool_line = next(i for i, line in enumerate(lines, 1) if "web_click" in line and "pay-button" in line)

    result = pytester.runpytest(f"--trailblaze-memory=baseUrl={tb.APP_URL}", "--junitxml=report.xml")

    result.assert_outcomes(failed=1)
    report = section(result, "failing/checkout[web]").splitlines()
    where = f"trails/failing/checkout.trail.yaml:{step_line}:{step_col}"
    assert report[0] == f"{where}: step 3 of 4 failed: Click the Pay button"
    assert report[1] == f'  tool 1 of 2 (line {tool_line}): web_click {{"ref": "css=#pay-button"}}'
    assert report[2] == "  cause: No element found matching css=#pay-button (waited 10 s)"
    assert report[3].startswith("  screenshot: ")
    screenshot = pytester.path / report[3].removeprefix("  screenshot: ")
    assert screenshot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "Traceback" not in result.stdout.str() and "pytest_trailblaze/" not in result.stdout.str()
    assert trail.read_text(encoding="utf-8") == source, "a run never modifies the trail"

    xml = (pytester.path / "report.xml").read_text(encoding="utf-8")
    props = dict(re.findall(r'<property name="([^"]+)" value="([^"]*)"', xml))
    assert props["trail_id"] == "failing/checkout"
    assert props["platform"] == "web"
    assert props["classifier"] == "web"
    assert props["driver"] == "playwright-native"
    assert props["steps_run"] == "2/4"
    assert props["failing_step"] == "step 3 of 4: Click the Pay button"
    assert props["screenshot"] == report[3].removeprefix("  screenshot: ")


def test_full_trace_shows_the_python_traceback(run_dir: pytest.Pytester, tb) -> None:
    quick = ("trails/step-fails.trail.yaml", "--trailblaze-screenshots=off")
    plain = run_dir.runpytest(*quick)
    full = run_dir.runpytest(*quick, "--trailblaze-full-trace")

    plain.assert_outcomes(failed=1)
    full.assert_outcomes(failed=1)
    assert "pytest_trailblaze/" not in plain.stdout.str()
    full.stdout.fnmatch_lines(
        ["*pytest_trailblaze/core/run/runner.py:*", "E   *step 1 of 1 failed: Compare two values*"]
    )
