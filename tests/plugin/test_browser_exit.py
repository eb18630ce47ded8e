"""A browser that is slow to go away does not hold the run (an ``-n`` run once waited 30 s at exit).

Playwright gives a closing browser 30 s to exit and waits until every process holding the
browser's output has gone; a Chromium child that lingers on a busy machine made an xdist
worker's teardown, and so the run, wait those 30 s (once in eight runs of 20 web trails). The
browser here is started through a wrapper that leaves such a child behind; the worker's browser
close gives up after 5 s, Playwright's driver then kills the browser's process group, and
nothing is left running.
"""

from __future__ import annotations

import re
import shutil
import sys
import uuid
from pathlib import Path

import pytest

from pytest_trailblaze.drivers.browser import find_system_chromium

TRAIL = """
config: {{ id: exit/t{n} }}
trail:
  - step: Open a page
    recording:
      web:
        - web_navigate: {{ url: "data:text/html,<h1>page {n}</h1>" }}
        - web_verifyTextVisible: {{ text: "page {n}" }}
"""


def lingering_browser(folder: Path, marker: str) -> Path:
    """A browser executable whose exit leaves a child holding its output for two minutes."""
    chromium = find_system_chromium(headless=True)
    if chromium is None or not shutil.which(chromium):
        pytest.skip("no system Chromium")
    wrapper = folder / "lingering-chromium"
    wrapper.write_text(
        f"#!/bin/sh\n{sys.executable} -c 'import time; time.sleep(120)' {marker} &\nexec {chromium} \"$@\"\n"
    )
    wrapper.chmod(0o755)
    return wrapper


@pytest.mark.timeout(300)
def test_a_browser_slow_to_exit_is_killed_after_a_few_seconds(pytester: pytest.Pytester, tb) -> None:
    marker = f"lingering-{uuid.uuid4().hex[:10]}"
    browser = lingering_browser(pytester.path, marker)
    for n in range(4):
        tb.write(pytester.path, f"trails/t{n}.trail.yaml", TRAIL.format(n=n))

    result = pytester.runpytest_subprocess(
        "-n", "2", "-p", "no:randomly", f"--trailblaze-browser-path={browser}", "--durations=0", "-vv",
        timeout=240,
    )  # fmt: skip

    result.assert_outcomes(passed=4)
    teardowns = [float(m) for m in re.findall(r"^([0-9.]+)s teardown ", result.stdout.str(), re.MULTILINE)]
    assert teardowns, result.stdout.str()
    # the worker's last teardown closes its browser: about 5 s here, 30 s before
    assert max(teardowns) < 20, teardowns
    left = tb.matching(marker)
    assert left == {}, f"the browser's lingering child outlived the run: {left}"
