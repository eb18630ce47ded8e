"""Where the upstream corpus lives: ``TRAILBLAZE_CORPUS`` or ``../shared/corpus`` beside the checkout.

A module (not only a fixture) because parametrized tests need the location at collection time.
"""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def corpus_root() -> Path | None:
    """The corpus folder (the one holding ``upstream/``); None when it is absent."""
    env = os.environ.get("TRAILBLAZE_CORPUS")
    candidates = [Path(env)] if env else []
    candidates.append(REPO.parent / "shared" / "corpus")
    return next((c for c in candidates if (c / "upstream").is_dir()), None)


def upstream_root() -> Path | None:
    """The corpus's ``upstream/`` folder of real trails and tool YAMLs; None when absent."""
    root = corpus_root()
    return None if root is None else root / "upstream"
