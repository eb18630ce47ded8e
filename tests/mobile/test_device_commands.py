"""Device and app commands the fake driver does not implement: the plugin must send the right one.

``back``, ``mobile: hideKeyboard``, ``mobile: pressKey``, the app lifecycle and ``mobile: deepLink`` /
``mobile: listApps`` are answered by the fake driver with "not implemented". The tests capture the
HTTP commands the Appium client sent (a wrapper around ``RemoteConnection.execute``) and check that
the failure names the command and carries the server's answer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from pytest_trailblaze.core.errors import ToolArgumentError, ToolFailure
from pytest_trailblaze.drivers.appium import MobileDriver
from pytest_trailblaze.drivers.appium_commands import ANDROID_KEYCODES

if TYPE_CHECKING:  # the fixtures' types; at run time the fixtures come from conftest.py
    from conftest import Device

NOT_IMPLEMENTED = "not yet been implemented"


def unsupported(method: str) -> str:
    """The fake driver's answer to an execute method it does not have."""
    return f"Unsupported execute method '{method}'"


def failing(device: Device, tool: str, args: dict[str, Any] | None = None) -> str:
    """Run a tool that must fail; its message (no element clicked, no gesture on the way)."""
    with device.probe.watch() as effects, device.commands.capture(), pytest.raises(ToolFailure) as failure:
        device.run(tool, args or {})
    assert effects.clicked == {}
    return str(failure.value)


# -- back ----------------------------------------------------------------------------------------------
def test_press_back_on_android_sends_w3c_back(android: Device) -> None:
    message = failing(android, "pressBack")
    assert android.commands.names() == ["goBack"]
    assert "go back" in message and "W3C back" in message
    assert NOT_IMPLEMENTED in message


def test_press_key_back_on_android_is_keycode_4(android: Device) -> None:
    message = failing(android, "pressKey", {"keyCode": "BACK"})
    assert android.commands.scripts() == [("mobile: pressKey", {"keycode": 4})]
    assert "mobile: pressKey" in message and unsupported("mobile: pressKey") in message


def test_press_back_on_ios_swipes_in_from_the_left_edge(ios: Device) -> None:
    with ios.probe.watch() as effects:
        with ios.commands.capture():
            assert ios.run("pressBack").message == "Went back"
        assert "goBack" not in ios.commands.names()
    assert effects.clicked == {}
    (gesture,) = effects.gestures
    assert gesture.is_drag
    (sx, sy), (ex, ey) = gesture.start, gesture.end
    assert sx <= 10 and ex >= 1179 // 2 and sy == ey == 2556 // 2


# -- keyboard ------------------------------------------------------------------------------------------
def test_hide_keyboard(device: Device) -> None:
    message = failing(device, "hideKeyboard")
    assert device.commands.scripts() == [("mobile: hideKeyboard", {})]
    assert "hide the keyboard" in message and "mobile: hideKeyboard" in message
    assert unsupported("mobile: hideKeyboard") in message


@pytest.mark.parametrize("key", sorted(ANDROID_KEYCODES))
def test_press_key_on_android(android: Device, key: str) -> None:
    message = failing(android, "pressKey", {"keyCode": key})
    code = {"BACK": 4, "ENTER": 66, "HOME": 3, "BACKSPACE": 67, "TAB": 61, "ESCAPE": 111}[key]
    assert android.commands.scripts() == [("mobile: pressKey", {"keycode": code})]
    assert f"press {key}" in message and f"keycode {code}" in message
    assert unsupported("mobile: pressKey") in message


def test_press_key_is_case_insensitive(android: Device) -> None:
    failing(android, "pressKey", {"keyCode": "enter"})
    assert android.commands.scripts() == [("mobile: pressKey", {"keycode": 66})]


def test_press_key_home_on_ios(ios: Device) -> None:
    message = failing(ios, "pressKey", {"keyCode": "HOME"})
    assert ios.commands.scripts() == [("mobile: pressButton", {"name": "home"})]
    assert "mobile: pressButton" in message and unsupported("mobile: pressButton") in message


@pytest.mark.parametrize(("key", "typed"), [("ENTER", "\n"), ("TAB", "\t"), ("BACKSPACE", "\b")])
def test_press_key_on_ios_types_into_the_focused_field(ios: Device, key: str, typed: str) -> None:
    ios.probe.set_value("username", "")
    ios.run("tapOnElementBySelector", nodeSelector={"iosMaestro": {"resourceIdRegex": "usernameField"}})
    ios.run("pressKey", keyCode=key)
    assert ios.probe.value("username").endswith(typed)


def test_press_key_escape_on_ios(ios: Device) -> None:
    message = failing(ios, "pressKey", {"keyCode": "ESCAPE"})
    assert "iOS has no ESCAPE key" in message
    assert ios.commands.sent == []


def test_unknown_key_is_an_argument_error(android: Device) -> None:
    with pytest.raises(ToolArgumentError, match="keyCode") as error:
        android.run("pressKey", keyCode="VOLUME_UP")
    assert "pressKey" in str(error.value)


# -- the app lifecycle -------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("mode", "first"),
    [
        (None, ("mobile: clearApp", {"appId": "com.test"})),  # REINSTALL is the default
        ("REINSTALL", ("mobile: clearApp", {"appId": "com.test"})),
        ("FORCE_RESTART", ("mobile: terminateApp", {"appId": "com.test"})),
        ("RESUME", ("mobile: activateApp", {"appId": "com.test"})),
    ],
)
def test_launch_app_on_android(android: Device, mode: str | None, first: tuple[str, dict[str, Any]]) -> None:
    args = {"appId": "com.test"} if mode is None else {"appId": "com.test", "launchMode": mode}
    message = failing(android, "launchApp", args)
    scripts = android.commands.scripts()
    assert len(scripts) == 1  # the first command failed: nothing after it was sent
    script, params = scripts[0]
    assert script == first[0]
    assert params["appId"] == "com.test" or params.get("bundleId") == "com.test"
    assert first[0] in message
    assert unsupported(first[0]) in message


