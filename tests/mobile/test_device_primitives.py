"""Device primitives (clipboard, app data, Android shell, permissions, intents) against a real Appium.

Appium's fake driver has none of these ``mobile:`` commands: it answers "Unsupported execute
method". The tests check the exact command and payload the Appium client sent to the real server
(a wrapper around ``RemoteConnection.execute``), that the failure names it with the server's
answer, and that arguments are checked before anything is sent. Where a tool does more with
the answer (paste types it, the shell returns its output), the server's answer to that one
command is given on the real session, and the rest runs for real.
"""

from __future__ import annotations

import base64
from typing import TYPE_CHECKING, Any

import pytest
from selenium.common.exceptions import WebDriverException

from pytest_trailblaze.core.errors import ToolArgumentError, ToolFailure, UnsupportedToolError

if TYPE_CHECKING:  # the fixtures' types; at run time the fixtures come from conftest.py
    from conftest import Device

from conftest import make_registry


def unsupported(method: str) -> str:
    """The fake driver's answer to an execute method it does not have."""
    return f"Unsupported execute method '{method}'"


def refused(device: Device, tool: str, args: dict[str, Any] | None = None) -> str:
    """Run a tool the fake driver refuses; its failure message (no click, no gesture on the way)."""
    with device.probe.watch() as effects, device.commands.capture(), pytest.raises(ToolFailure) as failure:
        device.run(tool, args or {})
    assert effects.clicked == {} and effects.gestures == []
    return str(failure.value)


def answering(device: Device, monkeypatch: pytest.MonkeyPatch, answers: dict[str, Any]) -> list[Any]:
    """The session answers these ``mobile:`` commands itself (as a real driver would); the rest go to
    the server. Returns the list the answered calls are recorded in."""
    session, calls = device.session, []
    real = session.execute_script

    def execute_script(script: str, *args: Any) -> Any:
        if script in answers:
            calls.append((script, args[0] if args else None))
            answer = answers[script]
            if isinstance(answer, Exception):
                raise answer
            return answer
        return real(script, *args)

    monkeypatch.setattr(session, "execute_script", execute_script)
    return calls


# -- clipboard -----------------------------------------------------------------------------------------
def test_set_clipboard_sends_the_text_base64(device: Device) -> None:
    message = refused(device, "mobile_setClipboard", {"text": "Grüße, {{x}}!"})
    content = base64.b64encode("Grüße, {{x}}!".encode()).decode()
    assert device.commands.scripts() == [
        ("mobile: setClipboard", {"content": content, "contentType": "plaintext"})
    ]
    assert "set the clipboard (mobile: setClipboard)" in message
    assert unsupported("mobile: setClipboard") in message


def test_set_clipboard_interpolates_memory(android: Device) -> None:
    android.memory.set("code", "1234")
    refused(android, "mobile_setClipboard", {"text": "code {{code}}"})
    ((_, payload),) = android.commands.scripts()
    assert base64.b64decode(payload["content"]) == b"code 1234"


def test_paste_clipboard_reads_it_first(device: Device) -> None:
    message = refused(device, "mobile_pasteClipboard")
    assert device.commands.scripts() == [("mobile: getClipboard", {"contentType": "plaintext"})]
    assert "read the clipboard (mobile: getClipboard)" in message
    assert unsupported("mobile: getClipboard") in message


def test_paste_clipboard_types_it_into_the_focused_field(
    device: Device, monkeypatch: pytest.MonkeyPatch
) -> None:
    device.probe.set_value("username", "")
    answering(device, monkeypatch, {"mobile: getClipboard": base64.b64encode(b"ada@example.test").decode()})
    selector = {
        "androidMaestro" if device.platform == "android" else "iosMaestro": {"resourceIdRegex": ".*user.*"}
    }
    device.run("tapOnElementBySelector", nodeSelector=selector)
    result = device.run("mobile_pasteClipboard")
    assert device.probe.value("username") == "ada@example.test"
    assert result.message == "Pasted 16 character(s)"


def test_paste_an_empty_clipboard_fails(android: Device, monkeypatch: pytest.MonkeyPatch) -> None:
    android.probe.set_value("username", "kept")
    answering(android, monkeypatch, {"mobile: getClipboard": ""})
    android.run("tapOnElementBySelector", nodeSelector={"androidMaestro": {"resourceIdRegex": ".*username"}})
    with pytest.raises(ToolFailure, match="clipboard is empty") as failure:
        android.run("mobile_pasteClipboard")
    assert "mobile_setClipboard" in str(failure.value)  # the fix names the tool that fills it
    assert android.probe.value("username") == "kept"


