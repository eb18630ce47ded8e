"""Device and app commands of the Appium driver: keys, the app lifecycle, clipboard, shell, intents.

These are Appium's own commands, as a hand-written Appium test would send them: the W3C ``back``,
the client's app-management calls, and the ``mobile:`` extension commands of the UiAutomator2 and
XCUITest drivers (``mobile: clearApp``, ``mobile: shell``, ``mobile: changePermissions``,
``mobile: broadcast``, ``mobile: setClipboard``...). A server that refuses one answers with its own
message, which the failure carries (see ``MobileDriver.command``).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, TypeVar

from ..core.errors import ToolFailure
from ..core.jsondata import JsonValue

if TYPE_CHECKING:
    from appium.webdriver.webdriver import WebDriver as AppiumSession

T = TypeVar("T")
ANDROID_KEYCODES = {"BACK": 4, "ENTER": 66, "HOME": 3, "BACKSPACE": 67, "TAB": 61, "ESCAPE": 111}
IOS_KEYS = {"ENTER": "\n", "BACKSPACE": "\b", "TAB": "\t"}
#: Broadcast extra types (upstream names and ``am`` flag aliases) -> UiAutomator2's intent-spec letters.
EXTRA_TYPES = {
    "string": "s",
    "es": "s",
    "boolean": "z",
    "ez": "z",
    "int": "i",
    "ei": "i",
    "long": "l",
    "el": "l",
    "float": "f",
    "ef": "f",
}
#: An Android package id (what ``run-as`` accepts): dotted Java identifiers.
PACKAGE_ID = re.compile(r"^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)+$")


class DeviceCommands:
    """The device and app half of ``MobileDriver`` (it provides ``session``, ``command``...)."""

    session: AppiumSession
    platform: str
    execute: Callable[[str, Mapping[str, object]], JsonValue]  # Appium answers what the script returns
    screen_size: Callable[[], tuple[int, int]]
    swipe: Callable[..., None]
    type_text: Callable[[str], None]

    if TYPE_CHECKING:

        def command(self, what: str, call: Callable[[], T]) -> T: ...

    # -- keys ----------------------------------------------------------------------------------
    def hide_keyboard(self) -> None:
        self.command("hide the keyboard (mobile: hideKeyboard)", self.session.hide_keyboard)

    def press_key(self, key: str) -> None:
        if self.platform == "android":
            code = ANDROID_KEYCODES[key]
            self.command(
                f"press {key} (mobile: pressKey, keycode {code})", lambda: self.session.press_keycode(code)
            )
        elif key == "HOME":
            self.execute("mobile: pressButton", {"name": "home"})
        elif key == "BACK":
            self.back()
        elif key in IOS_KEYS:
            self.type_text(IOS_KEYS[key])
        else:
            raise ToolFailure(f"iOS has no {key} key")

    def back(self) -> None:
        if self.platform == "android":
            self.command("go back (W3C back)", self.session.back)
        else:  # iOS has no back button: swipe in from the left edge, as Maestro does
            width, height = self.screen_size()
            self.swipe((1, height // 2), (width * 2 // 3, height // 2), duration_ms=300)

    # -- apps ------------------------------------------------------------------------------------
    def launch_app(self, app_id: str, mode: str) -> str:
        """REINSTALL starts from a clean state, FORCE_RESTART stops then starts, RESUME only starts."""
        note = ""
        if self.platform == "ios" and app_id.startswith("com.apple.") and mode == "REINSTALL":
            mode = "FORCE_RESTART"  # system apps cannot be reinstalled
        if mode == "REINSTALL" and self.platform == "android":
            self.clear_app(app_id)
        elif mode == "REINSTALL":
            note = self._reinstall_ios(app_id)
        if mode in ("REINSTALL", "FORCE_RESTART"):
            self.command(f"stop {app_id} (mobile: terminateApp)", lambda: self.session.terminate_app(app_id))
        self.command(f"start {app_id} (mobile: activateApp)", lambda: self.session.activate_app(app_id))
        return f"launched {app_id} ({mode}){note}"

    def _reinstall_ios(self, app_id: str) -> str:
        """iOS has no 'clear data': remove the app and install it again from the session's ``appium:app``."""
        caps = dict(getattr(self.session, "capabilities", {}) or {})
        app = caps.get("app") or caps.get("appium:app")
        if not app:
            return (
                "; not reinstalled: the session has no appium:app to install from, so the app was restarted"
            )
        self.command(f"remove {app_id} (mobile: removeApp)", lambda: self.session.remove_app(app_id))
        self.command(f"install {app} (mobile: installApp)", lambda: self.session.install_app(app))
        return f"; reinstalled from {app}"

    def clear_app(self, app_id: str) -> None:
        """Delete the app's data (UiAutomator2: ``pm clear``; XCUITest: the simulator's data container)."""
        key = "appId" if self.platform == "android" else "bundleId"
        self.command(
            f"clear the data of {app_id} (mobile: clearApp)",
            lambda: self.session.execute_script("mobile: clearApp", {key: app_id}),
        )

    def open_url(self, url: str) -> None:
        self.execute("mobile: deepLink", {"url": url})

    def installed_apps(self) -> list[str]:
        apps = self.execute("mobile: listApps", {})
        if isinstance(apps, list):
            return sorted(str(app) for app in apps)
        return sorted(apps if isinstance(apps, dict) else ())

    # -- clipboard ----------------------------------------------------------------------------------
    def set_clipboard(self, text: str) -> None:
        self.command(
            "set the clipboard (mobile: setClipboard)", lambda: self.session.set_clipboard_text(text)
        )

    def clipboard(self) -> str:
        return self.command("read the clipboard (mobile: getClipboard)", self.session.get_clipboard_text)

    # -- android ------------------------------------------------------------------------------------
    def shell(self, argv: Sequence[str], run_as: str | None = None) -> str:
        """Run ``argv`` in the device shell (``mobile: shell``); each word arrives literally.

        adb joins the words with spaces for the device's ``sh``, so each one is shell-quoted here,
        as upstream does: ``$``, ``;`` or spaces inside a word stay part of that word.
        """
        words = [*(("run-as", run_as) if run_as else ()), *argv]
        quoted = [shlex.quote(word) for word in words]
        answer = self.execute(
            "mobile: shell", {"command": quoted[0], "args": quoted[1:], "includeStderr": True}
        )
        if isinstance(answer, Mapping):
            return "".join(str(answer.get(k) or "") for k in ("stdout", "stderr"))
        return "" if answer is None else str(answer)

    def grant_permissions(self, app_id: str, permissions: Sequence[str]) -> None:
        self.execute(
            "mobile: changePermissions",
            {"permissions": list(permissions), "appPackage": app_id, "action": "grant", "target": "pm"},
        )

    def broadcast(self, action: str, component: str, extras: Sequence[tuple[str, str, str]]) -> str:
        """``am broadcast`` of an explicit intent; extras are (type, key, value) in upstream's type names."""
        spec = [[EXTRA_TYPES[kind.lower()], key, value] for kind, key, value in extras]
        answer = self.execute("mobile: broadcast", {"action": action, "component": component, "extras": spec})
        return "" if answer is None else str(answer)
