"""A secret typed on a device never reaches the local Appium server's log (docs/guides/security.md).

At ``info`` and ``debug`` Appium logs every request body: the text typed into a field appears as
``{"text": "<secret>", "value": ["<s>", "<e>", ...]}`` and again in the driver's ``setValue()``
arguments (at the default ``warn`` it logs neither). The plugin's local server
(``--trailblaze-appium-server``) writes its output through the run's masker, so a run at
``debug`` that types a secret leaves no byte of it, whole, in pieces or spelled out, in the log,
in any other file or name under the run's tree, or in stdout / stderr. The log still shows that
text was typed (masked), which is what makes the sweep mean something.

The log pipe itself: a secret split across two reads is held back until the next read shows it
whole; a server that fails to start reports its last lines masked; nothing (thread, pipe, file)
is left open after the server stops.
"""

from __future__ import annotations

import os
import threading
import uuid
from pathlib import Path

import pytest

from pytest_trailblaze.core.errors import DriverError
from pytest_trailblaze.core.masking import Masker
from pytest_trailblaze.core.system.reaper import REAPER
from pytest_trailblaze.drivers.appium_server import LocalAppiumServer, MaskedLog, appium_masker

REPO = Path(__file__).resolve().parents[2]
APP = Path(__file__).resolve().parent / "apps" / "android.xml"
SECRET = f"Qx7mob{uuid.uuid4().hex[:10]}SECRET"
#: Every 8 characters of the secret, and the secret spelled as Appium spells typed text.
PIECES = [SECRET[i : i + 8] for i in range(len(SECRET) - 7)]
SPELLED = ['","'.join(SECRET[i : i + 4]) for i in range(len(SECRET) - 3)]

TRAIL = """
config: { id: mobile-sweep/type-password }
trail:
  - step: Type the password
    recording:
      android:
        - tapOnElementBySelector:
            nodeSelector: { androidAccessibility: { resourceIdRegex: ".*:id/username" } }
        - inputText: { text: "{{pw}}", hideKeyboardAfter: false }
"""


def leaks(data: bytes) -> list[str]:
    text = data.decode("utf-8", "replace")
    return [piece for piece in (*PIECES, *SPELLED) if piece in text]


def test_a_secret_typed_on_a_device_is_masked_in_the_local_servers_log(pytester: pytest.Pytester) -> None:
    (pytester.path / "trails").mkdir()
    (pytester.path / "trails" / "type.trail.yaml").write_text(TRAIL)
    caps = pytester.path / "caps.yaml"
    caps.write_text(f"android:\n  platformName: Fake\n  appium:automationName: Fake\n  appium:app: {APP}\n")
    output = pytester.path / "out"

    result = pytester.runpytest_subprocess(
        "-m", "android", "-p", "no:randomly", "-rA", "-l",
        f"--trailblaze-appium-server={REPO}",
        "--trailblaze-appium-log-level=debug",
        f"--trailblaze-appium-caps={caps}",
        f"--trailblaze-secret=pw={SECRET}",
        f"--trailblaze-output={output}",
        f"--junitxml={pytester.path / 'junit.xml'}",
        timeout=180,
    )  # fmt: skip

    result.assert_outcomes(passed=1)
    log = (output / "appium-logs" / "appium-server-main.log").read_text()
    assert '/element/1/value {"text":"********","value":[********]}' in log, log
    assert 'setValue() with args: ["********",' in log, log
    found = {str(p): leaks(p.read_bytes()) for p in pytester.path.rglob("*") if p.is_file()}
    assert {path: pieces for path, pieces in found.items() if pieces} == {}
    assert [p for p in pytester.path.rglob("*") if leaks(p.name.encode())] == []
    assert leaks((result.stdout.str() + result.stderr.str()).encode()) == []


def test_a_secret_split_across_two_reads_of_the_pipe_is_still_masked(tmp_path: Path) -> None:
    path = tmp_path / "server.log"
    read_end, write_end = os.pipe()
    log = MaskedLog(path, appium_masker(Masker({"pw": SECRET}))).follow(os.fdopen(read_end, "rb"))
    cut = len(SECRET) // 2
    os.write(write_end, f"typed {SECRET[:cut]}".encode())
    wait_for(lambda: path.read_text() == "typed ")  # the first half is held back, not written
    os.write(write_end, f"{SECRET[cut:]} and {spelled(SECRET)}\nlast line".encode())
    os.close(write_end)
    log.close()

    assert path.read_text() == "typed ******** and [********]\nlast line"
    assert "trailblaze-appium-log" not in {t.name for t in threading.enumerate()}


def test_a_server_that_fails_to_start_shows_its_last_lines_masked_and_leaves_nothing_open(
    tmp_path: Path,
) -> None:
    """A broken Appium install (``index.js`` that prints a secret from its config and exits 3)."""
    entry = tmp_path / "node_modules" / "appium" / "index.js"
    entry.parent.mkdir(parents=True)
    entry.write_text(
        f'console.log("starting");\nconsole.error("bad config: token {SECRET}");\nprocess.exit(3);\n'
    )
    log_path = tmp_path / "logs" / "appium-server-main.log"
    server = LocalAppiumServer(tmp_path, log_path, Masker({"token": SECRET}))
    REAPER.release(0)  # the reaper's pipe to its watcher lives as long as the process: open it first
    pipes_before = open_pipes()

    with pytest.raises(DriverError) as info:
        server.start()

    message = str(info.value)
    assert "the local Appium server exited with code 3 while starting" in message
    assert "    bad config: token ********" in message and f"log: {log_path}" in message
    assert SECRET not in message and SECRET not in log_path.read_text()
    assert server.process is None
    assert "trailblaze-appium-log" not in {t.name for t in threading.enumerate()}
    assert open_pipes() <= pipes_before, "the server's output pipe was left open"


def spelled(text: str) -> str:
    return '["' + '","'.join(text) + '"]'


def open_pipes() -> set[str]:
    """The pipes this process holds open (``/proc/self/fd``)."""
    found = set()
    for fd in Path("/proc/self/fd").iterdir():
        try:
            target = str(fd.readlink())
        except OSError:
            continue
        if target.startswith("pipe:"):
            found.add(f"{fd.name}->{target}")
    return found


def wait_for(condition, limit_s: float = 10.0) -> None:
    """Until ``condition()`` holds (an event, not a timing: the limit only stops a broken run)."""
    done = threading.Event()
    for _ in range(int(limit_s / 0.01)):
        if condition():
            return
        done.wait(0.01)
    raise AssertionError("the condition never held")


@pytest.mark.parametrize("where", ["ini", "cli"])
def test_an_unknown_log_level_is_a_usage_error(pytester: pytest.Pytester, where: str) -> None:
    pytester.makefile(".trail.yaml", ok="trail:\n  - step: s\n    recording:\n      web: []\n")
    if where == "ini":
        pytester.makeini("[pytest]\ntrailblaze_appium_log_level = loud\n")
    args = ["--trailblaze-appium-log-level=loud"] if where == "cli" else []

    result = pytester.runpytest("--collect-only", *args)

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    expected = (
        "*log_level = loud: use one of error, warn, info, debug*" if where == "ini" else "*invalid choice*"
    )
    result.stderr.fnmatch_lines([expected])
