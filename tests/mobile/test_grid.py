"""Grids and device farms: an Appium URL with a routing path, credentials and vendor capabilities.

Selenium Grid 4 and the cloud farms take sessions under a path (``/wd/hub``), with Basic-auth
credentials in the URL and their options in vendor capabilities (``bstack:options``,
``sauce:options``). Here a small reverse proxy in the test plays the grid: it serves only
``/wd/hub/...``, forwards to a real Appium server (fake driver) and records what arrived, so
the tests check the path, the credentials and the capabilities as the grid would see them.
Appium's own ``--base-path`` serves the same URL shape without a proxy.
"""

from __future__ import annotations

import base64
import json
import shutil
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from conftest import AppiumServer

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
APP = EXAMPLES / "mobile" / "apps" / "android-phone.xml"
SECRET = "k3y-0f-the-farm"
CAPS = """
android:
  platformName: Fake
  appium:automationName: AUTOMATION
  appium:app: APP
  bstack:options: { userName: ada, accessKey: "{{FARM_KEY}}", deviceName: Pixel 8 }
  sauce:options: { name: contact form, build: "42" }
"""


class Grid:
    """A grid-shaped reverse proxy: ``/wd/hub/<path>`` -> Appium ``/<path>``; records requests."""

    PREFIX = "/wd/hub"

    def __init__(self, upstream: str) -> None:
        self.upstream = upstream
        self.requests: list[dict[str, Any]] = []
        grid = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                grid.forward(self)

            def do_POST(self) -> None:
                grid.forward(self)

            def do_DELETE(self) -> None:
                grid.forward(self)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}{self.PREFIX}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def forward(self, handler: BaseHTTPRequestHandler) -> None:
        length = int(handler.headers.get("Content-Length") or 0)
        body = handler.rfile.read(length) if length else None
        self.requests.append(
            {
                "method": handler.command,
                "path": handler.path,
                "auth": handler.headers.get("Authorization"),
                "body": json.loads(body) if body else None,
            }
        )
        if not handler.path.startswith(self.PREFIX + "/"):
            self.answer(handler, 404, b'{"value": {"error": "unknown command", "message": "no route"}}')
            return
        request = urllib.request.Request(
            self.upstream + handler.path.removeprefix(self.PREFIX),
            data=body,
            method=handler.command,
            headers={"Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                self.answer(handler, answer.status, answer.read())
        except urllib.error.HTTPError as refused:
            self.answer(handler, refused.code, refused.read())

    @staticmethod
    def answer(handler: BaseHTTPRequestHandler, status: int, payload: bytes) -> None:
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(payload)))
        handler.end_headers()
        handler.wfile.write(payload)

    def new_sessions(self) -> list[dict[str, Any]]:
        return [r for r in self.requests if r["method"] == "POST" and r["path"] == f"{self.PREFIX}/session"]


@pytest.fixture
def grid(appium_server: AppiumServer) -> Iterator[Grid]:
    proxy = Grid(appium_server.url)
    proxy.thread.start()
    try:
        yield proxy
    finally:
        proxy.server.shutdown()
        proxy.server.server_close()


@pytest.fixture
def farm(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Any:
    """``farm(url, automation=...)``: the contact-form trail on android through ``url``."""
    shutil.copy(EXAMPLES / "conftest.py", pytester.path / "conftest.py")
    shutil.copytree(EXAMPLES / "sample-app", pytester.path / "sample-app")
    (pytester.path / "trails").mkdir()
    shutil.copy(EXAMPLES / "trails" / "mobile" / "contact-form.trail.yaml", pytester.path / "trails")
    monkeypatch.setenv("FARM_KEY", SECRET)
    monkeypatch.delenv("TRAILBLAZE_APPIUM_URL", raising=False)

    def run(url: str, automation: str = "Fake") -> pytest.RunResult:
        caps = pytester.path / "farm.yaml"
        caps.write_text(CAPS.replace("AUTOMATION", automation).replace("APP", str(APP)), encoding="utf-8")
        args = ["trails", "-m", "android", "-p", "no:randomly", "-W", "error::UserWarning"]
        args += [f"--trailblaze-appium-url={url}", f"--trailblaze-appium-caps={caps}"]
        return pytester.runpytest_subprocess(*args, "--trailblaze-secret=FARM_KEY", timeout=120)

    return run


def test_a_grid_path_with_credentials_and_vendor_capabilities(grid: Grid, farm: Any) -> None:
    url = grid.url.replace("http://", "http://ada%40corp:p%3Ass@")
    result = farm(url)
    result.assert_outcomes(passed=1, deselected=2)
    (created,) = grid.new_sessions()
    caps = created["body"]["capabilities"]["alwaysMatch"]
    assert caps["bstack:options"] == {"userName": "ada", "accessKey": SECRET, "deviceName": "Pixel 8"}
    assert caps["sauce:options"] == {"name": "contact form", "build": "42"}
    expected = "Basic " + base64.b64encode(b"ada@corp:p:ss").decode()
    assert {r["auth"] for r in grid.requests} == {expected}  # every command, as a grid needs
    assert all(r["path"].startswith("/wd/hub/session") for r in grid.requests)
    assert any(r["method"] == "DELETE" for r in grid.requests)  # the session was ended at the grid


def test_a_refused_session_shows_neither_credentials_nor_keys(grid: Grid, farm: Any) -> None:
    url = grid.url.replace("http://", "http://ada:p4ssw0rd@")
    result = farm(url, automation="NoSuchDriver")
    result.assert_outcomes(errors=1, deselected=2)
    text = result.stdout.str() + result.stderr.str()
    shown = grid.url.replace("http://", "http://***@")
    assert f"the Appium server at {shown} refused the android session" in text
    assert "'accessKey': '***'" in text and "NoSuchDriver" in text
    assert SECRET not in text and "p4ssw0rd" not in text
    assert "Traceback" not in text


def test_appium_under_a_base_path(start_appium: Any, farm: Any) -> None:
    server = start_appium("--base-path", "/wd/hub")
    assert server.url.endswith("/wd/hub")
    farm(server.url).assert_outcomes(passed=1, deselected=2)
