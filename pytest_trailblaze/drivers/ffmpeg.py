"""The ffmpeg Playwright records videos with, and how to provide one without downloading it.

Playwright looks for ``ffmpeg-<revision>/ffmpeg-<os>`` in its browsers folder
(``PLAYWRIGHT_BROWSERS_PATH``, else the user's cache) and ``playwright install ffmpeg``
downloads it there. Where that download cannot happen (an offline CI), ``install`` links a
registry-installed ffmpeg in its place: the one PyPI's ``imageio-ffmpeg`` ships (the ``video``
extra), else an ``ffmpeg`` on PATH.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

_NAMES = {"linux": "ffmpeg-linux", "darwin": "ffmpeg-mac", "win32": "ffmpeg-win64.exe"}


def _package() -> Path:
    import playwright

    return Path(playwright.__file__).resolve().parent / "driver" / "package"


def _registry() -> Path:
    """Playwright's browsers folder, as its driver computes it."""
    given = os.environ.get("PLAYWRIGHT_BROWSERS_PATH")
    if given == "0":
        return _package() / ".local-browsers"
    if given:
        return Path(given) if Path(given).is_absolute() else Path.cwd() / given
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / "ms-playwright"
    if sys.platform == "win32":
        return Path(os.environ.get("LOCALAPPDATA", Path.home())) / "ms-playwright"
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "ms-playwright"


def playwright_ffmpeg() -> Path:
    """Where Playwright's driver looks for its ffmpeg."""
    browsers = json.loads((_package() / "browsers.json").read_text(encoding="utf-8"))["browsers"]
    revision = next(b["revision"] for b in browsers if b["name"] == "ffmpeg")
    return _registry() / f"ffmpeg-{revision}" / _NAMES.get(sys.platform, "ffmpeg-linux")


def missing() -> str | None:
    """Why videos cannot be recorded now (with the fix), or None when Playwright has its ffmpeg."""
    path = playwright_ffmpeg()
    if path.is_file():
        return None
    return (
        f"Playwright's ffmpeg is missing at {path}; fix: `playwright install ffmpeg`, or offline: "
        f"`pip install 'pytest-trailblaze[video]'` then `trailblaze install-ffmpeg`"
    )


def available() -> Path | None:
    """An ffmpeg this machine has: imageio-ffmpeg's, else one on PATH."""
    try:
        import imageio_ffmpeg
    except ImportError:
        found = shutil.which("ffmpeg")
        return Path(found) if found else None
    return Path(imageio_ffmpeg.get_ffmpeg_exe())


def install() -> Path:
    """Link an available ffmpeg where Playwright looks for its own; returns that path.

    Raises ``FileNotFoundError`` (with the fix) when this machine has no ffmpeg to link.
    """
    target = playwright_ffmpeg()
    if target.is_file():
        return target
    source = available()
    if source is None:
        raise FileNotFoundError(
            "no ffmpeg to link: install one with `pip install imageio-ffmpeg` (or your system's "
            "ffmpeg package), or let Playwright download its own: `playwright install ffmpeg`"
        )
    target.parent.mkdir(parents=True, exist_ok=True)
    target.unlink(missing_ok=True)  # a dangling link left by an earlier install
    try:
        target.symlink_to(source)
    except OSError:  # no symlinks here (Windows without the right): a copy serves as well
        shutil.copy2(source, target)
    return target
