"""Built-in device primitives: links, apps, the clipboard, and Android's shell and intents
(docs/guides/mobile.md).

Each one is one Appium command (see ``drivers.appium_commands``): UiAutomator2 and XCUITest
``mobile:`` extension commands, or the client's clipboard calls. A server or driver that does
not have the command answers with its own message, which the step's failure shows.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from ..core.errors import ToolArgumentError, ToolFailure
from ..core.tooling.context import ToolContext
from ..drivers.appium_commands import EXTRA_TYPES, PACKAGE_ID
from .declaring import ToolDecorator
from .mobile import mobile, mobile_tool

ANDROID = ("android",)


def android_tool(**kwargs: Any) -> ToolDecorator:
    """Android-only primitives: hidden from the LLM, in the ``android_primitives`` toolset."""
    kwargs.setdefault("toolset", "android_primitives")
    return mobile_tool(platforms=ANDROID, surface_to_llm=False, **kwargs)


# -- links and apps ------------------------------------------------------------------------------------
@mobile_tool(toolset="navigation")
def openUrl(ctx: ToolContext, url: str) -> str:
    """Open a URL or deep link on the device."""
    mobile(ctx).open_url(url)
    return f"Opened {url}"


@mobile_tool(toolset="mobile_primitives")
def mobile_listInstalledApps(ctx: ToolContext) -> str:
    """List the installed apps as JSON: {"appIds": [...]}."""
    return json.dumps({"appIds": mobile(ctx).installed_apps()})


@mobile_tool(toolset="mobile_primitives", surface_to_llm=False)
def mobile_clearAppData(ctx: ToolContext, appId: str) -> str:
    """Clear all data of an app (Android package id or iOS bundle id), as after a fresh install."""
    mobile(ctx).clear_app(appId)
    return f"Cleared the data of {appId}"


# -- clipboard -------------------------------------------------------------------------------------------
@mobile_tool()
def mobile_setClipboard(ctx: ToolContext, text: str) -> str:
    """Set the device clipboard to the specified text."""
    mobile(ctx).set_clipboard(text)
    return f"Set the clipboard ({len(text)} characters)"


@mobile_tool()
def mobile_pasteClipboard(ctx: ToolContext) -> str:
    """Paste the current clipboard contents into the focused text field."""
    driver = mobile(ctx)
    text = driver.clipboard()
    if not text:
        raise ToolFailure(
            "mobile_pasteClipboard: the device clipboard is empty\n"
            "  fix: call mobile_setClipboard first (or copy from a UI element) before pasting"
        )
    driver.type_text(text)
    return f"Pasted {len(text)} character(s)"


# -- android ---------------------------------------------------------------------------------------------
@android_tool(is_recordable=False)
def android_adbShell(
    ctx: ToolContext, command: Annotated[list[str], Field(min_length=1)], runAs: str | None = None
) -> str:
    """Run a command in the device shell and return its output (stdout, then stderr).

    ``command`` is argv-shaped: the program, then its arguments, each passed literally (quoted
    for the device's shell). ``runAs`` runs it as a debuggable app's user (``run-as <appId>``).
    """
    if runAs is not None and not PACKAGE_ID.fullmatch(runAs):
        raise ToolArgumentError(
            f"android_adbShell: runAs must be an Android package id like 'com.example.app', got {runAs!r}",
            tool="android_adbShell",
        )
    return mobile(ctx).shell(command, run_as=runAs)


@android_tool()
def android_grantPermissions(ctx: ToolContext, appId: str, permissions: list[str]) -> str:
    """Grant Android runtime permissions (``pm grant``) to an app; an empty list does nothing."""
    if permissions:
        mobile(ctx).grant_permissions(appId, permissions)
    return f"Granted {len(permissions)} permission(s) to {appId}"


def _as_text(value: str | int | float | bool) -> str:
    """An extra's value is the text ``am broadcast`` reads: YAML's ``true`` and ``42`` count as text."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


class BroadcastExtra(BaseModel):
    """One intent extra, as upstream writes it: ``{key, value, type}`` (type: string, int, ...)."""

    model_config = ConfigDict(extra="forbid")

    key: str
    value: Annotated[str | int | float | bool, AfterValidator(_as_text)]
    type: str = "string"


def _extras(extras: list[BroadcastExtra]) -> list[tuple[str, str, str]]:
    """Check the extras as upstream does before anything is sent: known types, valid values, unique keys."""
    problems, seen = [], set()
    for extra in extras:
        kind = extra.type.lower()
        if kind not in EXTRA_TYPES:
            known = "string, boolean, int, long, float"
            problems.append(f"extra {extra.key!r}: unknown type {extra.type!r} ({known})")
        elif not _fits(kind, str(extra.value)):
            problems.append(f"extra {extra.key!r}: {extra.value!r} is not a valid {kind}")
        if extra.key in seen:
            problems.append(f"extra {extra.key!r} appears more than once")
        seen.add(extra.key)
    if problems:
        raise ToolArgumentError("android_sendBroadcast: " + "; ".join(problems), tool="android_sendBroadcast")
    return [(extra.type, extra.key, str(extra.value)) for extra in extras]


def _fits(kind: str, value: str) -> bool:
    letter = EXTRA_TYPES[kind]
    try:
        if letter in ("i", "l"):
            int(value)
        elif letter == "f":
            float(value)
    except ValueError:
        return False
    return letter != "z" or value in ("true", "false")


@android_tool(is_recordable=False)
def android_sendBroadcast(
    ctx: ToolContext,
    action: str,
    componentPackage: str,
    componentClass: str,
    extras: list[BroadcastExtra] | None = None,
) -> str:
    """Send a broadcast intent (``am broadcast``) to one component of an app, with typed extras."""
    checked = _extras(extras or [])
    component = f"{componentPackage}/{componentClass}"
    answer = mobile(ctx).broadcast(action, component, checked).strip()
    return f"Sent broadcast action='{action}' to {component}" + (f": {answer}" if answer else "")


TOOLS = (
    openUrl,
    mobile_listInstalledApps,
    mobile_clearAppData,
    mobile_setClipboard,
    mobile_pasteClipboard,
    android_adbShell,
    android_grantPermissions,
    android_sendBroadcast,
)
