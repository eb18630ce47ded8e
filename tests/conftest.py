"""Shared fixtures of the test suite: where the upstream corpus lives."""

from __future__ import annotations

import os
from pathlib import Path

import playwright.sync_api  # noqa: F401  (see below)
import pytest
from corpus import corpus_root

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"

# In-process pytester runs snapshot sys.modules and drop what an inner run imported. Playwright
# imported by one inner run and re-imported by the next gives two copies of its classes, and
# ``expect()`` then rejects a Locator of the other copy. Importing it here keeps a single copy.


@pytest.fixture(autouse=True)
def _inner_runs_in_file_order(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """pytest-randomly is installed for the combination tests; every other inner pytest run
    (pytester, in process or not) keeps file order, which its assertions on output rely on. A
    test that wants it shuffled passes ``-p randomly``, which comes later and wins.

    Set once ``pytester`` exists: it clears ``PYTEST_ADDOPTS`` as it starts. The inner runs may
    also open the example pages (the sample app) by ``file://`` URL, as a user allows a folder
    outside the project: they live in this repository, outside each pytester folder."""
    if "pytester" in request.fixturenames:
        request.getfixturevalue("pytester")
        addopts = os.environ.get("PYTEST_ADDOPTS", "")
        allowed = f"--trailblaze-allow-file-urls={EXAMPLES}"
        monkeypatch.setenv("PYTEST_ADDOPTS", f"{addopts} -p no:randomly {allowed}".strip())


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    root = corpus_root()
    if root is None:
        pytest.skip("the upstream corpus is absent (set TRAILBLAZE_CORPUS or check out ../shared)")
    return root
