"""The driver contract: what tools, the agent and the session may ask of a device, by capability.

A driver is any object with the ``Driver`` members; each further capability is its own
Protocol, and code that needs one asks ``isinstance(driver, Screenshots)`` (all are
``runtime_checkable``) instead of probing attributes. So a driver written for a new platform (a
``pytest_trailblaze_make_driver`` hook's) states what it can do by the methods it has, and a tool
it cannot serve says so at the call. The web driver (``drivers/playwright.py``) and the Appium
driver (``drivers/appium.py``) implement the two platform bundles, ``WebSession`` and
``MobileSession``; nothing above ``drivers/`` touches Playwright or Appium objects.

Failures of an action are the driver's to word: it raises ``ToolFailure`` (the step fails with
that message) or ``FatalToolError`` (the page or device is gone), never a library's own error.
"""

from __future__ import annotations

import functools
import typing
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol, runtime_checkable

from ..jsondata import JsonObject, JsonValue, SelectorSpec
from ..screen.hierarchy import Node

if TYPE_CHECKING:  # the tool context holds a driver; the contract only names what it returns
    from ..tooling.context import DeviceInfo


@runtime_checkable
class Driver(Protocol):
    """Every driver: which platform and driver type it is, the device it measures, and closing."""

    platform: str
    driver_key: str

    def device_info(self) -> DeviceInfo: ...

    def close(self) -> None: ...


@runtime_checkable
class Hierarchy(Protocol):
    """The screen's structure as text: a web page's ARIA snapshot, an app's page source (XML)."""

    def hierarchy(self) -> str: ...


@runtime_checkable
class Screenshots(Protocol):
    """A PNG of the screen written to ``path`` (evidence, snapshots, failure pictures)."""

    def screenshot(self, path: Path) -> Path: ...


@runtime_checkable
class VisionImages(Protocol):
    """The screen as a vision model sees it: the image's bytes and media type."""

    def screen_image(self) -> tuple[bytes, str]: ...


@runtime_checkable
class Pausing(Protocol):
    """A wait on the device's own clock (a page keeps running its scripts meanwhile)."""

    def sleep(self, seconds: float) -> None: ...


@runtime_checkable
class AppLaunching(Protocol):
    """Launching the app under test (``mode``: REINSTALL, RESUME, FORCE_RESTART)."""

    def launch_app(self, app_id: str, mode: str) -> str: ...


@runtime_checkable
class Recording(Protocol):
    """Traces and videos of a trail; starting returns notes on what is not recorded and why."""

    def start_recording(self, *, video: bool, tracing: bool) -> list[str]: ...

    def stop_recording(self, folder: Path | None) -> list[Path]: ...


@runtime_checkable
class StepMarks(Protocol):
    """Steps as groups of a running trace; None closes the open group."""

    def recording_step(self, title: str | None) -> None: ...


@runtime_checkable
class FileConfinement(Protocol):
    """Which folders ``file://`` pages may come from, from now on; and the first URL outside them
    a page showed (its trace and video are then not kept)."""

    def confine_file_urls(self, roots: tuple[Path, ...]) -> None: ...

    def file_url_breach(self) -> str | None: ...


# -- web -------------------------------------------------------------------------------------------
@runtime_checkable
class Element(Protocol):
    """An element a web tool found (by ref and/or node selector), opaque above the driver.

    ``described`` names it in messages: ``css=#pay``, ``nodeSelector.web(...) or e7``.
    """

    described: str


@runtime_checkable
class SentRequest(Protocol):
    """A request a trail's pages sent, as ``web_assertNetworkEvent`` reports it."""

    method: str
    url: str

    def describe(self) -> str: ...


@runtime_checkable
class WebNavigation(Protocol):
    """Where the page is and moving it: URLs resolved against the trail's folder, history."""

    def open_url(self, url: str, trail_dir: Path | None) -> str: ...

    def history(self, direction: Literal["back", "forward"]) -> str: ...

    def current_url(self) -> str: ...

    def wait_for_url(self, pattern: str, timeout_ms: int) -> str: ...


@runtime_checkable
class WebElements(Protocol):
    """Finding elements and acting on them, each action followed by the page's settle."""

    def locate(self, ref: str | None, node_selector: SelectorSpec | None) -> Element: ...

    def click(self, target: Element) -> None: ...

    def fill(self, target: Element, text: str, *, sequentially: bool = False) -> None: ...

    def hover(self, target: Element) -> None: ...

    def select(self, target: Element, values: list[str]) -> list[str]: ...

    def press_key(self, key: str) -> None: ...

    def scroll(self, dx: int, dy: int, over: Element | None = None) -> None: ...


@runtime_checkable
class WebChecks(Protocol):
    """What verification tools assert about the page, each waiting up to ``timeout_ms``.

    A check that does not hold raises ``ToolFailure`` telling "no such element" apart from
    "the element does not hold"; ``text_visible`` answers instead, for the tool to word.
    """

    def text_visible(self, text: str, timeout_ms: int) -> bool: ...

    def expect_visible(self, target: Element, timeout_ms: int) -> None: ...

    def expect_attribute(self, target: Element, name: str, expected: str, timeout_ms: int) -> None: ...

    def expect_value(self, target: Element, expected: str, timeout_ms: int) -> None: ...

    def expect_text(self, target: Element, expected: str, timeout_ms: int) -> None: ...

    def texts_missing(self, target: Element, texts: Sequence[str]) -> list[str]: ...


