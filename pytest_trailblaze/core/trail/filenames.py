"""Which files are trails: a module of its own, so reading options needs no trail parser."""

from __future__ import annotations

#: Which files are trails unless the user says otherwise (never ``trailblaze.yaml``).
TRAIL_FILE_PATTERNS = ("*.trail.yaml", "trail.yaml")
