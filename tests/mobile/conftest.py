"""A real Appium 3 server with Appium's fake driver, shared by the mobile tests.

One server per test session (per xdist worker) on a free port of 127.0.0.1, started from
``node_modules/appium`` of the checkout and stopped at the end by killing its process group.
Sessions are cheap (about 15 ms): tool tests open one per module and platform and give each test
its own ``MobileDriver`` and ``ToolContext`` over it, as the plugin does for consecutive trails.

Effects are checked with plain Appium client calls on the session, never through the plugin: the
``clicks`` and ``value`` runtime attributes of the fake driver's elements (found by the ``id``
attribute of the fixture apps, which the plugin never reads), its W3C actions log, and the HTTP
commands the client sent (a wrapper around selenium's ``RemoteConnection.execute``).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest
from appium import webdriver
from appium.options.common import AppiumOptions
from selenium.webdriver.common.by import By

from pytest_trailblaze.core.tooling.context import ToolContext
from pytest_trailblaze.core.tooling.memory import Memory
from pytest_trailblaze.core.tooling.registry import ToolRegistry
from pytest_trailblaze.core.tooling.tooldef import ToolResult
from pytest_trailblaze.drivers.appium import MobileDriver
from pytest_trailblaze.tools import builtin_tools

REPO = Path(__file__).resolve().parents[2]
APPS = Path(__file__).resolve().parent / "apps"
APPIUM_ENTRY = REPO / "node_modules" / "appium" / "index.js"
SERVER_MARK = "node_modules/appium/index.js server"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def http_json(url: str, timeout: float = 2.0) -> Any:
    with urllib.request.urlopen(url, timeout=timeout) as answer:
        return json.loads(answer.read().decode())


def fake_caps(app: Path | str, **extra: Any) -> dict[str, Any]:
    """Capabilities of a fake-driver session on ``app`` (an app XML), plus ``appium:`` extras."""
    caps: dict[str, Any] = {
        "platformName": "Fake",
        "appium:automationName": "Fake",
        "appium:app": str(Path(app).resolve()),
    }
    caps.update({f"appium:{k}": v for k, v in extra.items()})
    return caps


@dataclass
class AppiumServer:
    url: str
    pid: int
    log: Path

    def session_ids(self) -> list[str]:
        """Sessions the server holds now (session discovery is enabled for this server)."""
        return [s["id"] for s in http_json(f"{self.url}/appium/sessions")["value"]]


@contextlib.contextmanager
def running_appium(log: Path, *extra: str) -> Iterator[AppiumServer]:
    """An Appium server on a free port of 127.0.0.1 (``extra`` server arguments, such as
    ``--base-path /wd/hub``) until the block ends; then its process group is killed."""
    if not APPIUM_ENTRY.is_file():
        pytest.fail(f"no Appium at {APPIUM_ENTRY}: run `npm ci` in {REPO}")
    port = free_port()
    argv = ["node", str(APPIUM_ENTRY), "server", "--address", "127.0.0.1", "--port", str(port)]
    argv += ["--log-level", "warn", "--allow-insecure", "*:session_discovery", *extra]
    base = extra[extra.index("--base-path") + 1] if "--base-path" in extra else ""
    with log.open("wb") as out:
        process = subprocess.Popen(
            argv,
            cwd=REPO,
            env={**os.environ, "APPIUM_HOME": str(REPO)},
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    url = f"http://127.0.0.1:{port}{base}"
    try:
        deadline = time.monotonic() + 30
        while True:
            if process.poll() is not None:
                pytest.fail(f"Appium exited with {process.returncode}:\n{log.read_text(errors='replace')}")
            with contextlib.suppress(OSError, ValueError):
                if http_json(f"{url}/status", timeout=1)["value"]["ready"]:
                    break
            if time.monotonic() > deadline:
                pytest.fail(f"Appium did not answer /status in 30 s:\n{log.read_text(errors='replace')}")
            time.sleep(0.1)
        yield AppiumServer(url, process.pid, log)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=5)


@pytest.fixture(scope="session")
def appium_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AppiumServer]:
    """ONE Appium server for the session; its process group is killed at the end."""
    with running_appium(tmp_path_factory.mktemp("appium") / "server.log") as server:
        yield server


@pytest.fixture
def start_appium(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[..., AppiumServer]]:
    """``start_appium(*server_args)``: one more Appium server for this test, stopped at its end."""
    with contextlib.ExitStack() as servers:

        def start(*extra: str) -> AppiumServer:
            log = tmp_path_factory.mktemp("appium") / "server.log"
            return servers.enter_context(running_appium(log, *extra))

        yield start


@pytest.fixture(scope="session")
def open_session(appium_server: AppiumServer) -> Iterator[Callable[..., Any]]:
    """``open_session(app, **appium_extras)``: a new fake-driver session (quit at the end at the latest)."""
    opened: list[Any] = []

    def open_(app: Path | str, **extra: Any) -> Any:
        options = AppiumOptions()
        options.load_capabilities(fake_caps(app, **extra))
        session = webdriver.Remote(appium_server.url, options=options)
        opened.append(session)
        return session

    yield open_
    for session in opened:
        with contextlib.suppress(Exception):
            session.quit()


# -- effects, read with plain client calls ----------------------------------------------------------
def app_ids(app: Path) -> list[str]:
    """The ``id`` attributes of an app XML: the handles the tests find elements by."""
    return [e.get("id", "") for e in ElementTree.parse(app).iter() if e.get("id")]


class Probe:
    """Reads what the fake driver recorded: clicks, typed values, W3C actions."""

    def __init__(self, session: Any, app: Path) -> None:
        self.session = session
        self.ids = app_ids(app)
        if not hasattr(session, "_probe_elements"):  # element handles are stable for a session
            session._probe_elements = {}
        self._elements: dict[str, Any] = session._probe_elements

    def element(self, element_id: str) -> Any:
        if element_id not in self._elements:
            self._elements[element_id] = self.session.find_element(By.ID, element_id)
        return self._elements[element_id]

    def clicks(self, element_id: str) -> int:
        return int(self.element(element_id).get_attribute("clicks") or 0)

    def all_clicks(self) -> dict[str, int]:
        """Clicks of every element; remembered on the session until the next click command is sent."""
        known = getattr(self.session, "_probe_clicks", None)
        if known is None or getattr(self.session, "_probe_dirty", True):
            known = {i: self.clicks(i) for i in self.ids}
            self.session._probe_clicks, self.session._probe_dirty = known, False
        return dict(known)

    def value(self, element_id: str) -> str:
        return self.element(element_id).get_attribute("value") or ""

    def set_value(self, element_id: str, text: str) -> None:
        element = self.element(element_id)
        element.clear()
        if text:
            element.send_keys(text)

    def actions(self) -> list[Any]:
        return self.session.get_log("actions")

    @contextlib.contextmanager
    def watch(self) -> Iterator[Effects]:
        """What happened inside the block: elements clicked (and how often), new W3C action chains."""
        effects = Effects()
        clicks, actions = self.all_clicks(), len(self.actions())
        yield effects
        self.session._probe_dirty = True  # read them all again: what the block did is the point
        after = self.all_clicks()
        effects.clicked = {k: after[k] - clicks[k] for k in after if after[k] != clicks[k]}
        effects.gestures = [Gesture.of(chain) for chain in self.actions()[actions:]]


@dataclass
class Gesture:
    """One W3C action chain of a single touch pointer, as the fake driver logged it."""

    pointer_type: str
    actions: list[dict[str, Any]]

    @staticmethod
    def of(chain: list[dict[str, Any]]) -> Gesture:
        pointers = [source for source in chain if source.get("type") == "pointer" and source.get("actions")]
        assert len(pointers) == 1, f"expected one pointer source with actions, got {chain}"
        source = pointers[0]
        return Gesture(source.get("parameters", {}).get("pointerType", ""), source["actions"])

    @property
    def kinds(self) -> list[str]:
        return [a["type"] for a in self.actions]

    @property
    def moves(self) -> list[tuple[int, int]]:
        return [(round(a["x"]), round(a["y"])) for a in self.actions if a["type"] == "pointerMove"]

    @property
    def start(self) -> tuple[int, int]:
        return self.moves[0]

    @property
    def end(self) -> tuple[int, int]:
        return self.moves[-1]

    @property
    def held_ms(self) -> int:
        """How long the finger stays down, in place, right after touching."""
        down = self.kinds.index("pointerDown")
        held = 0
        for action in self.actions[down + 1 :]:
            if action["type"] != "pause":
                break
            held += int(action.get("duration", 0))
        return held

    @property
    def is_press(self) -> bool:
        """Touch down and up at one point (a tap or a long press): no move while down."""
        down, up = self.kinds.index("pointerDown"), self.kinds.index("pointerUp")
        return (
            len(self.moves) == 1
            and self.kinds.index("pointerMove") < down < up
            and ("pointerMove" not in self.kinds[down:up])
        )

    @property
    def is_drag(self) -> bool:
        """Touch down, move, lift: a swipe."""
        down, up = self.kinds.index("pointerDown"), self.kinds.index("pointerUp")
        return "pointerMove" in self.kinds[down:up] and self.start != self.end


@dataclass
class Effects:
    clicked: dict[str, int] = field(default_factory=dict)
    gestures: list[Gesture] = field(default_factory=list)


class CommandLog:
    """The HTTP commands the Appium client sent: a wrapper around ``RemoteConnection.execute``."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, dict[str, Any]]] = []
        self.active = False

    @contextlib.contextmanager
    def capture(self) -> Iterator[CommandLog]:
        """Record the commands sent inside the block (only those)."""
        self.sent.clear()
        self.active = True
        try:
            yield self
        finally:
            self.active = False

    def scripts(self) -> list[tuple[str, Any]]:
        """``execute_script`` calls: (script, its first argument)."""
        return [
            (params.get("script", ""), (params.get("args") or [None])[0])
            for command, params in self.sent
            if command in ("w3cExecute", "executeScript", "w3cExecuteScript")
        ]

    def names(self) -> list[str]:
        return [command for command, _ in self.sent]


