"""Remote browsers through the plugin: Playwright browser servers and a running Chromium over CDP.

Real servers on 127.0.0.1: ``playwright run-server`` and ``chromium.launchServer()`` from the
node package ``playwright-core`` (pinned to the protocol of the Python client), and Debian's
Chromium started with ``--remote-debugging-port``. A token gate (a small TCP proxy that lets a
WebSocket or HTTP request through only with ``Authorization: Bearer <token>``) plays a cloud
browser service. Each run is a pytest subprocess replaying a web trail on the sample app; a probe
records the browser processes below pytest, so the tests see that the browser ran elsewhere.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from browsers import chromium_executable

REPO = Path(__file__).resolve().parents[2]
CLI = REPO / "node_modules" / "playwright-core" / "cli.js"
CHROMIUM = chromium_executable() or "/usr/bin/chromium"  # Debian's, or Playwright's own build
TOKEN = "t0ken-of-the-cloud"
TRAIL = """
config: { id: remote/counter }
trail:
  - step: Count once
    recording:
      web:
        - web_navigate: { url: "{{app}}/index.html#counter" }
        - web_click: { ref: "css=#increment-btn" }
        - web_verifyValue: { ref: "css=#counter-value", expected: "1" }
"""
PROBE = """
import json, os, pathlib
import pytest

@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item, nextitem):
    browsers = [cmd for _, cmd in descendants() if "chrom" in cmd.split(" ", 1)[0]]
    pathlib.Path(os.environ["TB_BROWSERS_OUT"]).write_text(json.dumps(browsers))
    return (yield)
"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def started(argv: list[str], ready: str, log: Path) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """A server process (own process group) and the first match of ``ready`` in its output.

    It is killed at the end, so the browsers it started cannot remove their profiles and
    artifact folders: they are made in a temporary folder of its own, removed after it. (A short
    path: Chromium's sockets live in its profile, and a socket's path has at most 107 bytes.)
    """
    scratch = tempfile.mkdtemp(prefix="tb-server-")
    env = {**os.environ, "TMPDIR": scratch}
    with log.open("wb") as out:
        process = subprocess.Popen(
            argv, stdout=out, stderr=subprocess.STDOUT, start_new_session=True, env=env
        )
    try:
        deadline = time.monotonic() + 30
        while not (found := re.search(ready, log.read_text(errors="replace"))):
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"{argv[:3]} did not start:\n{log.read_text(errors='replace')}")
            time.sleep(0.1)
        yield process, found.group(1)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)
        remove_when_released(Path(scratch))


def remove_when_released(folder: Path) -> None:
    """Remove ``folder`` once the browsers of a killed server stop writing to it (they exit when
    their pipe to the server closes, a moment after it)."""
    deadline = time.monotonic() + 10
    while folder.exists() and time.monotonic() < deadline:
        shutil.rmtree(folder, ignore_errors=True)
        time.sleep(0.1)


@pytest.fixture
def run_server(tmp_path: Path) -> Callable[..., Any]:
    """``run_server(*flags)``: ``playwright run-server`` on a free port; its ws endpoint."""
    with contextlib.ExitStack() as stack:

        def start(*flags: str) -> str:
            argv = ["node", str(CLI), "run-server", "--host", "127.0.0.1", "--port", str(free_port()), *flags]
            _, endpoint = stack.enter_context(started(argv, r"Listening on (ws://\S+)", tmp_path / "rs.log"))
            return endpoint

        yield start


@pytest.fixture
def launch_server(tmp_path: Path) -> Iterator[str]:
    """``chromium.launchServer()`` with Debian's Chromium; its ws endpoint."""
    script = (
        "const { chromium } = require(process.argv[1]);"
        "chromium.launchServer({ executablePath: process.argv[2], host: '127.0.0.1', port: 0,"
        "  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] })"
        ".then(s => console.log('ENDPOINT ' + s.wsEndpoint()));"
    )
    argv = ["node", "-e", script, str(CLI.parent), CHROMIUM]
    with started(argv, r"ENDPOINT (ws://\S+)", tmp_path / "ls.log") as (_, endpoint):
        yield endpoint