# -- app data --------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("platform", "key"), [("android", "appId"), ("ios", "bundleId")])
def test_clear_app_data(request: pytest.FixtureRequest, platform: str, key: str) -> None:
    device: Device = request.getfixturevalue(platform)
    message = refused(device, "mobile_clearAppData", {"appId": "com.example.shop"})
    assert device.commands.scripts() == [("mobile: clearApp", {key: "com.example.shop"})]
    assert "clear the data of com.example.shop (mobile: clearApp)" in message
    assert unsupported("mobile: clearApp") in message


def test_clear_app_data_needs_an_app(android: Device) -> None:
    with android.commands.capture(), pytest.raises(ToolArgumentError, match="appId"):
        android.run("mobile_clearAppData")
    assert android.commands.sent == []


# -- android_adbShell --------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("args", "command", "words"),
    [
        ({"command": ["pm", "clear", "com.example"]}, "pm", ["clear", "com.example"]),
        # every word arrives literally: quoted for the device's shell
        (
            {"command": ["echo", "a b; rm -rf /", "$HOME", "it's"]},
            "echo",
            ["'a b; rm -rf /'", "'$HOME'", "'it'\"'\"'s'"],
        ),
        (
            {"command": ["ls", "files"], "runAs": "com.example.debug"},
            "run-as",
            ["com.example.debug", "ls", "files"],
        ),
    ],
)
def test_adb_shell_sends_mobile_shell(
    android: Device, args: dict[str, Any], command: str, words: list[str]
) -> None:
    message = refused(android, "android_adbShell", args)
    payload = {"command": command, "args": words, "includeStderr": True}
    assert android.commands.scripts() == [("mobile: shell", payload)]
    assert "mobile: shell" in message and unsupported("mobile: shell") in message


def test_adb_shell_returns_the_output(android: Device, monkeypatch: pytest.MonkeyPatch) -> None:
    answer = {"stdout": "package:com.a\npackage:com.b\n", "stderr": "warning: x\n"}
    calls = answering(android, monkeypatch, {"mobile: shell": answer})
    result = android.run("android_adbShell", command=["pm", "list", "packages"])
    assert result.message == "package:com.a\npackage:com.b\nwarning: x\n"
    assert calls == [
        ("mobile: shell", {"command": "pm", "args": ["list", "packages"], "includeStderr": True})
    ]


def test_adb_shell_refused_by_the_server_says_how_to_allow_it(
    android: Device, monkeypatch: pytest.MonkeyPatch
) -> None:
    """UiAutomator2 keeps ``mobile: shell`` behind ``--allow-insecure``; its refusal gets a fix."""
    refusal = WebDriverException(
        "Potentially insecure feature 'adb_shell' has not been enabled. If you want to enable this feature "
        "and accept the security ramifications, please do so by following the documented instructions"
    )
    answering(android, monkeypatch, {"mobile: shell": refusal})
    with pytest.raises(ToolFailure) as failure:
        android.run("android_adbShell", command=["getprop"])
    text = str(failure.value)
    assert "run `mobile: shell`" in text and "insecure feature 'adb_shell'" in text
    assert "fix: start the Appium server with --allow-insecure='*:adb_shell'" in text


@pytest.mark.parametrize(
    ("args", "named"),
    [
        ({"command": []}, "command"),
        ({"command": "pm list packages"}, "command"),  # a list of words, not a shell line
        ({"command": ["ls"], "runAs": "com.x; rm -rf /"}, "runAs"),
        ({"command": ["ls"], "runAs": "notapackage"}, "runAs"),
    ],
)
def test_adb_shell_bad_arguments_send_nothing(android: Device, args: dict[str, Any], named: str) -> None:
    with android.commands.capture(), pytest.raises(ToolArgumentError, match=named):
        android.run("android_adbShell", args)
    assert android.commands.sent == []


# -- android_grantPermissions ------------------------------------------------------------------------------
def test_grant_permissions(android: Device) -> None:
    permissions = ["android.permission.CAMERA", "android.permission.POST_NOTIFICATIONS"]
    message = refused(
        android, "android_grantPermissions", {"appId": "com.example", "permissions": permissions}
    )
    payload = {"permissions": permissions, "appPackage": "com.example", "action": "grant", "target": "pm"}
    assert android.commands.scripts() == [("mobile: changePermissions", payload)]
    assert unsupported("mobile: changePermissions") in message