# -- a device: a session, the plugin's driver over it, a tool context ----------------------------------
@dataclass
class Device:
    """One test's view of a module's session: the plugin's driver, its tools, and a probe."""

    platform: str
    session: Any
    app: Path
    driver: MobileDriver
    ctx: ToolContext
    probe: Probe
    commands: CommandLog

    def run(self, name: str, args: dict[str, Any] | None = None, /, **kwargs: Any) -> ToolResult:
        """One tool call through ``ToolRegistry.execute`` (interpolation, validation, dispatch)."""
        return self.ctx.registry.execute(name, {**(args or {}), **kwargs}, self.ctx)

    @property
    def memory(self) -> Memory:
        return self.ctx.memory


def make_registry(platform: str) -> ToolRegistry:
    registry = ToolRegistry(platform=platform, driver_key=f"appium-{platform}")
    registry.register_all(builtin_tools())
    return registry


def make_device(
    platform: str, session: Any, app: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Device:
    commands = CommandLog()
    executor = session.command_executor
    original = executor.execute

    def execute(command: str, params: dict[str, Any]) -> Any:
        if commands.active:
            commands.sent.append((command, dict(params or {})))
        if command == "clickElement":  # the only way the fake driver counts a click
            session._probe_dirty = True
        return original(command, params)

    monkeypatch.setattr(executor, "execute", execute)
    driver = MobileDriver(session, platform, owns_session=False)
    ctx = ToolContext(
        make_registry(platform),
        Memory(),
        driver.device_info(),
        driver,
        str(tmp_path / "trail.yaml"),
        artifacts_dir=tmp_path / "artifacts",
    )
    return Device(platform, session, app, driver, ctx, Probe(session, app), commands)


@pytest.fixture(scope="module")
def android_session(open_session: Callable[..., Any]) -> Iterator[Any]:
    session = open_session(APPS / "android.xml")
    yield session
    with contextlib.suppress(Exception):
        session.quit()


@pytest.fixture(scope="module")
def ios_session(open_session: Callable[..., Any]) -> Iterator[Any]:
    session = open_session(APPS / "ios.xml")
    yield session
    with contextlib.suppress(Exception):
        session.quit()


@pytest.fixture
def android(android_session: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Device:
    return make_device("android", android_session, APPS / "android.xml", tmp_path, monkeypatch)


@pytest.fixture
def ios(ios_session: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Device:
    return make_device("ios", ios_session, APPS / "ios.xml", tmp_path, monkeypatch)


@pytest.fixture(params=["android", "ios"])
def device(request: pytest.FixtureRequest) -> Device:
    """Each test once per platform."""
    return request.getfixturevalue(request.param)


@pytest.fixture
def short_waits(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tools that wait 5 s by default wait 0.3 s (for the tests that expect them to give up)."""
    monkeypatch.setattr("pytest_trailblaze.tools.mobile.DEFAULT_WAIT_MS", 300)
