"""The same trails give the same per-item outcomes with and without ``-n 2`` (pytest-xdist)."""

from __future__ import annotations

import json
import re

import pytest

TRAILS = {
    "counter": """
        config: { id: x/counter, tags: [smoke] }
        trail:
          - step: Open the counter and count
            recording:
              web:
                - web_navigate: { url: "{{app}}/index.html#counter" }
                - web_click: { ref: "css=#increment-btn" }
                - web_verifyValue: { ref: "css=#counter-value", expected: "1" }
        """,
    "about": """
        trailhead:
          step: Open About
          recording:
            web:
              web_navigate: { url: "{{app}}/index.html#about" }
        trail:
          - verify: The version is shown
            recording:
              web:
                - web_verifyTextVisible: { text: "Version: 1.0.0" }
              android-phone:
                - assertVisibleWithText: { text: "1.0.0" }
        """,
    "failing": """
        config: { id: x/failing }
        trail:
          - step: Compare
            recording:
              web:
                - assertEquals: { actual: "1", expected: "2" }
        """,
    "broken-head": """
        trailhead:
          step: Open a missing page
          recording:
            web:
              web_navigate: { url: "{{app}}/missing.html" }
        trail:
          - step: Never
            recording:
              web: []
        """,
    "skipped": """
        config:
          skip: { web: not on the web today }
        trail:
          - step: Never
            recording:
              web: []
        """,
    "noop": """
        trail:
          - step: Nothing
            recording:
              web: []
        """,
}


def outcomes(pytester: pytest.Pytester) -> dict[str, str]:
    return json.loads((pytester.path / "outcomes.json").read_text(encoding="utf-8"))


def test_outcomes_are_identical_with_two_workers(pytester: pytest.Pytester, tb) -> None:
    pytester.makeconftest(tb.OUTCOME_RECORDER)
    for name, text in TRAILS.items():
        tb.write(pytester.path, f"trails/{name}.trail.yaml", text)
    common = (tb.APP_MEMORY, "-p", "no:randomly", "--trailblaze-screenshots=off")

    serial = pytester.runpytest_subprocess(*common)
    serial_outcomes = outcomes(pytester)
    parallel = pytester.runpytest_subprocess(*common, "-n", "2", "--junitxml=parallel.xml")
    parallel_outcomes = outcomes(pytester)

    serial.assert_outcomes(passed=3, failed=1, errors=1, skipped=2)
    parallel.assert_outcomes(passed=3, failed=1, errors=1, skipped=2)
    assert parallel.stdout.str().count("created: 2/2 workers") == 1
    assert serial_outcomes == parallel_outcomes
    assert serial_outcomes == {
        "trails/about.trail.yaml::about[android]": "skipped",
        "trails/about.trail.yaml::about[web]": "passed",
        "trails/broken-head.trail.yaml::broken-head[web]": "error",
        "trails/counter.trail.yaml::x/counter[web]": "passed",
        "trails/failing.trail.yaml::x/failing[web]": "failed",
        "trails/noop.trail.yaml::noop[web]": "passed",
        "trails/skipped.trail.yaml::skipped[web]": "skipped",
    }
    # Per-item report properties travel from the workers to the controller's JUnit XML.
    xml = (pytester.path / "parallel.xml").read_text(encoding="utf-8")
    failing = re.search(r'<testcase [^>]*name="x/failing\[web\]".*?</testcase>', xml, re.S)
    assert failing, xml
    assert '<property name="failing_step" value="step 1 of 1: Compare" />' in failing.group(0)
    assert '<property name="trail_id" value="x/failing" />' in failing.group(0)