def test_grant_no_permissions_is_a_no_op(android: Device) -> None:
    with android.commands.capture():
        result = android.run("android_grantPermissions", appId="com.example", permissions=[])
    assert android.commands.sent == []
    assert result.message == "Granted 0 permission(s) to com.example"


# -- android_sendBroadcast ---------------------------------------------------------------------------------
def test_send_broadcast(android: Device) -> None:
    extras = [
        {"key": "enable_test_mode", "value": "1"},
        {"key": "count", "value": 42, "type": "int"},  # YAML's 42: the text am reads
        {"key": "flag", "value": True, "type": "BOOLEAN"},
        {"key": "big", "value": "9000000000", "type": "el"},
        {"key": "ratio", "value": "0.5", "type": "float"},
    ]
    args = {"action": "com.example.SEED", "componentPackage": "com.example", "componentClass": ".Receiver"}
    message = refused(android, "android_sendBroadcast", {**args, "extras": extras})
    payload = {
        "action": "com.example.SEED",
        "component": "com.example/.Receiver",
        "extras": [
            ["s", "enable_test_mode", "1"],
            ["i", "count", "42"],
            ["z", "flag", "true"],
            ["l", "big", "9000000000"],
            ["f", "ratio", "0.5"],
        ],
    }
    assert android.commands.scripts() == [("mobile: broadcast", payload)]
    assert unsupported("mobile: broadcast") in message


def test_send_broadcast_reports_the_answer(android: Device, monkeypatch: pytest.MonkeyPatch) -> None:
    answer = "Broadcasting: Intent { act=x flg=0x400000 cmp=com.example/.R }\nBroadcast completed: result=0\n"
    answering(android, monkeypatch, {"mobile: broadcast": answer})
    result = android.run(
        "android_sendBroadcast", action="x", componentPackage="com.example", componentClass=".R"
    )
    assert result.message.startswith("Sent broadcast action='x' to com.example/.R: Broadcasting")
    assert result.message.endswith("result=0")


@pytest.mark.parametrize(
    ("extras", "said"),
    [
        ([{"key": "n", "value": "ten", "type": "int"}], "'ten' is not a valid int"),
        ([{"key": "b", "value": "yes", "type": "boolean"}], "'yes' is not a valid boolean"),
        ([{"key": "t", "value": "x", "type": "bytes"}], "unknown type 'bytes'"),
        ([{"key": "k", "value": "1"}, {"key": "k", "value": "2"}], "'k' appears more than once"),
        ([{"key": "k"}], "value"),
        ([{"key": "k", "value": "1", "kind": "int"}], "kind"),
    ],
)
def test_send_broadcast_checks_the_extras_before_sending(
    android: Device, extras: list[dict[str, Any]], said: str
) -> None:
    args = {"action": "a", "componentPackage": "p", "componentClass": "c", "extras": extras}
    with android.commands.capture(), pytest.raises(ToolArgumentError) as error:
        android.run("android_sendBroadcast", args)
    assert said in str(error.value)
    assert android.commands.sent == []


# -- platforms and flags ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("android_adbShell", {"command": ["id"]}),
        ("android_grantPermissions", {"appId": "a.b", "permissions": ["x"]}),
        ("android_sendBroadcast", {"action": "a", "componentPackage": "p", "componentClass": "c"}),
    ],
)
def test_android_primitives_are_not_for_ios(ios: Device, tool: str, args: dict[str, Any]) -> None:
    with ios.commands.capture(), pytest.raises(UnsupportedToolError, match="android"):
        ios.run(tool, args)
    assert ios.commands.sent == []


@pytest.mark.parametrize(
    ("name", "platforms", "llm", "recordable", "toolset"),
    [
        ("mobile_setClipboard", {"android", "ios"}, True, True, "core_interaction"),
        ("mobile_pasteClipboard", {"android", "ios"}, True, True, "core_interaction"),
        ("mobile_clearAppData", {"android", "ios"}, False, True, "mobile_primitives"),
        ("android_adbShell", {"android"}, False, False, "android_primitives"),
        ("android_grantPermissions", {"android"}, False, True, "android_primitives"),
        ("android_sendBroadcast", {"android"}, False, False, "android_primitives"),
    ],
)
def test_flags(name: str, platforms: set[str], llm: bool, recordable: bool, toolset: str) -> None:
    descriptor = make_registry("android").get(name).descriptor
    assert descriptor.platforms == platforms
    assert (descriptor.surface_to_llm, descriptor.is_recordable, descriptor.toolset) == (
        llm,
        recordable,
        toolset,
    )
