"""Appium screen recording for ``--trailblaze-video``: ``start_recording_screen`` when a trail
starts, ``stop_recording_screen`` (a base64 MP4) when it ends.

Drivers that record the screen (UiAutomator2, XCUITest, ...) give a video; one that does not
(Appium's fake driver, some cloud drivers) answers the start with an error: the trail runs on,
and the run notes once which driver could not record and what the server said.
"""

from __future__ import annotations

import base64
import binascii
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.errors import first_line

if TYPE_CHECKING:
    from appium.webdriver.webdriver import WebDriver as AppiumSession

VIDEO_NAME = "video.mp4"


class ScreenRecording:
    """The recording half of the driver protocol for an Appium session (``self.session``)."""

    session: AppiumSession
    platform: str
    _recording: bool = False

    def start_recording(self, *, video: bool, tracing: bool) -> list[str]:
        """Start the screen recording when ``video``; returns notes on what could not start.

        Traces are Playwright's: a mobile session has none, and says nothing about it.
        """
        from selenium.common.exceptions import WebDriverException

        if not video:
            return []
        try:
            self.session.start_recording_screen()
        except WebDriverException as exc:
            caps = dict(getattr(self.session, "capabilities", {}) or {})
            name = caps.get("automationName") or caps.get("appium:automationName") or "?"
            return [
                f"video: not recorded on {self.platform}: the Appium driver '{name}' cannot record the "
                f"screen (start_recording_screen: {first_line(exc, exc.msg)})"
            ]
        self._recording = True
        return []

    def stop_recording(self, folder: Path | None) -> list[Path]:
        """Stop a running recording; keep it as ``folder/video.mp4`` when ``folder`` is given."""
        from selenium.common.exceptions import WebDriverException

        if not self._recording:
            return []
        self._recording = False
        try:
            encoded = self.session.stop_recording_screen()
        except WebDriverException:
            return []
        if folder is None or not encoded:
            return []
        try:
            data = base64.b64decode(encoded, validate=True)
        except (binascii.Error, ValueError):
            return []
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / VIDEO_NAME
        path.write_bytes(data)
        return [path]