@pytest.fixture
def cdp_chromium(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """Debian's Chromium with a DevTools port; its process and browser ws URL."""
    argv = [CHROMIUM, "--headless", "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0"]
    argv += [f"--user-data-dir={tmp_path / 'profile'}", "--no-sandbox", "--disable-gpu", "--no-first-run"]
    argv += ["--disable-dev-shm-usage", "about:blank"]
    with started(argv, r"DevTools listening on (ws://\S+)", tmp_path / "cdp.log") as found:
        yield found


class TokenGate:
    """A TCP proxy to ``upstream`` port that passes a request only with ``Authorization: Bearer TOKEN``."""

    def __init__(self, upstream: int) -> None:
        self.upstream = upstream
        self.seen: list[str | None] = []
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        with contextlib.suppress(OSError):
            while True:
                client, _ = self.listener.accept()
                threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client: socket.socket) -> None:
        head = b""
        while b"\r\n\r\n" not in head and (chunk := client.recv(65536)):
            head += chunk
        found = re.search(rb"\r\nauthorization: *([^\r\n]*)", head, re.IGNORECASE)
        self.seen.append(found.group(1).decode() if found else None)
        if not found or found.group(1).decode() != f"Bearer {TOKEN}":
            client.sendall(b"HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            client.close()
            return
        upstream = socket.create_connection(("127.0.0.1", self.upstream))
        upstream.sendall(head)
        for source, target in ((client, upstream), (upstream, client)):
            threading.Thread(target=self._pipe, args=(source, target), daemon=True).start()

    @staticmethod
    def _pipe(source: socket.socket, target: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while chunk := source.recv(65536):
                target.sendall(chunk)
        with contextlib.suppress(OSError):
            target.shutdown(socket.SHUT_WR)

    def close(self) -> None:
        self.listener.close()


@pytest.fixture
def gate() -> Iterator[Callable[[str], tuple[TokenGate, str]]]:
    """``gate(endpoint)``: a token gate in front of ``endpoint``; the gate and the gated endpoint."""
    gates: list[TokenGate] = []

    def make(endpoint: str) -> tuple[TokenGate, str]:
        port = int(re.search(r":(\d+)", endpoint.split("//", 1)[1]).group(1))  # type: ignore[union-attr]
        made = TokenGate(port)
        gates.append(made)
        return made, endpoint.replace(f":{port}", f":{made.port}", 1)

    yield make
    for made in gates:
        made.close()


@pytest.fixture
def trail(pytester: pytest.Pytester, tb: Any, monkeypatch: pytest.MonkeyPatch) -> Callable[..., Any]:
    """``trail(*args)``: the counter trail in a pytest subprocess; (result, browsers below pytest)."""
    pytester.makeconftest(tb.PROCESS_PROBE + PROBE)
    tb.write(pytester.path, "trails/counter.trail.yaml", TRAIL)
    out = pytester.path / "browsers.json"
    monkeypatch.setenv("TB_BROWSERS_OUT", str(out))
    monkeypatch.setenv("BROWSER_TOKEN", TOKEN)

    def run(*args: str) -> tuple[pytest.RunResult, list[str]]:
        out.unlink(missing_ok=True)
        result = pytester.runpytest_subprocess(
            "trails", tb.APP_MEMORY, "-p", "no:randomly", *args, timeout=120
        )
        return result, (json.loads(out.read_text()) if out.is_file() else [])

    return run


# -- Playwright browser servers ------------------------------------------------------------------------
def test_run_server_with_the_machines_chromium(trail: Any, run_server: Any) -> None:
    endpoint = run_server("--unsafe")  # --unsafe: the server takes the browser path the client sends
    result, browsers = trail(f"--trailblaze-connect={endpoint}", f"--trailblaze-browser-path={CHROMIUM}")
    result.assert_outcomes(passed=1)
    assert browsers == []  # the browser ran below the server, not below pytest


def test_run_server_without_a_browser_says_what_to_do(trail: Any, run_server: Any) -> None:
    endpoint = run_server()
    result, _ = trail(f"--trailblaze-connect={endpoint}")
    result.assert_outcomes(errors=1)
    text = result.stdout.str()
    assert f"could not connect to the browser at {endpoint}: " in text
    assert "Executable doesn't exist" in text
    assert (
        "fix: the server has no chromium of its own: start it with `playwright run-server --unsafe`" in text
    )
    assert "Traceback" not in text


def test_launch_server(trail: Any, launch_server: str) -> None:
    result, browsers = trail(f"--trailblaze-connect={launch_server}")
    result.assert_outcomes(passed=1)
    assert browsers == []


def test_headers_carry_a_token_to_a_gated_server(trail: Any, run_server: Any, gate: Any) -> None:
    tokens, endpoint = gate(run_server("--unsafe"))
    args = [f"--trailblaze-connect={endpoint}", f"--trailblaze-browser-path={CHROMIUM}"]
    result, _ = trail(*args, "--trailblaze-connect-header=Authorization=Bearer {{BROWSER_TOKEN}}")
    result.assert_outcomes(passed=1)
    assert tokens.seen == [f"Bearer {TOKEN}"]
    refused, _ = trail(*args)
    refused.assert_outcomes(errors=1)
    text = refused.stdout.str()
    assert (
        "401" in text
        and "fix: the server wants credentials: pass them with --trailblaze-connect-header" in text
    )


def test_connect_options_reach_playwright(trail: Any, launch_server: str) -> None:
    result, _ = trail(
        f"--trailblaze-connect={launch_server}",
        "--trailblaze-connect-option=slow_mo=1",
        "--trailblaze-connect-option=expose_network=<loopback>",
    )
    result.assert_outcomes(passed=1)


# -- a running Chromium over CDP ------------------------------------------------------------------------
def test_cdp_attaches_to_a_running_chromium_and_leaves_it_running(trail: Any, cdp_chromium: Any) -> None:
    process, ws_url = cdp_chromium
    http_url = "http://" + ws_url.split("//", 1)[1].split("/", 1)[0]
    for endpoint in (http_url, ws_url):
        result, browsers = trail(f"--trailblaze-cdp={endpoint}")
        result.assert_outcomes(passed=1)
        assert browsers == []
        assert process.poll() is None  # attached, used and left: the plugin did not start or stop it


def test_cdp_with_a_token(trail: Any, cdp_chromium: Any, gate: Any) -> None:
    tokens, gated = gate(cdp_chromium[1])
    result, _ = trail(
        f"--trailblaze-cdp={gated}", "--trailblaze-connect-header=Authorization: Bearer {{BROWSER_TOKEN}}"
    )
    result.assert_outcomes(passed=1)
    assert tokens.seen and set(tokens.seen) == {f"Bearer {TOKEN}"}
    refused, _ = trail(f"--trailblaze-cdp={gated}")
    refused.assert_outcomes(errors=1)
    assert f"could not attach to Chromium over CDP at {gated}" in refused.stdout.str()
    assert TOKEN not in refused.stdout.str() + refused.stderr.str()


# -- bad options ------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--trailblaze-connect=ws://127.0.0.1:1/", "--trailblaze-cdp=http://127.0.0.1:2"],
            "*--trailblaze-connect and --trailblaze-cdp exclude each other*",
        ),
        (
            ["--trailblaze-cdp=http://127.0.0.1:2", "--trailblaze-browser=firefox"],
            "*--trailblaze-cdp attaches to Chromium only*",
        ),
        (["--trailblaze-connect-header=Bad Name=1"], "*--trailblaze-connect-header expects NAME=VALUE*"),
        (["--trailblaze-connect-option=headless=1"], "*--trailblaze-connect-option expects KEY=VALUE*"),
        (
            ["--trailblaze-cdp=http://127.0.0.1:2", "--trailblaze-connect-option=expose_network=*"],
            "*slow_mo*",
        ),
    ],
)
def test_bad_remote_options_are_usage_errors(trail: Any, args: list[str], message: str) -> None:
    result, _ = trail(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])
