"""Which ``file://`` URLs a web trail may open: files inside its workspace and the rootdir only.

A page opened from disk becomes evidence: its accessibility snapshot, its screenshot, its trace.
A stranger's trail that opens ``file:///etc/passwd`` (or a page of its own that sends the browser
there, or frames it) would copy that file into CI artifacts anyone can download. So a trail's
browser is confined: ``web_navigate`` refuses such a URL before the browser sees it, and after
every action and before evidence is taken the driver looks at the URL of every frame of the page;
one outside is blanked and the step fails, naming the URL and the flag that widens the roots
(``--trailblaze-allow-file-urls PATH``, ini ``trailblaze_allow_file_urls``).
"""

from __future__ import annotations

from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlsplit

from ..core.errors import ToolFailure
from ..core.system.files import inside

if TYPE_CHECKING:
    from playwright.sync_api import Page

    from .browser import BrowserOptions

ALLOW_OPTION = "--trailblaze-allow-file-urls"


@dataclass(frozen=True)
class FileUrlPolicy:
    """The folders ``file://`` URLs may lie in (links followed)."""

    roots: tuple[Path, ...]

    def refusal(self, url: str) -> str | None:
        """Why ``url`` may not be opened, or None when it may (any URL that is not ``file:``)."""
        parts = urlsplit(url.strip())
        if parts.scheme.lower() != "file":
            return None
        shown = " or ".join(str(r) for r in self.roots) or "no folder"
        if parts.netloc not in ("", "localhost"):
            return (
                f"{url} names a file on another host ({parts.netloc}); web trails open local files only, "
                f"inside {shown}"
            )
        path = Path(unquote(parts.path))
        if inside(path, self.roots):
            return None
        return (
            f"{url} is outside the folders web trails may open files from ({shown}): a page opened "
            "from disk ends up in screenshots, snapshots and traces\n"
            f"  fix: open pages of the project, or allow the folder with {ALLOW_OPTION} PATH "
            "(ini trailblaze_allow_file_urls)"
        )


class ConfinedFiles:
    """The web driver's side (a mixin of ``WebDriver``): refuse a URL, check the page's frames."""

    page: Page
    options: BrowserOptions
    #: Where ``file://`` URLs may lead; None: anywhere (a driver used on its own, in a test).
    file_urls: FileUrlPolicy | None = None

    def confine_file_urls(self, roots: tuple[Path, ...]) -> None:
        """From now on, ``file://`` URLs must lie in ``roots`` (see ``fileurls.py``)."""
        self.file_urls = FileUrlPolicy(roots)

    def check_url(self, url: str) -> None:
        """Refuse, before the browser sees it, a URL this trail may not open."""
        refusal = self.file_urls.refusal(url) if self.file_urls is not None else None
        if refusal:
            raise ToolFailure(f"refused to open {refusal}")

    def check_frames(self) -> None:
        """A frame of the page showing a file this trail may not open is blanked, and the step fails
        (a page of the project may send the browser elsewhere on disk, or frame it)."""
        if self.file_urls is None:
            return
        for frame in self.page.frames:
            refusal = self.file_urls.refusal(frame.url)
            if refusal:
                self._blank()
                raise ToolFailure(f"the page went to {refusal}\n  the page was blanked")

    def _blank(self) -> None:
        from playwright.sync_api import Error

        with suppress(Error):
            self.page.goto("about:blank", timeout=self.options.navigation_timeout_ms)
