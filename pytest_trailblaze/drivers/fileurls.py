"""Which ``file://`` URLs a web trail may open: files inside its workspace and the rootdir only.

A page opened from disk becomes evidence: its accessibility snapshot, its screenshot, its trace.
A stranger's trail that opens ``file:///etc/passwd`` (or a page of its own that sends the browser
there, frames it or opens it in a popup) would copy that file into CI artifacts anyone can
download. So a trail's browser is confined:

- ``web_navigate`` refuses such a URL before the browser sees it (also wrapped, as
  ``view-source:file:///etc/passwd``);
- every navigation of every frame of every page of the trail's context (popups included) is
  watched as it happens, so a page that goes to such a file, even for a moment, is known;
- after every action and before evidence is taken, a frame showing such a file is blanked (a
  popup closed) and the step fails, naming the URL and the flag that widens the roots
  (``--trailblaze-allow-file-urls PATH``, ini ``trailblaze_allow_file_urls``);
- the trace and the video, which record pages as they are shown, are not kept for a trail that
  showed such a file (``file_url_breach``).
"""

from __future__ import annotations

from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlsplit

from ..core.errors import ToolFailure
from ..core.system.files import inside

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Frame, Page

    from .browser_options import BrowserOptions

ALLOW_OPTION = "--trailblaze-allow-file-urls"
#: Schemes that show another URL's content: the URL they wrap is judged instead.
WRAPPERS = ("view-source:", "filesystem:")


@dataclass(frozen=True)
class FileUrlPolicy:
    """The folders ``file://`` URLs may lie in (links followed)."""

    roots: tuple[Path, ...]

    def refusal(self, url: str) -> str | None:
        """Why ``url`` may not be opened, or None when it may (any URL that is not ``file:``,
        nor one wrapping a ``file:`` URL)."""
        inner = url.strip()
        while inner.lower().startswith(WRAPPERS):
            inner = inner.split(":", 1)[1].strip()
        parts = urlsplit(inner)
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


@dataclass
class Watch:
    """The listeners that see every navigation of a context's pages, and the first URL outside."""

    policy: FileUrlPolicy
    context: BrowserContext
    breach: str | None = None
    pages: list[Page] = field(default_factory=list)

    def start(self) -> None:
        self.context.on("page", self.page)
        for page in self.context.pages:
            self.page(page)

    def page(self, page: Page) -> None:
        """Watch a page, and judge where it is already (a popup may have loaded before its
        ``page`` event is dispatched)."""
        self.pages.append(page)
        page.on("framenavigated", self.navigated)
        for frame in page.frames:
            self.navigated(frame)

    def navigated(self, frame: Frame) -> None:
        if self.breach is None and self.policy.refusal(frame.url):
            self.breach = frame.url

    def stop(self) -> None:
        """Take the listeners off (a handed-in context outlives the trail)."""
        with suppress(Exception):
            self.context.remove_listener("page", self.page)
        for page in self.pages:
            with suppress(Exception):
                page.remove_listener("framenavigated", self.navigated)
        self.pages.clear()


class ConfinedFiles:
    """The web driver's side (a mixin of ``WebDriver``): refuse a URL, watch and check the pages."""

    page: Page
    context: BrowserContext
    options: BrowserOptions
    #: Where ``file://`` URLs may lead; None: anywhere (a driver used on its own, in a test).
    file_urls: FileUrlPolicy | None = None
    _watch: Watch | None = None
    #: The breach the step failed for already (each fails one step).
    _told: str | None = None

    def confine_file_urls(self, roots: tuple[Path, ...]) -> None:
        """From now on, ``file://`` URLs must lie in ``roots`` (see ``fileurls.py``)."""
        self.file_urls = FileUrlPolicy(roots)
        self.release_file_watch()
        self._watch = Watch(self.file_urls, self.context)
        self._watch.start()

    def file_url_breach(self) -> str | None:
        """The first URL outside the roots a page of this trail showed, if any (even briefly)."""
        return self._watch.breach if self._watch is not None else None

    def release_file_watch(self) -> None:
        if self._watch is not None:
            self._watch.stop()

    def check_url(self, url: str) -> None:
        """Refuse, before the browser sees it, a URL this trail may not open."""
        refusal = self.file_urls.refusal(url) if self.file_urls is not None else None
        if refusal:
            raise ToolFailure(f"refused to open {refusal}")

    def check_frames(self) -> None:
        """A frame showing a file this trail may not open is blanked (a popup closed), and the step
        fails; so does a page that went to such a file and left it again (a page of the project may
        send the browser elsewhere on disk, frame it or open it in a popup)."""
        if self.file_urls is None:
            return
        for page in list(self.context.pages) or [self.page]:
            for frame in page.frames:
                refusal = self.file_urls.refusal(frame.url)
                if refusal:
                    if self._watch is not None:
                        self._watch.navigated(frame)  # a page the listeners have not seen yet
                    self._told = self.file_url_breach()
                    what = self._blank(page)
                    raise ToolFailure(f"the page went to {refusal}\n  the page {what}")
        breach = self.file_url_breach()
        if breach is not None and breach != self._told:
            self._told = breach
            raise ToolFailure(
                f"the page went to {self.file_urls.refusal(breach)}\n  it showed that file for a moment "
                "(the trace and the video of this trail are not kept)"
            )

    def _blank(self, page: Page) -> str:
        from playwright.sync_api import Error

        if page is not self.page:
            with suppress(Error):
                page.close()
            return "was a popup: it was closed"
        with suppress(Error):
            page.goto("about:blank", timeout=self.options.navigation_timeout_ms)
        return "was blanked"
