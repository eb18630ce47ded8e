"""The framework trailmap ``trailblaze``: built-in toolsets and per-platform defaults
(docs/upstream.md, The toolbox).

Toolsets decide which tools an agent is offered (the "toolbox"); a recording may call any
registered tool whatever its toolsets. A workspace trailmap with id ``trailblaze`` shadows
these defaults wholesale, as upstream.

The defaults are built with ``model_construct``: the data is the framework's own, and validating it
would build the models' validators at import in every process, also one that never reads a
workspace file (measured: about 20 ms of a worker's start).
"""

from __future__ import annotations

from ..core.trail.devices import WEB_DRIVER_KEYS
from .schema import PlatformConfig, ToolsetConfig

MOBILE_DRIVERS = [
    "android-ondevice-instrumentation",
    "android-ondevice-accessibility",
    "ios-host",
    "appium-android",
    "appium-ios",
]
WEB_DRIVERS = list(WEB_DRIVER_KEYS)


def _toolset(
    id: str, description: str, tools: str, drivers: list[str] | None = None, always: bool = False
) -> ToolsetConfig:
    return ToolsetConfig.model_construct(
        id=id, description=description, drivers=drivers, always_enabled=always, tools=tools.split()
    )


FRAMEWORK_TOOLSETS: dict[str, ToolsetConfig] = {
    t.id: t
    for t in (
        _toolset(
            "core_interaction",
            "Tap, swipe, type, and other basic device interactions.",
            """clearText eraseText hideKeyboard inputText inputTextRandom launchApp networkConnection openUrl
            mobile_pasteClipboard pressKey scrollUntilTextIsVisible mobile_setClipboard swipe takeSnapshot
            tap longPress dragTo tapOnPoint wait waitForChange""",
            MOBILE_DRIVERS,
            always=True,
        ),
        _toolset(
            "navigation",
            "Back, scroll until visible, open URLs, launch apps.",
            "launchApp openUrl pressBack scrollUntilTextIsVisible",
            MOBILE_DRIVERS,
        ),
        _toolset("observation", "Screenshots and screen inspection.", "takeSnapshot", MOBILE_DRIVERS),
        _toolset(
            "verification",
            "Assertions that do not change the screen.",
            "assertVisible assertNotVisibleWithText assertVisibleBySelector assertNotVisibleBySelector",
            MOBILE_DRIVERS,
        ),
        _toolset(
            "memory",
            "Compare and compute remembered values.",
            "assertEquals assertMath assertNotEquals assertWithAi dumpMemory rememberNumber rememberText "
            "rememberWithAi",
        ),
        _toolset("meta", "Framework meta tools.", "objectiveStatus script", always=True),
        _toolset(
            "mobile_primitives",
            "Clipboard and installed-apps primitives.",
            "mobile_clearAppData mobile_listInstalledApps mobile_listInstalledAppsDetailed "
            "mobile_pasteClipboard mobile_setClipboard",
            MOBILE_DRIVERS,
            always=True,
        ),
        _toolset(
            "web_core",
            "Click, type, navigate, scroll and other web interactions.",
            """web_click web_type web_navigate web_scroll web_hover web_pressKey web_selectOption web_wait
                 web_snapshot web_requestDetails web_resize web_currentUrl web_waitForUrl web_applyCookies
                 web_getStorageState web_fillSecret""",
            WEB_DRIVERS,
        ),
        _toolset(
            "web_verification",
            "Read-only web assertions.",
            "web_verifyTextVisible web_verifyElementVisible web_verifyValue web_verifyListVisible "
            "web_assertNetworkEvent",
            WEB_DRIVERS,
        ),
        _toolset(
            "web_framework",
            "Web composition primitives for scripts, hidden from agents.",
            "web_evaluate",
            WEB_DRIVERS,
            always=True,
        ),
    )
}

_MOBILE_DEFAULT = ["core_interaction", "navigation", "observation", "verification", "memory"]
_platform = PlatformConfig.model_construct
FRAMEWORK_DEFAULTS: dict[str, PlatformConfig] = {
    "android": _platform(tool_sets=_MOBILE_DEFAULT),
    "ios": _platform(tool_sets=_MOBILE_DEFAULT),
    "web": _platform(drivers=WEB_DRIVERS, tool_sets=["web_core", "web_verification", "memory"]),
    "compose": _platform(tool_sets=["compose_core", "compose_verification", "memory"]),
}
