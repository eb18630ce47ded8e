"""The web driver: a trail's browser context and page, implementing the driver contract's
``WebSession`` (``core/run/driver.py``) so that nothing above ``drivers/`` touches Playwright.

The browser itself (launch, contexts) is ``browser.py``. The driver is assembled from mixins, one
concern each: element lookup following upstream exactly (``locators.py``: ``css=`` refs, ``eN``
snapshot ids, ARIA descriptors, ``nodeSelector.web`` OR'd with the ref), actions whose attach
wait shares the action's round trip (``element_actions.py``), the event-driven settle after an
action (``settle.py``), verification checks (``page_checks.py``), durable selectors for the agent
(``durable_web.py``), traces and videos (``web_recording.py``) and the ``file://`` pages a trail
may show (``fileurls.py``). Navigation, snapshots and the page's state are here.

A driver knows the Playwright loop its objects belong to (``loopstate.py``): ``active()`` marks it
on the thread for a block and puts the previous mark back, which the plugin does around each
trail so that nothing of Playwright's stays marked between tests.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TypeVar, cast

from ..core.errors import ToolFailure
from ..core.jsondata import JsonObject, JsonValue
from ..core.screen.hierarchy import java_quotes
from ..core.tooling.context import DeviceInfo
from .browser import BrowserHost, prepare_context
from .browser_options import BrowserOptions
from .durable_web import DurableSelectors
from .element_actions import ElementActions, tool_call
from .fileurls import ConfinedFiles
from .locators import ElementLocators
from .loopstate import CallTimeout, PlaywrightLoop, bounded
from .network import CapturedRequest, NetworkCapture, NetworkTracker
from .page_checks import PageChecks
from .pageguard import PageGuard
from .settle import PageSettle
from .web_recording import ContextRecording

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Page

T = TypeVar("T")

#: How long closing a trail's context may take before the trail moves on without it.
CONTEXT_CLOSE_S = 10.0
#: JPEG quality of the pictures a vision model gets: text stays sharp, files stay small.
JPEG_QUALITY = 80


class WebDriver(
    ElementActions, PageChecks, PageSettle, ElementLocators, DurableSelectors, ContextRecording, ConfinedFiles
):
    """One trail's browser context and page (the mixins: see the module's docstring)."""

    platform = "web"
    driver_key = "playwright-native"

    def __init__(
        self,
        context: BrowserContext,
        page: Page,
        options: BrowserOptions,
        loop: PlaywrightLoop | None = None,
        *,
        owned: bool = True,
    ) -> None:
        self.context = context
        self.page = page
        self.options = options
        #: The loop of the Playwright instance that made ``context`` (see ``loopstate.py``).
        self.playwright_loop = loop or PlaywrightLoop.current()
        #: Whether closing the trail closes the context (a handed-in context stays with its owner).
        self.owned = owned
        self.network = NetworkTracker(page)
        self.network_log = NetworkCapture(context, self.network)
        #: Chromium's click ends with a round trip to the page (see ``perform``); the engine is the
        #: context's own, so a context handed in from another browser type is judged by its own.
        browser = context.browser
        engine = browser.browser_type.name if browser is not None else options.browser
        self.clicks_flush = engine == "chromium"
        #: Bounds calls that Playwright lets wait forever on a busy page (``pageguard.py``).
        self.guard = PageGuard.attach(context, page, self.playwright_loop.loop, chromium=self.clicks_flush)

    @classmethod
    def handed(cls, context: BrowserContext, options: BrowserOptions) -> WebDriver:
        """A driver over a context the user handed in (``trailblaze_browser_context``).

        It gets the trail settings and runs in its first page (a new one if it has none); the
        loop marked now is the one of the Playwright that made it, since making it was a sync
        call on this thread. Closing the trail leaves the context to its owner.
        """
        loop = PlaywrightLoop.current()
        prepare_context(context, options)
        page = context.pages[0] if context.pages else context.new_page()
        return cls(context, page, options, loop, owned=False)

    @classmethod
    def open(cls, host: BrowserHost, context_args: Mapping[str, JsonValue] | None = None) -> WebDriver:
        """A trail's driver over a fresh context and page of the host's browser."""
        context = host.new_context(context_args)
        driver = cls(context, context.new_page(), host.options, host.loop)
        driver.video_problem = host.video_problem
        return driver

    @contextmanager
    def active(self) -> Iterator[None]:
        """This driver's Playwright loop marked for the block; the thread's mark put back after."""
        with self.playwright_loop.active():
            yield

    def within(self, action: Callable[[], T], what: str, seconds: float | None = None) -> T:
        """A call into the page bounded by ``seconds`` (the action timeout): a script that never
        yields or a promise that never settles fails the step instead of hanging the run."""
        bound = seconds if seconds is not None else self.options.action_timeout_ms / 1000
        return self.guard.call(action, within_s=bound, what=what)

    # -- the driver contract (Driver, Hierarchy, Screenshots, VisionImages, Pausing) -------------
    def device_info(self) -> DeviceInfo:
        size = self.page.viewport_size or {
            "width": self.options.viewport[0],
            "height": self.options.viewport[1],
        }
        return DeviceInfo("web", self.driver_key, int(size["width"]), int(size["height"]))

    def screenshot(self, path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        with self.active():
            self.check_frames()
            self.within(lambda: self.page.screenshot(path=str(path)), "taking a screenshot")
        return path

    def screen_image(self) -> tuple[bytes, str]:
        """The viewport as a model sees it: a JPEG at CSS pixels, the caret left alone.

        For a vision model, not for evidence (``screenshot`` keeps PNG): JPEG encodes faster than
        PNG and is smaller for photos; CSS pixels keep a high-density device's picture (and the
        model's image tokens) at the size the page is laid out in; leaving the caret skips the
        style Playwright injects to hide it. Animations keep running, as the user would see them.
        """
        with self.active():
            data = self.within(
                lambda: self.page.screenshot(type="jpeg", quality=JPEG_QUALITY, scale="css", caret="initial"),
                "taking a screenshot",
            )
        return data, "image/jpeg"

    def hierarchy(self) -> str:
        """The page's default ARIA snapshot, exactly as ``locator(":root").aria_snapshot()`` prints
        it (the text ``eN`` numbering reads), at a third of its cost.

        The root locator costs Playwright three round trips (resolve, snapshot, release); the
        page's own snapshot costs one and differs only by the root line, which for an ``<html>``
        with no ARIA of its own is ``- document`` holding the page's lines. A root with a role,
        a label, a title or hidden (or a page between two documents) is asked through the
        locator as before.
        """
        from playwright.sync_api import Error

        what = "reading the page's accessibility tree"
        with self.active():
            self.check_frames()
            try:
                plain = self.within(lambda: self.page.evaluate(PLAIN_ROOT), what)
            except Error:  # a document being replaced: the locator waits for the next one
                plain = False
            if plain:
                return as_root_snapshot(self.within(self.page.aria_snapshot, what))
            return self.within(self.page.locator(":root").aria_snapshot, what)

    def sleep(self, seconds: float) -> None:
        self.page.wait_for_timeout(seconds * 1000)

    def close(self) -> None:
        """Close the trail's context; a context whose browser or driver is gone is closed already.

        A handed-in context stays open for its owner, without this trail's listeners.
        """
        from playwright.sync_api import Error

        with self.active(), suppress(Error, CallTimeout):
            if self.owned:
                with bounded(
                    self.playwright_loop.loop, CONTEXT_CLOSE_S
                ):  # the browser's close ends it anyway
                    self.context.close()
            else:
                self.network_log.detach()
                self.release_file_watch()

    # -- navigation (the contract's ``WebNavigation``) -------------------------------------------
    def open_url(self, url: str, trail_dir: Path | None) -> str:
        """Open ``url`` (a relative path against the trail's folder, then the cwd); the URL shown."""
        target = resolve_url(url, trail_dir)
        self.check_url(target)
        page = self.page
        tool_call(
            lambda: self.perform(lambda: page.goto(target), flush=False),
            f"could not open {target}",
            # a page that never finished loading may be stuck in its own script: that is the cause
            timed_out=lambda: self.guard.check_alive(
                f"opening {target}", self.options.navigation_timeout_ms / 1000
            ),
        )
        return str(page.url)

    def history(self, direction: Literal["back", "forward"]) -> str:
        """Go back or forward; the URL shown after. Fails when history has no page that way."""
        page = self.page
        move = page.go_back if direction == "back" else page.go_forward
        before = page.url
        response = tool_call(lambda: self.perform(move), f"could not go {direction}")
        if response is None and page.url == before:
            raise ToolFailure(f"there is no page to go {direction} to (history is empty)")
        return str(page.url)

    def current_url(self) -> str:
        return str(self.page.url)

    def wait_for_url(self, pattern: str, timeout_ms: int) -> str:
        """Wait until the URL matches ``pattern`` (a Java-style regex, ``\\Q...\\E`` quoting too)."""
        regex = re.compile(java_quotes(pattern))
        page = self.page
        tool_call(lambda: page.wait_for_url(regex, timeout=timeout_ms), f"the URL never matched /{pattern}/")
        return str(page.url)

    # -- the page's state (the contract's ``WebPage``) -------------------------------------------
    def evaluate(self, script: str) -> JsonValue:
        """Evaluate JavaScript in the page; its result as JSON-shaped data."""
        result = tool_call(
            lambda: self.within(lambda: self.page.evaluate(script), "web_evaluate"), "the script failed"
        )
        self.check_frames()
        return cast(JsonValue, result)

    def storage_state(self) -> JsonObject:
        return cast(JsonObject, self.within(self.context.storage_state, "reading the storage state"))

    def add_cookies(self, cookies: list[JsonObject]) -> None:
        # Playwright checks each cookie's fields; a wrong one fails the call with its reason
        tool_call(lambda: self.context.add_cookies(cookies), "could not apply the cookies")  # type: ignore[arg-type]

    def resize(self, width: int, height: int) -> None:
        self.within(lambda: self.page.set_viewport_size({"width": width, "height": height}), "resizing")

    def sent_requests(self) -> Sequence[CapturedRequest]:
        """Every request this trail's pages sent so far, oldest first."""
        return self.network_log.requests


#: Whether the document's root is a plain ``<html>``: nothing on it that changes its ARIA line.
PLAIN_ROOT = """() => {
  const root = document.documentElement;
  const xhtml = 'http://www.w3.org/1999/xhtml';
  if (!root || root.localName !== 'html' || root.namespaceURI !== xhtml) return false;
  for (const { name } of root.attributes) {
    if (['role', 'title', 'hidden', 'style'].includes(name) || name.startsWith('aria-')) return false;
  }
  return true;
}"""


def as_root_snapshot(page_snapshot: str) -> str:
    """A page snapshot as the root locator prints it: under ``- document``, a lone text inline."""
    if not page_snapshot:
        return "- document"
    if "\n" not in page_snapshot and page_snapshot.startswith("- text: "):
        return "- document: " + page_snapshot[len("- text: ") :]
    return "- document:\n" + "\n".join("  " + line for line in page_snapshot.split("\n"))


def resolve_url(url: str, trail_dir: Path | None, cwd: Path | None = None) -> str:
    text = url.strip()
    if "://" in text or text.split(":", 1)[0] in ("about", "data", "javascript", "blob"):
        return text
    path_part, sep, rest = _split_suffix(text)
    for base in (trail_dir, cwd or Path.cwd()):
        if base is None:
            continue
        candidate = (base / path_part).resolve()
        if candidate.exists() or base is not trail_dir:
            return candidate.as_uri() + sep + rest
    return text


def _split_suffix(text: str) -> tuple[str, str, str]:
    """``page.html#counter`` -> (``page.html``, ``#``, ``counter``)."""
    cut = min((i for i in (text.find("#"), text.find("?")) if i >= 0), default=-1)
    if cut < 0:
        return text, "", ""
    return text[:cut], text[cut], text[cut + 1 :]
