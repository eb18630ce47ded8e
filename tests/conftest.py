"""Shared fixtures of the test suite: where the upstream corpus lives."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import playwright.sync_api  # noqa: F401  (see below)
import pytest
from corpus import corpus_root

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"

# In-process pytester runs snapshot sys.modules and drop what an inner run imported. Playwright
# imported by one inner run and re-imported by the next gives two copies of its classes, and
# ``expect()`` then rejects a Locator of the other copy. Importing it here keeps a single copy.


#: Inner runs open the example pages (the sample app) by ``file://`` URL. They live in this
#: repository, outside each inner run's folder, so the inner runs allow them as a user allows a
#: folder outside the project.
ALLOW_EXAMPLES = f"--trailblaze-allow-file-urls={EXAMPLES}"


@pytest.fixture(autouse=True, scope="session")
def _inner_runs_open_the_examples() -> Iterator[None]:
    """Every pytest this suite starts as a subprocess (pytester's own runs: see below) gets
    ``ALLOW_EXAMPLES`` through ``PYTEST_ADDOPTS``."""
    with pytest.MonkeyPatch.context() as patch:
        addopts = os.environ.get("PYTEST_ADDOPTS", "")
        patch.setenv("PYTEST_ADDOPTS", f"{addopts} {ALLOW_EXAMPLES}".strip())
        yield


@pytest.fixture(autouse=True)
def _inner_runs_in_file_order(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """pytest-randomly is installed for the combination tests; every other inner pytest run
    (pytester, in process or not) keeps file order, which its assertions on output rely on. A
    test that wants it shuffled passes ``-p randomly``, which comes later and wins.

    Set once ``pytester`` exists: it clears ``PYTEST_ADDOPTS`` as it starts (``ALLOW_EXAMPLES``
    is put back with it)."""
    if "pytester" in request.fixturenames:
        request.getfixturevalue("pytester")
        addopts = os.environ.get("PYTEST_ADDOPTS", "")
        monkeypatch.setenv("PYTEST_ADDOPTS", f"{addopts} -p no:randomly {ALLOW_EXAMPLES}".strip())


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    root = corpus_root()
    if root is None:
        pytest.skip("the upstream corpus is absent (set TRAILBLAZE_CORPUS or check out ../shared)")
    return root