@pytest.mark.parametrize(
    ("app_id", "mode", "first"),
    [
        # the session has appium:app, so iOS REINSTALL removes the app to install it again
        ("com.test.app", "REINSTALL", "mobile: removeApp"),
        ("com.test.app", "FORCE_RESTART", "mobile: terminateApp"),
        ("com.test.app", "RESUME", "mobile: activateApp"),
        ("com.apple.Preferences", "REINSTALL", "mobile: terminateApp"),
    ],
)
def test_launch_app_on_ios(ios: Device, app_id: str, mode: str, first: str) -> None:
    message = failing(ios, "launchApp", {"appId": app_id, "launchMode": mode})
    ((script, params),) = ios.commands.scripts()
    assert script == first
    assert app_id in (params.get("bundleId"), params.get("appId"))
    assert first in message and unsupported(first) in message


def test_launch_app_bad_mode_is_an_argument_error(android: Device) -> None:
    with android.commands.capture(), pytest.raises(ToolArgumentError, match="launchMode"):
        android.run("launchApp", appId="com.test", launchMode="COLD")
    assert android.commands.sent == []


# -- links and apps ----------------------------------------------------------------------------------------
def test_open_url(device: Device) -> None:
    message = failing(device, "openUrl", {"url": "myapp://orders/42?x=1"})
    assert device.commands.scripts() == [("mobile: deepLink", {"url": "myapp://orders/42?x=1"})]
    assert "mobile: deepLink" in message and unsupported("mobile: deepLink") in message


def test_list_installed_apps(device: Device) -> None:
    message = failing(device, "mobile_listInstalledApps")
    assert device.commands.scripts() == [("mobile: listApps", {})]
    assert "mobile: listApps" in message and unsupported("mobile: listApps") in message


def test_the_session_survives_refused_commands(android: Device) -> None:
    for tool, args in (("hideKeyboard", {}), ("openUrl", {"url": "x://y"}), ("pressBack", {})):
        with pytest.raises(ToolFailure):
            android.run(tool, args)
    with android.probe.watch() as effects:
        android.run("tapOnElementBySelector", nodeSelector={"androidMaestro": {"textRegex": "submit"}})
    assert effects.clicked == {"submit": 1}


# -- the whole sequences, on a stub session that accepts every command ------------------------------------
class AcceptingSession:
    """A stub Appium session that accepts the app commands and records them in order."""

    def __init__(self, apps: Any = None) -> None:
        self.calls: list[tuple[str, Any]] = []
        self.apps = apps
        self.capabilities: dict[str, Any] = {}

    def execute_script(self, script: str, args: dict[str, Any]) -> Any:
        self.calls.append((script, args))
        return self.apps if script == "mobile: listApps" else None

    def terminate_app(self, app_id: str) -> bool:
        self.calls.append(("terminate_app", app_id))
        return True

    def activate_app(self, app_id: str) -> None:
        self.calls.append(("activate_app", app_id))


@pytest.mark.parametrize(
    ("platform", "app_id", "mode", "calls", "said"),
    [
        (
            "android",
            "com.test",
            "REINSTALL",
            [
                ("mobile: clearApp", {"appId": "com.test"}),
                ("terminate_app", "com.test"),
                ("activate_app", "com.test"),
            ],
            "REINSTALL",
        ),
        (
            "android",
            "com.test",
            "FORCE_RESTART",
            [("terminate_app", "com.test"), ("activate_app", "com.test")],
            None,
        ),
        ("android", "com.test", "RESUME", [("activate_app", "com.test")], None),
        (
            "ios",
            "com.test",
            "FORCE_RESTART",
            [("terminate_app", "com.test"), ("activate_app", "com.test")],
            None,
        ),
        ("ios", "com.test", "RESUME", [("activate_app", "com.test")], None),
        (  # system apps cannot be reinstalled: REINSTALL becomes FORCE_RESTART
            "ios",
            "com.apple.Preferences",
            "REINSTALL",
            [("terminate_app", "com.apple.Preferences"), ("activate_app", "com.apple.Preferences")],
            "FORCE_RESTART",
        ),
    ],
)
def test_launch_app_sequences(
    platform: str, app_id: str, mode: str, calls: list[tuple[str, Any]], said: str | None
) -> None:
    session = AcceptingSession()
    message = MobileDriver(session, platform, owns_session=False).launch_app(app_id, mode)
    assert session.calls == calls
    assert message == f"launched {app_id} ({said or mode})"


def test_ios_reinstall_stops_before_it_starts() -> None:
    session = AcceptingSession()
    MobileDriver(session, "ios", owns_session=False).launch_app("com.test", "REINSTALL")
    names = [name for name, _ in session.calls]
    assert names[-2:] == ["terminate_app", "activate_app"]


@pytest.mark.parametrize(
    ("answer", "apps"),
    [
        (["com.b", "com.a"], ["com.a", "com.b"]),  # a list of ids
        ({"com.b": {"name": "B"}, "com.a": {"name": "A"}}, ["com.a", "com.b"]),  # XCUITest: ids -> details
        (None, []),
    ],
)
def test_installed_apps(answer: Any, apps: list[str]) -> None:
    session = AcceptingSession(answer)
    assert MobileDriver(session, "android", owns_session=False).installed_apps() == apps
    assert session.calls == [("mobile: listApps", {})]
