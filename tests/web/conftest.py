"""Real headless Chromium against the sample app served on a free port of 127.0.0.1.

One browser for the session (``BrowserHost``), a fresh context and page per test (``WebDriver``),
and a ``ToolContext`` over a web registry filled with the built-in tools. Tests dispatch through
``ToolRegistry.execute`` (interpolation, validation, logging) and check the effect on the page with
plain Playwright calls on ``driver.page``.

Besides the sample app the server answers test-only paths:

* ``/slow?ms=N`` -- a JSON body after N milliseconds (for the post-action settle);
* ``/slow-page?ms=N`` -- an HTML page after N milliseconds (a slow navigation target);
* ``/test-pages/<name>`` -- the pages in ``tests/web/pages`` (generated content, analytics);
* ``/collect`` -- an analytics endpoint: 204 to any GET or POST.

``todomvc_url`` serves the real TodoMVC (npm ``todomvc``, the vanillajs app) on a port of its own.
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable, Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from pytest_trailblaze.core.tooling.context import DeviceInfo, ToolContext
from pytest_trailblaze.core.tooling.memory import Memory
from pytest_trailblaze.core.tooling.registry import ToolRegistry
from pytest_trailblaze.core.tooling.tooldef import ToolResult
from pytest_trailblaze.drivers.browser import BrowserHost
from pytest_trailblaze.drivers.browser_options import BrowserOptions
from pytest_trailblaze.drivers.playwright import WebDriver
from pytest_trailblaze.tools import builtin_tools

REPO = Path(__file__).resolve().parents[2]
SAMPLE_APP = REPO / "examples" / "sample-app"
TEST_PAGES = Path(__file__).resolve().parent / "pages"
TODOMVC = REPO / "node_modules" / "todomvc" / "examples" / "vanillajs"

SLOW_PAGE = (
    "<!DOCTYPE html><html><head><title>Slow page</title></head>"
    "<body><h1>Slow page</h1><p id='loaded'>loaded</p></body></html>"
)


class _SampleAppHandler(SimpleHTTPRequestHandler):
    """Static files of the sample app plus the two slow test endpoints."""

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        if parts.path == "/collect":
            self._no_content()
            return
        if parts.path.startswith("/test-pages/"):
            self._test_page(parts.path.removeprefix("/test-pages/"))
            return
        if parts.path in ("/slow", "/slow-page"):
            delay_ms = int(parse_qs(parts.query).get("ms", ["700"])[0])
            time.sleep(delay_ms / 1000)
            if parts.path == "/slow":
                self._send(b'{"ok": true}', "application/json")
            else:
                self._send(SLOW_PAGE.encode(), "text/html; charset=utf-8")
            return
        super().do_GET()

    def do_POST(self) -> None:
        if urlsplit(self.path).path != "/collect":
            self.send_error(404)
            return
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self._no_content()

    def _no_content(self) -> None:
        self.send_response(204)
        self.send_header("Cache-Control", "no-store")
        self.end_headers()

    def _test_page(self, name: str) -> None:
        page = TEST_PAGES / name
        if "/" in name or not page.is_file():
            self.send_error(404)
            return
        self._send(page.read_bytes(), "text/html; charset=utf-8")

    def _send(self, body: bytes, content_type: str) -> None:
        try:
            self.send_response(200)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the test closed its page before the slow answer came

    def log_message(self, format: str, *args: object) -> None:
        """Keep request lines out of the test output."""


def _serve(handler: Callable[..., Any], name: str) -> Iterator[str]:
    """Serve from a daemon thread on a free port of 127.0.0.1 until the generator is closed."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, name=name, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@pytest.fixture(scope="session")
def app_url() -> Iterator[str]:
    """Base URL of the sample app, served for the whole session."""
    yield from _serve(functools.partial(_SampleAppHandler, directory=str(SAMPLE_APP)), "web-tests-app")


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        """Keep request lines out of the test output."""


@pytest.fixture(scope="session")
def todomvc_url() -> Iterator[str]:
    """Base URL of TodoMVC's vanillajs app from npm (``npm ci`` installs it with the other tools)."""
    if not (TODOMVC / "index.html").is_file():
        pytest.fail(f"TodoMVC is missing at {TODOMVC}: run `npm ci` (./dev does) to install it")
    yield from _serve(functools.partial(_QuietHandler, directory=str(TODOMVC)), "web-tests-todomvc")


@pytest.fixture(scope="module")  # closed before later modules run in-process browsers
def browser_host() -> Iterator[BrowserHost]:
    """ONE headless Chromium for the session (the system one when Playwright's is absent)."""
    host = BrowserHost(BrowserOptions())
    try:
        yield host
    finally:
        host.close()


@pytest.fixture
def driver(browser_host: BrowserHost) -> Iterator[WebDriver]:
    """A fresh browser context and page, closed after the test."""
    web_driver = WebDriver.open(browser_host)
    try:
        yield web_driver
    finally:
        web_driver.close()


@pytest.fixture
def registry() -> ToolRegistry:
    tools = ToolRegistry(platform="web", driver_key="playwright-native")
    tools.register_all(builtin_tools())
    return tools


@pytest.fixture
def trail_path(tmp_path: Path) -> Path:
    """Where the (imaginary) trail of the test lives; relative URLs resolve against its folder."""
    folder = tmp_path / "trails" / "checkout"
    folder.mkdir(parents=True)
    return folder / "trail.yaml"


@pytest.fixture
def ctx(registry: ToolRegistry, driver: WebDriver, trail_path: Path, tmp_path: Path) -> ToolContext:
    return ToolContext(
        registry,
        Memory(),
        driver.device_info(),
        driver,
        str(trail_path),
        artifacts_dir=tmp_path / "artifacts",
    )


Run = Callable[..., ToolResult]


@pytest.fixture
def run(ctx: ToolContext) -> Run:
    """``run("web_click", ref="e3")``: one call through ``ToolRegistry.execute``."""

    def call(name: str, args: dict[str, Any] | None = None, /, **kwargs: Any) -> ToolResult:
        return ctx.registry.execute(name, {**(args or {}), **kwargs}, ctx)

    return call


@pytest.fixture
def offline_ctx(registry: ToolRegistry, trail_path: Path, tmp_path: Path) -> ToolContext:
    """A web context without a browser, for calls that never reach the page (validation, memory)."""
    device = DeviceInfo("web", "playwright-native", 1280, 800)
    return ToolContext(
        registry, Memory(), device, None, str(trail_path), artifacts_dir=tmp_path / "artifacts"
    )


@pytest.fixture
def offline_run(offline_ctx: ToolContext) -> Run:
    def call(name: str, args: dict[str, Any] | None = None, /, **kwargs: Any) -> ToolResult:
        return offline_ctx.registry.execute(name, {**(args or {}), **kwargs}, offline_ctx)

    return call


@pytest.fixture
def open_app(driver: WebDriver, app_url: str) -> Callable[[str], Any]:
    """Open a page of the sample app with plain Playwright (test set-up, not under test)."""

    def goto(page: str = "index.html") -> Any:
        driver.page.goto(f"{app_url}/{page}")
        return driver.page

    return goto


@pytest.fixture
def open_test_page(driver: WebDriver, app_url: str) -> Callable[[str], Any]:
    """Open one of ``tests/web/pages`` with plain Playwright (test set-up, not under test)."""

    def goto(name: str) -> Any:
        driver.page.goto(f"{app_url}/test-pages/{name}")
        return driver.page

    return goto
