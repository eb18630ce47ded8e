"""How a run obtains its browser, as read from its options: a module of its own, so reading
options imports neither Playwright's loop nor the browser host (``browser.py``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class BrowserOptions:
    """How to obtain a browser; resolved once from options, ini and fixtures."""

    browser: str = "chromium"
    headed: bool = False
    executable_path: str | None = None
    launch_args: tuple[str, ...] = ()
    connect: str | None = None
    #: A running Chromium's DevTools endpoint, attached over CDP (``drivers.remote``).
    cdp: str | None = None
    #: Headers of ``connect`` / ``connect_over_cdp`` (tokens: kept out of reprs and messages).
    connect_headers: Mapping[str, str] = field(default_factory=dict, repr=False)
    #: Playwright's keyword arguments of ``connect`` / ``connect_over_cdp`` (``slow_mo``...).
    connect_options: Mapping[str, Any] = field(default_factory=dict)
    viewport: tuple[int, int] = (1280, 800)
    action_timeout_ms: int = 30_000
    navigation_timeout_ms: int = 30_000
    settle_quiet_ms: int = 500
    launch_timeout_s: float = 30.0
    #: Other ``launch()`` keyword arguments (``channel``, ``slow_mo``, ``env``...).
    extra_launch: Mapping[str, Any] = field(default_factory=dict)
    #: Record a video of every trail context into this folder (``--trailblaze-video``); None: no video.
    video_dir: Path | None = None
