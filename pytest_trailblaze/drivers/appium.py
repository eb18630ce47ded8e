"""The mobile driver: Appium sessions through appium-python-client, for android and ios.

One Appium session per worker per device (the platform, or a device profile of the capabilities
file: ``drivers.profiles``), reused by the trails of that device (their trailheads reset the app),
unless a fresh session per trail is asked for. A device with a pool is leased per worker
(``drivers.pool``); the local server is ``drivers.appium_server``. Elements found by a
``nodeSelector`` in the page source are acted on through their exact XPath (a click the app
sees); gestures (long press, swipes, points) are W3C pointer actions.

Device sizes are pixels. Android (UiAutomator2) reports its window in pixels; iOS (XCUITest)
reports points, which become pixels when the session reports a ``pixelRatio``. Android's density
comes from ``deviceScreenDensity`` (dpi / 160) when reported; without it the size rules
(docs/upstream.md, Device classifiers) fall back to pixels.
"""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from ..core.errors import DriverError, ToolFailure, first_line
from ..core.jsondata import JsonValue, SelectorSpec
from ..core.masking import Masker
from ..core.screen import node_selectors
from ..core.screen.hierarchy import Node, is_text_field, parse_hierarchy
from .appium_commands import DeviceCommands
from .appium_recording import ScreenRecording
from .appium_server import LocalAppiumServer
from .appium_settings import AppiumSettings
from .pool import DevicePools
from .profiles import DeviceProfile, shown_capabilities, shown_url, split_credentials

if TYPE_CHECKING:
    from appium.webdriver.webdriver import WebDriver as AppiumSession
    from selenium.webdriver.remote.webelement import WebElement

    from ..core.tooling.context import DeviceInfo

T = TypeVar("T")
POLL_S = 0.25


def driver_key(platform: str) -> str:
    return f"appium-{platform}"


class AppiumHost:
    """The worker's Appium server connection and its sessions by platform."""

    def __init__(
        self,
        settings: AppiumSettings,
        log_dir: Path,
        worker: str = "main",
        lease_dir: Path | None = None,
        masker: Masker | None = None,
    ) -> None:
        self.settings = settings
        self.log_dir = log_dir
        self.worker = worker
        #: The run's secrets, masked in the local server's log (Appium logs typed text).
        self.masker = masker or Masker()
        #: Pool devices this worker leased (one per pooled profile, for the whole session).
        self.pools = DevicePools(lease_dir, worker)
        self._server: LocalAppiumServer | None = None
        self._sessions: dict[str, AppiumSession] = {}
        self._failures: dict[str, DriverError] = {}

    @property
    def url(self) -> str:
        if self.settings.url:
            return self.settings.url.rstrip("/")
        if self._server is None:
            log = self.log_dir / f"appium-server-{self.worker}.log"
            home = self.settings.server_home or Path.cwd()
            self._server = LocalAppiumServer(home, log, self.masker, self.settings.server_log_level)
            self._server.start()
        return self._server.url

    def new_driver(
        self, platform: str, capabilities: Mapping[str, JsonValue], profile: DeviceProfile | None = None
    ) -> MobileDriver:
        """A driver on the device's session (a new one when sessions are per trail).

        Sessions are kept per device profile (the platform's name without profiles).
        """
        profile = profile or DeviceProfile(platform, platform)
        key, form = profile.name, profile.form_factor
        if key in self._failures:
            raise DriverError(str(self._failures[key]))
        if self.settings.fresh_session:
            session = self._create(profile, capabilities)
            return MobileDriver(session, platform, owns_session=True, form_factor=form)
        if key not in self._sessions:
            try:
                self._sessions[key] = self._create(profile, capabilities)
            except DriverError as exc:
                self._failures[key] = exc
                raise
        return MobileDriver(self._sessions[key], platform, owns_session=False, form_factor=form)

    def _create(self, profile: DeviceProfile, capabilities: Mapping[str, JsonValue]) -> AppiumSession:
        """A session on the profile's device: its pool device's URL, the profile's, or the run's."""
        from appium import webdriver
        from appium.options.common import AppiumOptions
        from appium.webdriver.client_config import AppiumClientConfig

        device = self.pools.device(profile)
        url = (device.url if device else None) or profile.url or self.url
        capabilities = {**capabilities, **(device.capabilities if device else {})}
        address, user, password = split_credentials(url.rstrip("/"))
        options = AppiumOptions()
        options.load_capabilities(capabilities)
        config = AppiumClientConfig(
            remote_server_addr=address,
            username=user,
            password=password,
            timeout=self.settings.connect_timeout_s,
        )
        try:
            return webdriver.Remote(address, options=options, client_config=config)
        except Exception as exc:
            shown = shown_capabilities(capabilities)
            raise DriverError(session_failure(shown_url(url), profile.name, shown, exc)) from None

    def close(self) -> None:
        try:
            for session in self._sessions.values():
                with contextlib.suppress(Exception):
                    session.quit()
        finally:
            self._sessions.clear()
            self.pools.release()
            if self._server is not None:
                self._server.stop()
                self._server = None


