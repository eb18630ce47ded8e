"""Shared fixtures of the test suite: where the upstream corpus lives."""

from __future__ import annotations

from pathlib import Path

import playwright.sync_api  # noqa: F401  (see below)
import pytest
from corpus import corpus_root

# In-process pytester runs snapshot sys.modules and drop what an inner run imported. Playwright
# imported by one inner run and re-imported by the next gives two copies of its classes, and
# ``expect()`` then rejects a Locator of the other copy. Importing it here keeps a single copy.


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    root = corpus_root()
    if root is None:
        pytest.skip("the upstream corpus is absent (set TRAILBLAZE_CORPUS or check out ../shared)")
    return root
