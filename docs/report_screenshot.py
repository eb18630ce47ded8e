"""Make ``docs/report.png``, the README's picture of the HTML report, from a real run.

Runs the example web trails and the expected failure through pytest with ``--trailblaze-report``,
then opens the report in headless Chromium (Playwright) and takes a picture of its top.

    .venv/bin/python docs/report_screenshot.py
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

from pytest_trailblaze.drivers.browser import find_system_chromium

REPO = Path(__file__).resolve().parent.parent
PICTURE = REPO / "docs" / "report.png"


def run_examples(report: Path) -> None:
    command = [sys.executable, "-m", "pytest", "examples", "-m", "web or expected_failure"]
    command += ["-p", "no:randomly", f"--trailblaze-report={report}", "-q", "--no-header"]
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=600, check=False)
    if not report.is_file():
        raise SystemExit(f"no report was written:\n{done.stdout}\n{done.stderr}")


def picture(report: Path) -> None:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=find_system_chromium())
        page = browser.new_page(viewport={"width": 1100, "height": 1250}, device_scale_factor=1)
        page.goto(report.as_uri())
        page.screenshot(path=str(PICTURE))
        browser.close()


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.html"
        run_examples(report)
        picture(report)
    sys.stdout.write(f"{PICTURE}\n")


if __name__ == "__main__":
    main()
