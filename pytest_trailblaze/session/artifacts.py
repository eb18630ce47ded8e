"""Where a trail's files go: one folder per test id under the run's output folder."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from .settings import Settings

#: Characters of the test id kept in an artifact folder's name (its end: trail name and platform).
SLUG_CHARS = 120


def artifacts_dir(settings: Settings, nodeid: str) -> Path:
    """A per-test folder: the end of the test id made file-safe, then a short hash of the whole id.

    The hash keeps apart two ids that differ only where the slug was cut or where it folded
    characters together; it has no salt or counter, so a test finds its folder on every run.
    """
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", nodeid).strip("-")[-SLUG_CHARS:].lstrip("-.")
    digest = hashlib.sha256(nodeid.encode()).hexdigest()[:10]
    return settings.output_dir / (f"{slug}-{digest}" if slug else digest)


def display_path(path: Path) -> str:
    """A path as reports show it: relative to the working folder when it lies inside it."""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)