@runtime_checkable
class WebPage(Protocol):
    """The page's state: scripts, storage, the viewport, and the requests its pages sent."""

    def evaluate(self, script: str) -> JsonValue: ...

    def storage_state(self) -> JsonObject: ...

    def add_cookies(self, cookies: list[JsonObject]) -> None: ...

    def resize(self, width: int, height: int) -> None: ...

    def find_request(self, event_name: str, timeout_ms: int) -> SentRequest | None: ...

    def sent_requests(self) -> Sequence[SentRequest]: ...


@runtime_checkable
class SelectorProbe(Protocol):
    """A durable ``nodeSelector`` for the element a snapshot ref (``e7``) names now, if one finds it."""

    def durable_selector(self, ref: str) -> JsonObject | None: ...


@runtime_checkable
class WebSession(Driver, Hierarchy, Pausing, WebNavigation, WebElements, WebChecks, WebPage, Protocol):
    """Everything the built-in web tools use."""


# -- mobile ----------------------------------------------------------------------------------------
@runtime_checkable
class MobileScreen(Protocol):
    """The screen's nodes (from the page source, or ``source`` when given) and waiting for them."""

    def nodes(self, source: str | None = None) -> list[Node]: ...

    def find(self, selector: SelectorSpec, source: str | None = None) -> list[Node]: ...

    def wait_for(self, selector: SelectorSpec, timeout_s: float, *, present: bool = True) -> list[Node]: ...

    def screen_size(self) -> tuple[int, int]: ...


@runtime_checkable
class MobileInput(Protocol):
    """Touches, swipes, typing and keys."""

    def tap(self, node: Node, *, long_press: bool = False) -> None: ...

    def tap_point(self, x: int, y: int, *, long_press: bool = False) -> None: ...

    def swipe(self, start: tuple[int, int], end: tuple[int, int], duration_ms: int = 400) -> None: ...

    def type_text(self, text: str) -> None: ...

    def erase(self, count: int | None) -> None: ...

    def hide_keyboard(self) -> None: ...

    def press_key(self, key: str) -> None: ...

    def back(self) -> None: ...


@runtime_checkable
class MobileCommands(Protocol):
    """Commands to the device itself: apps, links, the clipboard, the shell, permissions, intents."""

    def clear_app(self, app_id: str) -> None: ...

    def open_url(self, url: str) -> None: ...

    def installed_apps(self) -> list[str]: ...

    def set_clipboard(self, text: str) -> None: ...

    def clipboard(self) -> str: ...

    def shell(self, argv: Sequence[str], run_as: str | None = None) -> str: ...

    def grant_permissions(self, app_id: str, permissions: Sequence[str]) -> None: ...

    def broadcast(self, action: str, component: str, extras: Sequence[tuple[str, str, str]]) -> str: ...


@runtime_checkable
class MobileSession(Driver, Hierarchy, MobileScreen, MobileInput, MobileCommands, Protocol):
    """Everything the built-in mobile tools use."""


def implements(driver: object, protocol: type) -> bool:
    """``isinstance(driver, protocol)``, answered from the driver's class after the first time.

    A runtime check of a Protocol looks up every member on every call (a bundle such as
    ``WebSession`` has some forty: about 0.1 ms, on each tool call). The methods a class defines
    are the same for all its instances, so whether the class has them is kept per class; data
    members (``platform``, ``driver_key``) are set per instance and are looked up each time. A
    class that lacks a method leaves the answer to ``isinstance`` (an instance may add it).
    """
    methods, data = _members(protocol)
    if not _class_has(type(driver), methods):
        return isinstance(driver, protocol)
    return all(hasattr(driver, name) for name in data)


@functools.cache
def _members(protocol: type) -> tuple[frozenset[str], frozenset[str]]:
    """A Protocol's methods and its data members."""
    names = _declared(protocol)
    methods = frozenset(n for n in names if callable(getattr(protocol, n, None)))
    return methods, frozenset(names) - methods


def _declared(protocol: type) -> frozenset[str]:
    """The public names a Protocol and the Protocols it extends declare (methods and annotated
    data). Python 3.13's ``typing.get_protocol_members`` says the same; 3.11 has no public way."""
    names: set[str] = set()
    for base in protocol.__mro__:
        if base in (object, typing.Protocol, typing.Generic):
            continue
        names.update(vars(base).get("__annotations__", {}))
        names.update(name for name in vars(base) if not name.startswith("_"))
    return frozenset(names)


def _class_has(cls: type, methods: frozenset[str]) -> bool:
    key = (cls, methods)
    found = _CLASS_HAS.get(key)
    if found is None:
        found = _CLASS_HAS[key] = all(callable(getattr(cls, name, None)) for name in methods)
    return found


#: Whether a class defines a Protocol's methods, by class and method names (classes are few).
_CLASS_HAS: dict[tuple[type, frozenset[str]], bool] = {}
