"""The six upstream playwright-native trails, recorded against upstream's sample app, replay
unchanged through the plugin against our sample app (a copy of upstream's): their element ids (``ref: eN``),
ARIA descriptors, nodeSelectors and trail-relative ``../../../`` URLs all resolve.

The runs are subprocesses: this session already drives a browser through Playwright's sync API,
and a second sync Playwright cannot start in the same thread."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
NAMES = (
    "test-counter",
    "test-duplicate-list",
    "test-form-interaction",
    "test-navigation",
    "test-scroll-containers",
    "test-search-duplicates",
)


@pytest.fixture
def upstream_layout(pytester: pytest.Pytester, corpus_dir: Path) -> Path:
    """Upstream's folder layout: trails/playwright-native/<name>/ and examples/.../sample-app/."""
    trails = pytester.path / "trails" / "playwright-native"
    for name in NAMES:
        shutil.copytree(corpus_dir / "upstream" / "trails" / "playwright-native" / name, trails / name)
    shutil.copytree(REPO / "examples" / "sample-app", pytester.path / "examples/playwright-native/sample-app")
    return trails


def test_upstream_web_recordings_replay_unchanged(pytester: pytest.Pytester, upstream_layout: Path) -> None:
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-v", str(upstream_layout))
    result.assert_outcomes(passed=len(NAMES))
    result.stdout.fnmatch_lines(
        [f"*{name}/trail.yaml::playwright-native/{name}?web? PASSED*" for name in NAMES]
    )


def test_a_stale_recording_fails_at_its_step(pytester: pytest.Pytester, upstream_layout: Path) -> None:
    """Change the app under a recorded trail: the failure names the step, the tool and the cause."""
    page = pytester.path / "examples/playwright-native/sample-app/index.html"
    page.write_text(page.read_text().replace("Current value: <span", "Count: <span"))
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", str(upstream_layout / "test-counter"))
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            '*test-counter/trail.yaml:24:5: step 3 of 9 failed: Verify the counter value shows "0"',
            '  tool 1 of 1 (line 27): web_verifyTextVisible {"text": "Current value: 0"}',
            "  cause: text 'Current value: 0' is not visible on the page (waited 5 s)",
            "  screenshot: trailblaze-output/*/failure.png",
        ]
    )
