"""Which Chromium a test that starts its own browser (not through the plugin) should launch.

The suite runs with Debian's Chromium (``./dev`` installs it) or with Playwright's own build
(``playwright install --with-deps chromium``, as on a CI runner without Debian's packages).
"""

from __future__ import annotations

import os
from pathlib import Path

from pytest_trailblaze.drivers.browser import find_system_chromium


def chromium_executable() -> str | None:
    """The system's full Chromium, else the newest Chromium Playwright installed, else None
    (Playwright then reports what to install)."""
    found = find_system_chromium(headless=False)
    if found:
        return found
    cache = Path(os.environ.get("PLAYWRIGHT_BROWSERS_PATH") or Path.home() / ".cache" / "ms-playwright")
    builds = sorted(cache.glob("chromium-*/chrome-linux*/chrome"))
    return str(builds[-1]) if builds else None
