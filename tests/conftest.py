"""Shared fixtures of the test suite: where the upstream corpus lives."""

from __future__ import annotations

import os
from pathlib import Path

import playwright.sync_api  # noqa: F401  (see below)
import pytest

# In-process pytester runs snapshot sys.modules and drop what an inner run imported. Playwright
# imported by one inner run and re-imported by the next gives two copies of its classes, and
# ``expect()`` then rejects a Locator of the other copy. Importing it here keeps a single copy.

REPO = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"


def corpus_root() -> Path | None:
    """``TRAILBLAZE_CORPUS`` or ``../shared/corpus`` beside the checkout; None when absent."""
    env = os.environ.get("TRAILBLAZE_CORPUS")
    candidates = [Path(env)] if env else []
    candidates.append(REPO.parent / "shared" / "corpus")
    return next((c for c in candidates if (c / "upstream").is_dir()), None)


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    root = corpus_root()
    if root is None:
        pytest.skip("the upstream corpus is absent (set TRAILBLAZE_CORPUS or check out ../shared)")
    return root
