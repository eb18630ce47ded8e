"""The web driver: one Playwright browser per worker, a fresh context and page per trail.

Element lookup follows U§4.8 exactly (``css=`` refs, ``eN`` snapshot ids, ARIA descriptors,
``nodeSelector.web`` OR'd with the ref, a 10 s attach wait). Two choices keep replay close to
raw Playwright speed without changing what a trail means:

* the attach wait and the action share one round trip: the action runs with the attach budget
  first, and only when it times out do we ask whether the element exists at all (not found →
  the "No element found" failure; found but not actionable → the action gets its full timeout);
* the post-action settle is event-driven: network activity is tracked from Playwright's own
  events, so an action that started no request costs nothing, while one that navigated waits for
  ``load`` (10 s cap) and one that started requests waits for them to drain (5 s cap) plus a
  quiet window.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from ..core.context import DeviceInfo
from ..core.errors import DriverError, FatalToolError, ToolFailure, first_line
from . import aria

T = TypeVar("T")

CHROMIUM_FLAGS = (
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)
SYSTEM_CHROMIUM = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
ATTACH_TIMEOUT_MS = 10_000
NAVIGATION_SETTLE_MS = 10_000
DRAIN_SETTLE_MS = 5_000
TRACKED_RESOURCES = frozenset({"document", "stylesheet", "script", "xhr", "fetch"})
FALLBACK_ROLES = (
    "textbox",
    "searchbox",
    "combobox",
    "button",
    "link",
    "checkbox",
    "radio",
    "tab",
    "menuitem",
    "option",
)
NO_ANIMATIONS = """(() => {
  const css = '*,*::before,*::after{animation-duration:0s!important;animation-delay:0s!important;' +
              'transition-duration:0s!important;transition-delay:0s!important;caret-color:transparent!important}';
  const add = () => { const s = document.createElement('style'); s.textContent = css;
                      (document.head || document.documentElement).appendChild(s); };
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', add); else add();
})();"""


@dataclass(frozen=True)
class BrowserOptions:
    """How to obtain a browser; resolved once from options, ini and fixtures."""

    browser: str = "chromium"
    headed: bool = False
    executable_path: str | None = None
    launch_args: tuple[str, ...] = ()
    connect: str | None = None
    viewport: tuple[int, int] = (1280, 800)
    action_timeout_ms: int = 30_000
    navigation_timeout_ms: int = 30_000
    settle_quiet_ms: int = 500
    extra_launch: Mapping[str, Any] = field(default_factory=dict)


def find_system_chromium() -> str | None:
    """Debian's (or any distro's) Chromium on PATH, for machines without Playwright's own build."""
    for name in SYSTEM_CHROMIUM:
        found = shutil.which(name)
        if found:
            return found
    return "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None


class BrowserHost:
    """Starts Playwright and one browser on first use; stops both at the end of the session."""

    def __init__(self, options: BrowserOptions) -> None:
        self.options = options
        self._playwright: Any = None
        self._browser: Any = None
        self._failure: DriverError | None = None

    @property
    def browser(self) -> Any:
        """The browser, started on first use; a failed start is reported again, not retried."""
        if self._failure is not None:
            raise DriverError(str(self._failure))
        if self._browser is None:
            try:
                self._browser = self._start()
            except DriverError as exc:
                self._failure = exc
                raise
        return self._browser

    def launch_kwargs(self) -> dict[str, Any]:
        """Launch arguments; a missing Playwright Chromium falls back to the system one."""
        opts = self.options
        kwargs: dict[str, Any] = {"headless": not opts.headed, **dict(opts.extra_launch)}
        args = list(opts.launch_args)
        if opts.browser == "chromium":
            args = [*CHROMIUM_FLAGS, *args]
        if args:
            kwargs["args"] = args
        if opts.executable_path:
            kwargs["executable_path"] = opts.executable_path
        return kwargs

    def _start(self) -> Any:
        from playwright.sync_api import Error, sync_playwright

        self._playwright = sync_playwright().start()
        browser_type = getattr(self._playwright, self.options.browser)
        try:
            if self.options.connect:
                return browser_type.connect(self.options.connect)
            kwargs = self.launch_kwargs()
            if "executable_path" not in kwargs and self.options.browser == "chromium":
                bundled = Path(browser_type.executable_path)
                if not bundled.exists():
                    kwargs["executable_path"] = find_system_chromium() or str(bundled)
            return browser_type.launch(**kwargs)
        except Error as exc:
            self.close()
            raise DriverError(self._start_failure(exc)) from None

    def _start_failure(self, exc: Exception) -> str:
        first = first_line(exc)
        if self.options.connect:
            return (
                f"could not connect to the browser at {self.options.connect}: {first}\n"
                f"  fix: start a Playwright browser server there, or drop --trailblaze-connect"
            )
        return (
            f"could not start {self.options.browser}: {first}\n"
            f"  fix: install Chromium (Debian: apt-get install chromium) or pass "
            f"--trailblaze-browser-path /path/to/browser"
        )

    def new_driver(
        self, base_dir: Path | None = None, context_args: Mapping[str, Any] | None = None
    ) -> WebDriver:
        width, height = self.options.viewport
        args = {"viewport": {"width": width, "height": height}, **dict(context_args or {})}
        context = self.browser.new_context(**args)
        context.set_default_timeout(self.options.action_timeout_ms)
        context.set_default_navigation_timeout(self.options.navigation_timeout_ms)
        context.add_init_script(NO_ANIMATIONS)
        return WebDriver(context, context.new_page(), self.options)

    def close(self) -> None:
        browser, playwright = self._browser, self._playwright
        self._browser = self._playwright = None
        try:
            if browser is not None:
                browser.close()
        finally:
            if playwright is not None:
                playwright.stop()


