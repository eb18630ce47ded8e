"""A browser that never starts fails within the launch timeout, says what was launched, and is gone.

The "browser" is a shell script that starts a child and waits forever instead of opening
Playwright's DevTools pipe, as a wrapper stuck on something would. Before the launch timeout
Playwright waited 180 s for it.
"""

from __future__ import annotations

import os
import signal
import socket
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_trailblaze.core.errors import DriverError
from pytest_trailblaze.drivers.browser import BrowserHost
from pytest_trailblaze.drivers.browser_options import BrowserOptions
from pytest_trailblaze.drivers.playwright import WebDriver

HANGING_BROWSER = """\
#!/bin/sh
# A browser that never opens its DevTools pipe: it starts a helper and waits.
echo $$ >> "$0.pids"
sleep 600 &
echo $! >> "$0.pids"
wait
"""


def running(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def started_pids(script: Path) -> list[int]:
    pids = Path(f"{script}.pids")
    return [int(x) for x in pids.read_text().split()] if pids.exists() else []


@pytest.fixture
def hanging_browser(tmp_path: Path) -> Iterator[Path]:
    script = tmp_path / "hanging-browser.sh"
    script.write_text(HANGING_BROWSER)
    script.chmod(0o755)
    try:
        yield script
    finally:  # a failing test must not leave them behind either
        for pid in started_pids(script):
            if running(pid):
                os.kill(pid, signal.SIGKILL)


def survivors(script: Path, grace_s: float = 5.0) -> list[int]:
    """The script's processes still running after a grace for exits in flight."""
    deadline = time.monotonic() + grace_s
    alive = [pid for pid in started_pids(script) if running(pid)]
    while alive and time.monotonic() < deadline:
        time.sleep(0.05)
        alive = [pid for pid in alive if running(pid)]
    return alive


def test_launch_timeout_names_what_was_launched(hanging_browser: Path) -> None:
    host = BrowserHost(BrowserOptions(executable_path=str(hanging_browser), launch_timeout_s=2))
    with pytest.raises(DriverError) as info:
        WebDriver.open(host)
    message = str(info.value)
    assert message.startswith("could not start chromium: the browser did not start within 2 s\n"), message
    assert f"  why: launched {hanging_browser} --" in message
    assert "--headless" in message
    assert "fix: point --trailblaze-browser-path at a working chromium build" in message
    assert "--trailblaze-browser-launch-timeout" in message
    assert len(started_pids(hanging_browser)) == 2  # the script and its helper did start
    assert survivors(hanging_browser) == []


def test_a_failed_start_is_reported_again_not_retried(hanging_browser: Path) -> None:
    host = BrowserHost(BrowserOptions(executable_path=str(hanging_browser), launch_timeout_s=1))
    with pytest.raises(DriverError) as first:
        WebDriver.open(host)
    with pytest.raises(DriverError) as second:
        WebDriver.open(host)
    assert str(second.value) == str(first.value)
    assert len(started_pids(hanging_browser)) == 2


def test_connect_timeout() -> None:
    """A server that accepts the connection and never answers the WebSocket handshake."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        endpoint = f"ws://127.0.0.1:{server.getsockname()[1]}/"
        host = BrowserHost(BrowserOptions(connect=endpoint, launch_timeout_s=1))
        with pytest.raises(DriverError) as info:
            WebDriver.open(host)
    assert str(info.value).startswith(
        f"could not connect to the browser at {endpoint}: no answer within 1 s\n"
    ), info.value


TRAIL = """\
config:
  id: launch/blank
trail:
  - step: Open a blank page
    recording:
      web:
        - web_navigate: { url: "about:blank" }
"""


def test_web_trails_error_with_the_reason(pytester: pytest.Pytester, hanging_browser: Path) -> None:
    (pytester.path / "blank.trail.yaml").write_text(TRAIL)
    result = pytester.runpytest_subprocess(
        f"--trailblaze-browser-path={hanging_browser}",
        "--trailblaze-browser-launch-timeout=2",
        "-p",
        "no:cacheprovider",
        timeout=120,
    )
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "*could not start chromium: the browser did not start within 2 s",
            f"*why: launched {hanging_browser} --*",
            "*fix: point --trailblaze-browser-path at a working chromium build*",
        ]
    )
    assert survivors(hanging_browser) == []


@pytest.mark.parametrize("value", ["0", "-3", "nan", "inf", "soon"])
def test_launch_timeout_must_be_a_positive_number(pytester: pytest.Pytester, value: str) -> None:
    (pytester.path / "blank.trail.yaml").write_text(TRAIL)
    result = pytester.runpytest_subprocess(f"--trailblaze-browser-launch-timeout={value}", timeout=60)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--trailblaze-browser-launch-timeout*"])


def test_launch_timeout_from_the_ini_file(pytester: pytest.Pytester, hanging_browser: Path) -> None:
    (pytester.path / "blank.trail.yaml").write_text(TRAIL)
    pytester.makeini(
        textwrap.dedent(
            f"""\
            [pytest]
            trailblaze_browser_path = {hanging_browser}
            trailblaze_browser_launch_timeout = 1.5
            """
        )
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", timeout=120)
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*the browser did not start within 1.5 s"])
    assert survivors(hanging_browser) == []


def descendants(root: int) -> list[int]:
    """Pids of every process below ``root`` (read from /proc)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
    found, todo = [], [root]
    while todo:
        parent = todo.pop()
        children = [pid for pid, ppid in parents.items() if ppid == parent]
        found += children
        todo += children
    return found


def launched_executables() -> set[str]:
    executables = set()
    for pid in descendants(os.getpid()):
        try:
            executables.add(str(Path(f"/proc/{pid}/exe").readlink()))
        except OSError:
            continue
    return executables


@pytest.mark.skipif(
    not Path("/usr/lib/chromium/chromium-headless-shell").exists(),
    reason="Debian's chromium-headless-shell is not installed (./dev installs it)",
)
def test_headless_trails_run_in_chromium_headless_shell_and_headed_in_the_full_browser() -> None:
    """Headless, the system Chromium's headless shell is what runs (as Playwright runs its own):
    it costs about a third of the full browser's CPU per trail, which is what lets ``-n 2`` scale."""
    host = BrowserHost(BrowserOptions())
    try:
        page = host.browser.new_page()
        page.set_content("<p>hi</p>")
        assert "/usr/lib/chromium/chromium-headless-shell" in launched_executables()
        assert "/usr/lib/chromium/chromium" not in launched_executables()
    finally:
        host.close()
    assert host.launch_kwargs()["headless"] is True


def command_line(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_text(errors="replace")
    except OSError:  # ended meanwhile
        return ""


def driver_environment(pid: int) -> dict[str, str]:
    """The environment a running process started with (its ``/proc/<pid>/environ``)."""
    raw = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    return dict(entry.decode(errors="replace").split("=", 1) for entry in raw if b"=" in entry)


def test_playwrights_driver_keeps_its_compiled_code_in_our_private_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Node compiles the driver once, not at every start (core/system/node_cache.py); the
    variable is set for the driver only, not left in this process."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    for variable in ("NODE_COMPILE_CACHE", "NODE_DISABLE_COMPILE_CACHE"):
        monkeypatch.delenv(variable, raising=False)
    host = BrowserHost(BrowserOptions())
    try:
        host.browser.new_page().set_content("<p>hi</p>")
        folder = tmp_path / "pytest-trailblaze" / "node-compile-cache"
        drivers = [pid for pid in descendants(os.getpid()) if "run-driver" in command_line(pid)]
        assert drivers, "no Playwright driver among this process's children"
        assert driver_environment(drivers[0])["NODE_COMPILE_CACHE"] == str(folder)
        assert "NODE_COMPILE_CACHE" not in os.environ
    finally:
        host.close()
    # Node writes the cache as the driver exits (or once compiled); one versioned folder of entries
    assert [entry.name.startswith("v") for entry in folder.iterdir()] == [True]
    assert any(path.is_file() for path in folder.rglob("*"))
