"""Evidence of real runs (headless Chromium, the sample app): live step progress, per-trail
records, ``summary.json``, JUnit step properties, the step table in report sections, the
end-of-run evidence section, per-step screenshots, and the same under ``-n 2``."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

PASSING = """
config:
  id: ev/passing
  title: Count to two
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
        - web_click: { ref: "css=#increment-btn" }
  - verify: The counter shows 2
    recording:
      web:
        - web_verifyValue: { ref: "css=#counter-value", expected: "2" }
"""

FAILING = """
config:
  id: ev/failing
trail:
  - step: Open the form
    recording:
      web:
        - web_navigate: { url: "{{app}}/index.html#form" }
        - web_wait: { seconds: 0 }
  - step: Compare totals
    recording:
      web:
        - assertEquals: { actual: "41", expected: "42" }
  - step: Never runs
    recording:
      web: []
"""


@pytest.fixture
def trails(pytester: pytest.Pytester, tb) -> Path:
    tb.write(pytester.path, "trails/passing.trail.yaml", PASSING)
    tb.write(pytester.path, "trails/failing.trail.yaml", FAILING)
    return pytester.path


def _run(pytester: pytest.Pytester, tb, *args: str) -> pytest.RunResult:
    return pytester.runpytest_subprocess(tb.APP_MEMORY, "-p", "no:randomly", *args, timeout=180)


def _records(root: Path) -> dict[str, dict]:
    found = {}
    for path in (root / "trailblaze-output").glob("*/record.json"):
        record = json.loads(path.read_text())
        found[record["trail_id"]] = record
    return found


def test_verbose_runs_print_each_step_as_it_runs(pytester: pytest.Pytester, tb, trails: Path) -> None:
    result = _run(pytester, tb, "-v")

    result.assert_outcomes(passed=1, failed=1)
    result.stdout.re_match_lines(
        [
            r"trails/failing.trail.yaml::ev/failing\[web\] $",
            r"    step 1/3 Open the form … ✓ \d+\.\d\d s$",
            r"    step 2/3 Compare totals … ✗ \d+\.\d\d s$",
            r"trails/failing.trail.yaml::ev/failing\[web\] FAILED +\[ 50%\]$",
            r"trails/passing.trail.yaml::ev/passing\[web\] $",
            r"    trailhead Open the counter … ✓ \d+\.\d\d s$",
            r"    step 1/2 Click increment twice … ✓ \d+\.\d\d s$",
            r"    step 2/2 The counter shows 2 … ✓ \d+\.\d\d s$",
            r"trails/passing.trail.yaml::ev/passing\[web\] PASSED +\[100%\]$",
        ]
    )
    assert "Never runs …" not in result.stdout.str()


def test_quiet_runs_print_no_steps_and_rA_shows_the_step_table(
    pytester: pytest.Pytester, tb, trails: Path
) -> None:
    result = _run(pytester, tb, "-q", "-rA")

    result.assert_outcomes(passed=1, failed=1)
    assert " … " not in result.stdout.str()
    result.stdout.re_match_lines(
        [
            r".*Captured trailblaze steps call.*",
            r"step 1/3 +Open the form +passed +\d+\.\d\d s$",
            r"step 2/3 +Compare totals +failed +\d+\.\d\d s$",
            r"step 3/3 +Never runs +not run$",
        ]
    )
    result.stdout.re_match_lines([r"trailhead +Open the counter +passed +\d+\.\d\d s$"])


def test_every_trail_writes_a_record_and_the_run_a_summary(
    pytester: pytest.Pytester, tb, trails: Path
) -> None:
    result = _run(pytester, tb, "--junitxml=junit.xml")

    result.assert_outcomes(passed=1, failed=1)
    records = _records(pytester.path)
    passing, failing = records["ev/passing"], records["ev/failing"]
    assert passing["outcome"] == "passed" and passing["title"] == "Count to two"
    assert [s["label"] for s in passing["steps"]] == ["trailhead", "step 1/2", "step 2/2"]
    clicks = passing["steps"][1]["calls"]
    assert [c["name"] for c in clicks] == ["web_click", "web_click"]
    assert clicks[0]["args"] == {"ref": "css=#increment-btn"} and clicks[0]["outcome"] == "passed"
    assert all(s["outcome"] == "passed" and s["duration_s"] > 0 for s in passing["steps"])

    assert failing["outcome"] == "failed"
    assert [s["outcome"] for s in failing["steps"]] == ["passed", "failed", "not run"]
    failed = failing["steps"][1]
    assert failed["screenshot"] == "failure.png"
    assert "step 2 of 3 failed: Compare totals" in failed["error"]
    assert {"kind": "failure screenshot", "path": "failure.png"} in failing["artifacts"]
    assert {"kind": "page source", "path": "failure-page.aria.yaml"} in failing["artifacts"]
    source = (pytester.path / failing["artifacts_dir"] / "failure-page.aria.yaml").read_text()
    assert 'heading "Contact Form"' in source
    assert (pytester.path / failing["artifacts_dir"] / "failure.png").is_file()

    summary = json.loads((pytester.path / "trailblaze-output" / "summary.json").read_text())
    assert summary["totals"] == {"failed": 1, "passed": 1}
    shown = {t["trail_id"]: t for t in summary["trails"]}
    assert shown["ev/failing"]["failing_step"] == "step 2/3: Compare totals"
    assert shown["ev/passing"]["steps_passed"] == shown["ev/passing"]["steps_total"] == 3
    assert (pytester.path / shown["ev/failing"]["record"]).is_file()

    cases = {c.get("name"): c for c in ET.parse(pytester.path / "junit.xml").iter("testcase")}
    props = {p.get("name"): p.get("value") for p in cases["ev/passing[web]"].iter("property")}
    assert props["trailhead"].startswith("passed ") and props["trailhead"].endswith(" s · Open the counter")
    assert props["step_2"].startswith("passed ") and props["step_2"].endswith("The counter shows 2")
    failing_props = {p.get("name"): p.get("value") for p in cases["ev/failing[web]"].iter("property")}
    assert failing_props["step_2"].startswith("failed ")
    assert "step_3" not in failing_props


def test_the_end_of_the_run_says_where_the_evidence_is(pytester: pytest.Pytester, tb, trails: Path) -> None:
    result = _run(pytester, tb, "--trailblaze-report=out/report.html")

    folder = _records(pytester.path)["ev/failing"]["artifacts_dir"]
    result.stdout.re_match_lines(
        [
            r"-+ trailblaze evidence -+",
            r"summary: trailblaze-output/summary.json",
            r"report: out/report.html",
            rf"failed ev/failing\[web\]: {folder}/ \(failure-page.aria.yaml, failure.png\)",
        ]
    )
    assert (pytester.path / "out" / "report.html").is_file()


def test_screenshot_on_takes_one_after_every_step(pytester: pytest.Pytester, tb, trails: Path) -> None:
    result = _run(pytester, tb, "--trailblaze-screenshot=on", "-k", "passing")

    result.assert_outcomes(passed=1)
    record = _records(pytester.path)["ev/passing"]
    assert [s["screenshot"] for s in record["steps"]] == [
        "steps/trailhead.png",
        "steps/step-01.png",
        "steps/step-02.png",
    ]
    folder = pytester.path / record["artifacts_dir"]
    assert all((folder / s["screenshot"]).read_bytes().startswith(b"\x89PNG") for s in record["steps"])


def test_screenshot_off_keeps_no_picture_of_a_failure(pytester: pytest.Pytester, tb, trails: Path) -> None:
    result = _run(pytester, tb, "--trailblaze-screenshot=off", "-k", "failing")

    result.assert_outcomes(failed=1)
    assert not list((pytester.path / "trailblaze-output").rglob("*.png"))
    assert "screenshot:" not in result.stdout.str()


def test_under_xdist_the_controller_writes_one_summary_with_every_trail(
    pytester: pytest.Pytester, tb, trails: Path
) -> None:
    result = _run(pytester, tb, "-n", "2", "-v", "-rA", "--trailblaze-report=report.html")

    result.assert_outcomes(passed=1, failed=1)
    assert " … ✓" not in result.stdout.str()  # workers' steps are not printed in the controller's output
    # ...but their step tables reach the controller's -rA sections
    result.stdout.re_match_lines([r".*Captured trailblaze steps call.*", r"step 3/3 +Never runs +not run$"])
    result.stdout.re_match_lines([r"step 2/2 +The counter shows 2 +passed +\d+\.\d\d s$"])
    summary = json.loads((pytester.path / "trailblaze-output" / "summary.json").read_text())
    assert summary["totals"] == {"failed": 1, "passed": 1}
    workers = {r["worker"] for r in _records(pytester.path).values()}
    assert workers <= {"gw0", "gw1"}
    page = (pytester.path / "report.html").read_text()
    assert "Compare totals" in page and "Count to two" in page