def session_failure(url: str, platform: str, capabilities: Mapping[str, JsonValue], exc: Exception) -> str:
    """Why a session could not start: the server's own message, and what to do."""
    text = getattr(exc, "msg", None) or str(exc)
    first = first_line(exc, text)
    unreachable = any(
        word in text for word in ("Connection refused", "Max retries", "timed out", "NewConnectionError")
    )
    if unreachable:
        return (
            f"could not reach the Appium server at {url}: {first}\n"
            f"  fix: start it (`appium server --address 127.0.0.1 --port ...`), or pass the right "
            f"--trailblaze-appium-url, or --trailblaze-appium-server to let the plugin start one"
        )
    return (
        f"the Appium server at {url} refused the {platform} session: {first}\n"
        f"  capabilities: {dict(capabilities)}\n"
        f"  fix: check the capabilities for {platform} (--trailblaze-appium-caps or the "
        f"trailblaze_appium_capabilities fixture) and that the driver they name is installed"
    )


class MobileDriver(DeviceCommands, ScreenRecording):
    """One trail's view of a platform's Appium session (screen recording: ``ScreenRecording``)."""

    def __init__(
        self, session: AppiumSession, platform: str, *, owns_session: bool, form_factor: str | None = None
    ) -> None:
        self.session = session
        self.platform = platform
        #: The device type a device profile declares (``tablet``); None: the window size decides.
        self.form_factor = form_factor
        self.driver_key = driver_key(platform)
        self.owns_session = owns_session
        self.focused_xpath: str | None = None
        #: The text field this driver tapped last, while nothing else was tapped since.
        self.focused_field: WebElement | None = None

    # -- the driver protocol ---------------------------------------------------------------------
    def device_info(self) -> DeviceInfo:
        """Measured once per session: the window of a phone does not change between trails."""
        cached = getattr(self.session, "_trailblaze_device", None)
        if cached is None:
            cached = self._measure()
            setattr(self.session, "_trailblaze_device", cached)  # noqa: B010 (kept on the session it measures)
        return cached

    def _measure(self) -> DeviceInfo:
        from ..core.tooling.context import DeviceInfo  # a session's module (the settings are read without it)

        width, height = self.screen_size()
        caps = dict(getattr(self.session, "capabilities", {}) or {})
        density = None
        if self.platform == "ios":
            ratio = _number(caps.get("pixelRatio"))
            if ratio:
                width, height = round(width * ratio), round(height * ratio)
        else:
            dpi = _number(caps.get("deviceScreenDensity"))
            density = dpi / 160 if dpi else None
        return DeviceInfo(self.platform, self.driver_key, width, height, density, self.form_factor)

    def hierarchy(self) -> str:
        return self.command("read the page source", lambda: self.session.page_source)

    def screenshot(self, path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(self.command("take a screenshot", self.session.get_screenshot_as_png))
        return path

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)

    def close(self) -> None:
        if self.owns_session:
            with contextlib.suppress(Exception):
                self.session.quit()

    # -- commands ------------------------------------------------------------------------------
    def command(self, what: str, call: Callable[[], T]) -> T:
        """Run an Appium command; the server's refusal becomes a failure that says what was sent."""
        from selenium.common.exceptions import InvalidSessionIdException, WebDriverException

        try:
            return call()
        except InvalidSessionIdException as exc:
            raise DriverError(f"the Appium session is gone ({_first(exc)})") from None
        except WebDriverException as exc:
            answer = _first(exc)
            raise ToolFailure(f"the Appium server could not {what}: {answer}{_fix_for(answer)}") from None

    def execute(self, script: str, args: Mapping[str, object]) -> JsonValue:
        answer: JsonValue = self.command(
            f"run `{script}`", lambda: self.session.execute_script(script, dict(args))
        )
        return answer

    # -- the view hierarchy ----------------------------------------------------------------------
    def nodes(self, source: str | None = None) -> list[Node]:
        """The parsed hierarchy of ``source``, or of a fresh page source when none is given."""
        try:
            return parse_hierarchy(self.hierarchy() if source is None else source)
        except ValueError as exc:
            raise ToolFailure(str(exc)) from None

    def find(self, selector: SelectorSpec, source: str | None = None) -> list[Node]:
        """Visible nodes matching ``selector`` in ``source`` (a fresh page source when none is given)."""
        try:
            return [n for n in node_selectors.find_all(self.nodes(source), selector) if n.visible]
        except node_selectors.SelectorError as exc:
            raise ToolFailure(str(exc)) from None

    def wait_for(self, selector: SelectorSpec, timeout_s: float, *, present: bool = True) -> list[Node]:
        """Poll the hierarchy until the selector matches (or, with ``present=False``, stops matching)."""
        deadline = time.monotonic() + timeout_s
        while True:
            found = self.find(selector)
            remaining = deadline - time.monotonic()
            if bool(found) == present or remaining <= 0:
                return found
            time.sleep(min(POLL_S, remaining))  # the last look lands on the deadline, not after it

    def element(self, node: Node) -> WebElement:
        from selenium.webdriver.common.by import By

        return self.command(f"find {node.label()}", lambda: self.session.find_element(By.XPATH, node.xpath))

    # -- gestures ------------------------------------------------------------------------------
    def tap(self, node: Node, *, long_press: bool = False) -> None:
        element = None
        if long_press:
            self.tap_point(*node.center, long_press=True)
        else:
            element = self.element(node)
            self.command(f"click {node.label()}", element.click)
        self.focused_xpath = node.xpath
        self.focused_field = element if element is not None and is_text_field(node) else None

    def tap_point(self, x: int, y: int, *, long_press: bool = False) -> None:
        self._pointer([(x, y)], hold_s=1.0 if long_press else 0.05)

    def swipe(self, start: tuple[int, int], end: tuple[int, int], duration_ms: int = 400) -> None:
        self._pointer([start, end], hold_s=0.05, move_ms=duration_ms)

    def _pointer(self, points: list[tuple[int, int]], *, hold_s: float, move_ms: int = 0) -> None:
        """One touch: to the first point at once, down, hold, through the others over ``move_ms``, up."""
        from selenium.webdriver.common.actions import interaction
        from selenium.webdriver.common.actions.action_builder import ActionBuilder
        from selenium.webdriver.common.actions.pointer_input import PointerInput

        def act() -> None:
            touch = PointerInput(interaction.POINTER_TOUCH, "finger")
            builder = ActionBuilder(self.session, mouse=touch)
            finger = builder.pointer_action  # acts through ``touch``
            touch.create_pointer_move(duration=0, x=points[0][0], y=points[0][1])
            finger.pointer_down().pause(hold_s)
            for x, y in points[1:]:
                touch.create_pointer_move(duration=move_ms, x=x, y=y)
            finger.release()
            builder.perform()

        self.command("perform the gesture", act)

    def screen_size(self) -> tuple[int, int]:
        """The window in the server's units (points on iOS), read once per session like the device."""
        cached = getattr(self.session, "_trailblaze_window", None)
        if cached is None:
            size = self.command("get the window size", self.session.get_window_size)
            cached = int(size["width"]), int(size["height"])
            setattr(self.session, "_trailblaze_window", cached)  # noqa: B010
        return cached

    # -- text --------------------------------------------------------------------------------------
    def focused(self) -> WebElement:
        """The focused field: the text field just tapped, else the session's active element, else the
        element this driver tapped last (for servers that do not report an active element)."""
        from selenium.common.exceptions import WebDriverException
        from selenium.webdriver.common.by import By

        if self.focused_field is not None:
            return self.focused_field
        if getattr(self.session, "_trailblaze_active_element", True):
            try:
                return self.session.switch_to.active_element
            except WebDriverException:
                # the server cannot tell: do not ask again
                setattr(self.session, "_trailblaze_active_element", False)  # noqa: B010
        if self.focused_xpath is None:
            raise ToolFailure("no text field has the focus: tap one first (tapOnElementBySelector)")
        xpath = self.focused_xpath
        return self.command("find the focused field", lambda: self.session.find_element(By.XPATH, xpath))

    def type_text(self, text: str) -> None:
        field_ = self.focused()
        self.command("type into the focused field", lambda: field_.send_keys(text))

    def erase(self, count: int | None) -> None:
        field_ = self.focused()
        current = self.command("read the focused field", lambda: field_.text) or ""
        self.command("clear the focused field", field_.clear)
        keep = current[: max(0, len(current) - count)] if count is not None else ""
        if keep:
            self.command("type into the focused field", lambda: field_.send_keys(keep))


def _number(value: str | float | None) -> float | None:
    try:
        return float(value) if value is not None else None
    except (TypeError, ValueError):
        return None


_INSECURE = re.compile(r"insecure feature '([\w:-]+)'")


def _fix_for(answer: str) -> str:
    """The way out of the refusals a user can fix: commands the server keeps behind a flag."""
    found = _INSECURE.search(answer)
    if found is None:
        return ""
    feature = found.group(1).rsplit(":", 1)[-1]
    return (
        f"\n  fix: start the Appium server with --allow-insecure='*:{feature}' (the server keeps "
        f"{feature} off unless allowed; Appium 3 wants the driver prefix, `*:` allows it for every driver)"
    )


def _first(exc: BaseException) -> str:
    """Selenium keeps the server's message in ``msg``; ``str()`` prefixes it with ``Message:``."""
    return first_line(exc, getattr(exc, "msg", None)).removeprefix("Message: ")
