"""Snapshots: a screenshot and the UI hierarchy saved side by side in the test's artifacts.

A screen name holding a secret (``screenName: "{{password}}"``) names the files by the secret's
stable token instead; the hierarchy text, which shows typed values, is masked like any output.
"""

from __future__ import annotations

import re

from ..core.errors import FatalToolError
from ..core.run.driver import Hierarchy, Screenshots
from ..core.tooling.context import ToolContext


def snapshot_stem(screen_name: str) -> str:
    """A file-name-safe stem for a screen name."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", screen_name).strip("_") or "snapshot"


def take_snapshot(ctx: ToolContext, screen_name: str, description: str | None = None) -> str:
    driver = ctx.driver
    if not (isinstance(driver, Screenshots) and isinstance(driver, Hierarchy)):
        raise FatalToolError("this session's driver cannot take snapshots")
    stem = snapshot_stem(ctx.memory.masker.name(screen_name))
    image = driver.screenshot(ctx.artifact(f"snapshots/{stem}.png"))
    tree = ctx.write_artifact(f"snapshots/{stem}.hierarchy.txt", driver.hierarchy())
    note = f" ({description})" if description else ""
    return f"Saved snapshot {screen_name!r}{note}: {image} and {tree.name}"
