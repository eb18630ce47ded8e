"""Playwright traces and videos of a web trail's context (``--trailblaze-tracing`` / ``-video``).

A trace starts with the trail's first step (screenshots and DOM snapshots, no sources) and is
written as ``trace.zip`` (open it with ``playwright show-trace``). A video is recorded from the
context's creation when ``BrowserHost`` made the context with a video folder; it is complete
only once its page closes, so keeping it closes the context first, then saves ``video.webm``.
A context handed in by the user keeps its owner's recording settings.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.errors import first_line

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Page

TRACE_NAME = "trace.zip"
VIDEO_NAME = "video.webm"


class ContextRecording:
    """The recording half of the driver protocol for a Playwright context (``self.context``)."""

    context: BrowserContext
    page: Page
    owned: bool
    #: Why the context records no video although one was asked for (set by ``BrowserHost``).
    video_problem: str | None = None
    _tracing: bool = False
    _group_open: bool = False

    #: Marks the context's Playwright loop for a block (``WebDriver.active``).
    active: Callable[[], AbstractContextManager[None]]

    def start_recording(self, *, video: bool, tracing: bool) -> list[str]:
        """Start the trace; returns notes on what is not recorded (trace or video) and why."""
        from playwright.sync_api import Error

        notes = []
        with self.active():
            if tracing:
                try:
                    self.context.tracing.start(screenshots=True, snapshots=True, sources=False)
                    self._tracing = True
                except Error as exc:  # e.g. a handed-in context its owner traces already
                    notes.append(f"trace: not recorded: {first_line(exc)}")
            if video and self.page.video is None:
                why = self.video_problem or "the context was handed in without `record_video_dir`"
                notes.append(f"video: not recorded: {why}")
        return notes

    def recording_step(self, title: str | None) -> None:
        """Open a group named ``title`` in the trace (its step), closing the previous one; None
        closes the open group. The trace viewer then lists tool calls under their step."""
        if not self._tracing:
            return
        with self.active():
            if self._group_open:
                self.context.tracing.group_end()
            if title is not None:
                self.context.tracing.group(title)
            self._group_open = title is not None

    def stop_recording(self, folder: Path | None) -> list[Path]:
        """Stop the trace and finish the video; save them into ``folder`` (None: discard)."""
        saved = []
        with self.active():
            if self._tracing:
                self._tracing = self._group_open = False
                trace = folder / TRACE_NAME if folder is not None else None
                self.context.tracing.stop(path=str(trace) if trace else None)
                saved += [trace] if trace else []
            video = self.page.video if self.owned else None
            if video is not None:
                self.context.close()  # the video is written when its page closes
                if folder is not None:
                    video.save_as(str(folder / VIDEO_NAME))
                    saved.append(folder / VIDEO_NAME)
                video.delete()
        return saved
