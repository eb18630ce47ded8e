"""The HTML report opened in a real browser: it loads from the file alone (no request leaves
it but ``file:`` and ``data:``), filters by outcome, and shows the failing step with its image.
Also: pytest-html gets the steps and the screenshot as extras of its own report."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_trailblaze.drivers.playwright import WebDriver

APP = (Path(__file__).resolve().parents[2] / "examples" / "sample-app").as_uri()

PASSING = """
config: { id: report/passing, title: Count once }
trail:
  - step: Open the counter
    recording:
      web:
        - web_navigate: { url: "{{app}}/index.html#counter" }
  - step: Click increment
    recording:
      web:
        - web_click: { ref: "css=#increment-btn" }
"""

FAILING = """
config: { id: report/failing, title: Totals disagree }
trail:
  - step: Open the form
    recording:
      web:
        - web_navigate: { url: "{{app}}/index.html#form" }
  - step: Compare totals
    recording:
      web:
        - assertEquals: { actual: "41", expected: "42" }
"""


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One real run (2 workers) of a passing and a failing trail, with both HTML reports."""
    root = tmp_path_factory.mktemp("report-run")
    (root / "trails").mkdir()
    (root / "trails" / "passing.trail.yaml").write_text(PASSING)
    (root / "trails" / "failing.trail.yaml").write_text(FAILING)
    args = [
        f"--trailblaze-memory=app={APP}",
        "-p", "no:randomly", "-p", "no:cacheprovider",
        "-n", "2",
        "--trailblaze-report=out/report.html",
        "--html=pytest-html.html", "--self-contained-html",
    ]  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-m", "pytest", *args, "trails"],
        cwd=root, capture_output=True, text=True, timeout=180, check=False,
    )  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    assert "1 failed, 1 passed" in done.stdout, done.stdout
    return root / "out" / "report.html"


def test_the_report_opens_from_the_file_and_shows_the_failing_step_with_its_image(
    report: Path, driver: WebDriver
) -> None:
    page = driver.page
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    page.goto(report.as_uri())

    failing = page.locator("section.trail[data-outcome=failed]")
    assert failing.locator(".name").inner_text() == "Totals disagree"
    step = failing.locator("li.step.failed")
    assert step.count() == 1
    assert "Compare totals" in step.locator(".text").inner_text()
    assert "expected '42' but got '41'" in step.locator("pre.error").inner_text()
    image = step.locator("figure img")
    assert image.is_visible()
    assert image.evaluate("img => img.complete && img.naturalWidth > 100")
    assert all(re.match(r"(file|data):", url) for url in requested), requested


def test_the_outcome_buttons_filter_the_trails(report: Path, driver: WebDriver) -> None:
    page = driver.page
    page.goto(report.as_uri())
    passing = page.locator("section.trail[data-outcome=passed]")
    failing = page.locator("section.trail[data-outcome=failed]")
    assert passing.is_visible() and failing.is_visible()

    page.get_by_role("button", name="failed (1)").click()
    assert failing.is_visible() and not passing.is_visible()
    page.get_by_role("button", name="passed (1)").click()
    assert passing.is_visible() and not failing.is_visible()
    page.get_by_role("button", name="all (2)").click()
    assert passing.is_visible() and failing.is_visible()
    passing.locator("summary").click()
    assert passing.locator("li.step").all_inner_texts()[1].startswith("step 2/2")


def test_pytest_html_gets_the_steps_and_the_screenshot_as_extras(report: Path) -> None:
    page = (report.parent.parent / "pytest-html.html").read_text()
    assert "trailblaze steps" in page
    assert "Compare totals" in page and "failed" in page
    assert "data:image/png;base64," in page