class NetworkTracker:
    """Counts requests that matter for settling, from Playwright's page events."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.pending: set[Any] = set()
        self.started = 0
        self.navigations = 0
        page.on("request", self._started)
        page.on("requestfinished", self._ended)
        page.on("requestfailed", self._ended)

    def _started(self, request: Any) -> None:
        if request.resource_type not in TRACKED_RESOURCES:
            return
        self.pending.add(request)
        self.started += 1
        if request.is_navigation_request() and request.frame == self.page.main_frame:
            self.navigations += 1

    def _ended(self, request: Any) -> None:
        self.pending.discard(request)


class WebDriver:
    """One trail's browser context and page, and the element resolution of U§4.8."""

    platform = "web"
    driver_key = "playwright-native"

    def __init__(self, context: Any, page: Any, options: BrowserOptions) -> None:
        self.context = context
        self.page = page
        self.options = options
        self.network = NetworkTracker(page)

    # -- the driver protocol ----------------------------------------------------------------
    def device_info(self) -> DeviceInfo:
        size = self.page.viewport_size or {
            "width": self.options.viewport[0],
            "height": self.options.viewport[1],
        }
        return DeviceInfo("web", self.driver_key, int(size["width"]), int(size["height"]))

    def screenshot(self, path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=str(path))
        return path

    def hierarchy(self) -> str:
        return self.page.locator(":root").aria_snapshot()

    def sleep(self, seconds: float) -> None:
        self.page.wait_for_timeout(seconds * 1000)

    def close(self) -> None:
        self.context.close()

    # -- settle -------------------------------------------------------------------------------
    def perform(self, action: Callable[[], T], *, flush: bool = True) -> T:
        """Run a page action, then wait as long as the page is still busy because of it.

        Playwright delivers the request events an action caused with its next message, so one
        cheap round trip (``flush``) comes first; it also brings ``page.url`` up to date.
        """
        started, navigations = self.network.started, self.network.navigations
        result = action()
        navigated = False
        if flush:
            navigated = not self._flush()
        if navigated or self.network.started != started:
            self._settle(navigated=navigated or self.network.navigations != navigations)
        return result

    def _flush(self) -> bool:
        """One round trip to the page; False when the page was navigating away meanwhile."""
        from playwright.sync_api import Error

        try:
            self.page.evaluate("0")
        except Error:
            return False
        return True

    def _settle(self, *, navigated: bool) -> None:
        from playwright.sync_api import Error

        page = self.page
        try:
            if navigated:
                page.wait_for_load_state("load", timeout=NAVIGATION_SETTLE_MS)
                return
            waited = 0
            while self.network.pending and waited < DRAIN_SETTLE_MS:
                page.wait_for_timeout(25)
                waited += 25
            if self.options.settle_quiet_ms:
                page.wait_for_timeout(self.options.settle_quiet_ms)
        except Error:
            return  # a page still loading is not a failure of the action that started it

    # -- element resolution (U§4.8) -----------------------------------------------------------
    def locate(self, ref: str | None, node_selector: Mapping[str, Any] | None) -> tuple[Any, str]:
        """The locator for a ref and/or nodeSelector, and a description for messages."""
        node = self._node_locator(node_selector) if node_selector else None
        ref_text = (ref or "").strip()
        by_ref = self._ref_locator(ref_text, required=node is None) if ref_text else None
        if node is None and by_ref is None:
            raise ToolFailure(
                "Element ref is required: give `ref` (css=..., eN or an ARIA descriptor) "
                "or a usable `nodeSelector.web`"
            )
        described = " or ".join(
            d for d in (describe_selector(node_selector) if node is not None else "", ref_text) if d
        )
        if node is not None and by_ref is not None:
            return node.or_(by_ref), described
        return (node if node is not None else by_ref), described

    def act(self, locator: Any, described: str, action: Callable[[Any, float], T]) -> T:
        """Run ``action(locator, timeout)`` with the attach wait folded into its first attempt.

        A first attempt gets the attach budget (10 s). If it times out before acting, either no
        element exists ("No element found") or it exists but is not actionable yet, and the action
        gets its full timeout. A timeout after the action was done (a navigation that is slow to
        commit) is not retried: the settle waits for the page instead.
        """
        from playwright.sync_api import TimeoutError as PlaywrightTimeout

        try:
            return self._guarded(lambda: self.perform(lambda: action(locator, ATTACH_TIMEOUT_MS)), described)
        except PlaywrightTimeout as exc:
            if _action_done(exc):
                self._settle(navigated=True)
                return None  # type: ignore[return-value]
            if locator.count() == 0:
                raise ToolFailure(
                    f"No element found matching {described} (waited {ATTACH_TIMEOUT_MS // 1000} s)"
                ) from None
        try:
            return self._guarded(
                lambda: self.perform(lambda: action(locator, self.options.action_timeout_ms)), described
            )
        except PlaywrightTimeout as exc:
            raise ToolFailure(f"{described}: {first_line(exc)}") from None

    def _guarded(self, call: Callable[[], T], described: str) -> T:
        """Playwright errors other than timeouts become tool failures (or fatal, if the page is gone)."""
        from playwright.sync_api import Error
        from playwright.sync_api import TimeoutError as PlaywrightTimeout

        try:
            return call()
        except PlaywrightTimeout:
            raise
        except Error as exc:
            if _page_gone(exc):
                raise FatalToolError(f"the browser page is gone: {first_line(exc)}") from None
            raise ToolFailure(f"{described}: {first_line(exc)}") from None

    def _ref_locator(self, ref: str, *, required: bool) -> Any:
        if ref.startswith("css="):
            return self.page.locator(ref)
        element = aria.element_id(ref)
        if element is not None:
            return self._element_locator(element, required=required)
        return self.by_descriptor(aria.parse_descriptor(ref))

    def _element_locator(self, element: str, *, required: bool) -> Any:
        numbered = aria.number_elements(self.hierarchy())
        found = numbered.get(element)
        if found is None:
            if not required:
                return None
            last = f"e1..e{len(numbered)}" if numbered else "no elements"
            raise ToolFailure(f"element id {element} is not on the current page (it has {last})")
        if found.from_text:  # the snapshot collapsed the text's whitespace; the DOM did not
            words = r"\s+".join(re.escape(word) for word in (found.name or "").split())
            exact = re.compile(rf"^\s*{words}\s*$")
            return self.page.get_by_role(found.role).filter(has_text=exact).nth(found.nth)
        return self.by_role(found.role, found.name).nth(found.nth)

    def by_role(self, role: str, name: str | None) -> Any:
        if name:
            return self.page.get_by_role(role, name=name, exact=True)
        return self.page.get_by_role(role)

    def by_descriptor(self, descriptor: aria.Descriptor) -> Any:
        """``role "Name"`` exactly; otherwise the fallback ladder of U§4.8."""
        if descriptor.quoted or (descriptor.name is None and descriptor.role != "generic"):
            return self.by_role(descriptor.role or "generic", descriptor.name)
        if descriptor.role != "generic":
            direct = self.by_role(descriptor.role, descriptor.name)
            if direct.count():
                return direct
        text = descriptor.text
        for role in FALLBACK_ROLES:
            candidate = self.by_role(role, text)
            if candidate.count():
                return candidate
        label = self.page.get_by_label(text, exact=True)
        return label if label.count() else self.page.get_by_text(text)

    def _node_locator(self, selector: Mapping[str, Any]) -> Any:
        """The readiness locator of a ``nodeSelector.web``; None for selectors it cannot express."""
        web = selector.get("web") if isinstance(selector, Mapping) else None
        if not isinstance(web, Mapping):
            return None
        locator = None
        if web.get("cssSelector"):
            locator = self.page.locator(f"css={web['cssSelector']}")
        elif web.get("dataTestId"):
            locator = self.page.locator(f'[data-testid="{web["dataTestId"]}"]')
        elif web.get("ariaRole"):
            name = aria.literal_name(web["ariaNameRegex"]) if web.get("ariaNameRegex") else None
            role = web["ariaRole"]
            text = f'{role} "{name}"' if name else role
            locator = self.by_descriptor(aria.parse_descriptor(text))
        if locator is not None and web.get("nthIndex") is not None:
            locator = locator.nth(int(web["nthIndex"]))
        return locator

    # -- navigation ---------------------------------------------------------------------------
    def resolve_url(self, url: str, trail_dir: Path | None) -> str:
        """Scheme URLs as they are; relative paths against the trail's folder, then the cwd."""
        return resolve_url(url, trail_dir)


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


def describe_selector(selector: Mapping[str, Any] | None) -> str:
    web = (selector or {}).get("web") or {}
    parts = [f"{k}={v!r}" for k, v in web.items()]
    return f"nodeSelector.web({', '.join(parts)})" if parts else ""


def _action_done(exc: BaseException) -> bool:
    """Whether a timed-out action had already acted (Playwright's call log says so)."""
    log = str(exc)
    return "action done" in log or "waiting for scheduled navigations" in log


def _page_gone(exc: BaseException) -> bool:
    return "has been closed" in str(exc) or "Target closed" in str(exc)
