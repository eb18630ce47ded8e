"""Nothing a run starts survives it: after failures, Ctrl-C, SIGTERM, a SIGKILL and pytest-timeout.

Each run is a real ``python -m pytest`` in a session of its own, on real Chromium, a real MCP
server and a local Appium server (fake driver) that the plugin starts. The run's conftest writes
``procs.json`` (every process below pytest, read from /proc) when a marked tool is about to run:
the tests act on that file, never on timing. After the run, every recorded process, and anything
carrying the run's id, must be gone.

The runs start with SIGINT at its default action. A process that a non-interactive shell starts
in the background (``pytest &`` in a script, some CI runners) inherits "ignore SIGINT", and
Python then never raises KeyboardInterrupt: that, not the plugin, is how a Ctrl-C got "lost" when
this suite itself ran in the background. A terminal user's pytest never starts that way.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path
from xml.etree import ElementTree

import pytest

from pytest_trailblaze.core.system.reaper import WATCHER, start_time

REPO = Path(__file__).resolve().parents[2]
SERVERS = REPO / "tests" / "mcp" / "servers"
ANDROID_APP = REPO / "tests" / "mobile" / "apps" / "android.xml"
#: Runs a command with SIGINT and SIGTERM at their default actions, as a terminal starts it.
LAUNCHER = (
    "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
    "signal.signal(signal.SIGTERM, signal.SIG_DFL); os.execv(sys.executable, [sys.executable, *sys.argv[1:]])"
)
#: Tools the recorder watches: when one is about to run, the step has started.
MARKED = ("assertEquals", "web_wait", "pyfx_sleep", "assertVisibleBySelector", "carelessWait", "wait")

RECORDER = f"""
import json
import pathlib
import time

from pytest_trailblaze.core.tooling.tooldef import tool

HERE = pathlib.Path(__file__).parent

@tool(description="Wait twice, swallowing the first interrupt as careless code (or a finalizer) does")
def carelessWait(ctx) -> str:
    try:
        time.sleep(60)
    except KeyboardInterrupt:
        pass
    time.sleep(60)
    return "waited"

def pytest_trailblaze_register_tools(registry, config):
    registry.register(carelessWait)

def pytest_trailblaze_before_tool(name, args, context):
    if name in {MARKED!r} and "quick" not in context.trail_path:
        tmp = HERE / "procs.json.tmp"
        tmp.write_text(json.dumps(descendants()))
        tmp.replace(HERE / "procs.json")
"""

FAILING = """
trail:
  - step: Open the counter
    recording:
      web:
        - web_navigate: { url: "{{app}}/index.html#counter" }
  - step: Compare
    recording:
      web:
        - assertEquals: { actual: "1", expected: "2" }
"""

#: Each kind of long tool, with a quick trail of the same platform that passes before it.
QUICK = {
    "web": '- web_navigate: { url: "{{app}}/index.html#counter" }',
    "android": "- assertVisibleBySelector: {nodeSelector: {androidAccessibility: {textRegex: Sign in}}}",
}
LONG = {
    "web_wait": ("web", "- web_wait: { seconds: 30 }"),
    "mcp_call": ("web", "- pyfx_sleep: { seconds: 600 }"),
    "swallowed": ("web", "- carelessWait: {}"),
    "long_wait": ("web", "- wait: { timeToWaitInSeconds: 120 }"),
    "appium_poll": (
        "android",
        '- assertVisibleBySelector: { nodeSelector: { androidAccessibility: { textRegex: "Never there" } }, '
        "timeoutMs: 120000 }",
    ),
}
MCP_SERVERS = """
    - script: {py_server}
    - name: stubborn
      command: {python}
      args: [{raw_server}, stubborn, "--sentinel={run_id}"]
"""


def trail(trail_id: str, platform: str, call: str, target: str | None = None) -> str:
    head = f"config:\n  id: {trail_id}\n" + (f"  target: {target}\n" if target else "")
    return f"{head}trail:\n  - step: {trail_id}\n    recording:\n      {platform}:\n        {call}\n"


class RunProcesses:
    """The processes one pytest run started, as its recorder saw them mid-run."""

    def __init__(self, recorded: list[list], run_id: str) -> None:
        self.recorded = {int(pid): cmd for pid, cmd in recorded}
        profiles = [
            m.group(1) for c in self.of(run_id) for m in [re.search(r"--user-data-dir=(\S+)", c)] if m
        ]
        self.markers = [run_id, *profiles]

    def of(self, *words: str) -> list[str]:
        """Recorded command lines containing every one of ``words``."""
        return [cmd for cmd in self.recorded.values() if all(w in cmd for w in words)]

    def survivors(self, tb, grace_s: float = 5.0) -> dict[int, str]:
        """Processes of the run still alive after a grace for exits in flight (zombies are dead)."""
        deadline = time.monotonic() + grace_s
        while True:
            table = tb.processes()
            left = {p: c for p, c in table.items() if any(m in c for m in self.markers)}
            left.update({p: c for p, c in self.recorded.items() if table.get(p) == c})
            if not left or time.monotonic() > deadline:
                return left
            time.sleep(0.1)

    def kill(self, tb) -> None:
        """Clean up after a failed assertion: end what this run left behind, by pid."""
        for pid in self.survivors(tb, grace_s=0):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


class Run:
    """``python -m pytest`` in its own session (a terminal's job), logging to ``run.log``."""

    def __init__(self, path: Path, run_id: str, *args: str) -> None:
        self.path = path
        self.run_id = run_id
        self.log = path / "run.log"
        options = ["-p", "no:cacheprovider", "-p", "no:randomly", "--junitxml=junit.xml"]
        command = [sys.executable, "-c", LAUNCHER, "-m", "pytest", *options, *args]
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "COV_"))}
        env["PYTHONFAULTHANDLER"] = "1"  # SIGABRT prints every thread's stack: see ``stopped``
        with self.log.open("wb") as out:
            self.proc = subprocess.Popen(
                command, cwd=path, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True
            )
        self.processes: RunProcesses | None = None

    def started(self, timeout_s: float = 90) -> RunProcesses:
        """The processes recorded when the long step began (the marked tool is about to run)."""
        procs = self.path / "procs.json"
        deadline = time.monotonic() + timeout_s
        while not procs.exists():
            if self.proc.poll() is not None:
                pytest.fail(f"the run ended before the step (exit {self.proc.returncode}):\n{self.output()}")
            assert time.monotonic() < deadline, f"procs.json never appeared:\n{self.output()}"
            time.sleep(0.05)
        self.processes = RunProcesses(json.loads(procs.read_text()), self.run_id)
        return self.processes

    def stopped(self, timeout: float) -> int:
        """The exit code once the run ends by itself within ``timeout`` s. A run that does not is a
        hang: it is aborted, and the test fails with the stack of each of its threads."""
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.send_signal(signal.SIGABRT)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=10)
            pytest.fail(f"the run did not stop within {timeout:g} s; where it was:\n{self.output()}")

    def send(self, sig: signal.Signals, *, group: bool) -> None:
        """To pytest alone (``kill``), or to its whole process group (a terminal's Ctrl-C)."""
        if group:
            os.killpg(self.proc.pid, sig)
        else:
            self.proc.send_signal(sig)

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def junit(self) -> dict[str, list[str]]:
        """Each JUnit testcase by name, with its outcome elements (failure, error, skipped; none: passed)."""
        root = ElementTree.parse(self.path / "junit.xml").getroot()
        outcomes = ("failure", "error", "skipped")
        return {c.get("name", ""): [e.tag for e in c if e.tag in outcomes] for c in root.iter("testcase")}

    def close(self, tb) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        if self.processes is not None:
            self.processes.kill(tb)


@pytest.fixture
def run_id() -> str:
    return uuid.uuid4().hex


@pytest.fixture
def start(pytester: pytest.Pytester, tb, run_id: str):
    """``start(*args)``: a ``Run`` in the pytester folder, with the run's id on the browser's command line."""
    runs: list[Run] = []

    def start_(*args: str) -> Run:
        browser_arg = f"--trailblaze-browser-arg=--trailblaze-test-run={run_id}"
        allowed = f"--trailblaze-allow-file-urls={tb.EXAMPLES}"  # the sample app, outside the folder
        runs.append(Run(pytester.path, run_id, tb.APP_MEMORY, browser_arg, allowed, *args))
        return runs[-1]

    yield start_
    for run in runs:
        run.close(tb)


def long_step_setup(pytester: pytest.Pytester, tb, run_id: str, kind: str) -> list[str]:
    """A quick trail that passes, then a trail whose ``kind`` of tool runs long; the options they need."""
    platform, call = LONG[kind]
    pytester.makeconftest(tb.PROCESS_PROBE + RECORDER)
    target = "fx" if kind == "mcp_call" else None
    tb.write(pytester.path, "trails/a_quick.trail.yaml", trail("quick", platform, QUICK[platform], target))
    tb.write(pytester.path, "trails/b_long.trail.yaml", trail("long", platform, call, target))
    if target:
        mcp_workspace(pytester.path, tb, run_id)
    return appium_options(pytester.path) if platform == "android" else []


def mcp_workspace(path: Path, tb, run_id: str, *, stubborn: bool = False, servers: str = MCP_SERVERS) -> None:
    """Target ``fx`` with ``servers``: by default a Python MCP server, and a stubborn one whose child
    shares its process group. The stubborn server ignores stdin EOF and SIGTERM, and so does its
    child: only SIGKILL of the group ends them (its clean teardown takes the full 7 s of the contract).
    """
    raw_server = SERVERS / "raw_server.py"
    servers = servers.format(
        py_server="py_server.py", python=sys.executable, raw_server=raw_server, run_id=run_id
    )
    if not stubborn:
        servers = servers.split("    - name: stubborn")[0]
    tb.write(path, "trails/config/trailblaze.yaml", "targets: [fx]\n")
    head = "id: fx\ntarget:\n  display_name: Fixture\n  mcp_servers:"
    trailmap = f"{head}{servers}  platforms:\n    web: {{}}\n"
    tb.write(path, "trails/config/trailmaps/fx/trailmap.yaml", trailmap)
    # a `script:` must lie inside the workspace: the fixture server is copied next to the trailmap
    tb.write(path, "trails/config/trailmaps/fx/py_server.py", (SERVERS / "py_server.py").read_text())


def appium_options(path: Path) -> list[str]:
    caps = path / "caps.yaml"
    fake = "android:\n  platformName: Fake\n  appium:automationName: Fake\n"
    caps.write_text(f"{fake}  appium:app: {ANDROID_APP}\n")
    return [f"--trailblaze-appium-server={REPO}", f"--trailblaze-appium-caps={caps}"]


def expected_processes(run: RunProcesses, kind: str) -> None:
    """The recording saw what the long step's run must have started (so its absence later means something)."""
    if LONG[kind][0] == "web":
        assert run.of(run.markers[0]), f"no browser with the run id among {run.recorded}"
        assert run.of("playwright", "run-driver"), f"no Playwright driver among {run.recorded}"
    if kind == "mcp_call":
        assert run.of("py_server.py"), f"no MCP server among {run.recorded}"
    if kind == "appium_poll":
        assert run.of("appium/index.js server"), f"no local Appium server among {run.recorded}"


def test_no_process_survives_a_failing_run(pytester: pytest.Pytester, tb, run_id: str) -> None:
    pytester.makeconftest(tb.PROCESS_PROBE + RECORDER)
    tb.write(pytester.path, "trails/failing.trail.yaml", FAILING)

    result = pytester.runpytest_subprocess(
        tb.APP_MEMORY, f"--trailblaze-browser-arg=--trailblaze-test-run={run_id}"
    )

    result.assert_outcomes(failed=1)
    run = RunProcesses(json.loads((pytester.path / "procs.json").read_text()), run_id)
    expected_processes(run, "web_wait")
    try:
        assert run.survivors(tb) == {}
    finally:
        run.kill(tb)


#: (long tool, how the signal comes): a terminal's Ctrl-C reaches the whole process group (the
#: browser and Playwright's driver get it too); ``kill -INT`` reaches pytest alone; so does SIGTERM,
#: which an xdist controller passes on to its workers. An interrupt that code swallows comes again.
CASES = [
    ("web_wait", "terminal"),
    ("web_wait", "sigint"),
    ("web_wait", "sigterm"),
    ("long_wait", "sigterm-xdist"),
    ("swallowed", "sigint"),
    ("swallowed", "sigterm"),
    ("mcp_call", "terminal"),
    ("mcp_call", "sigterm"),
    ("appium_poll", "terminal"),
    ("appium_poll", "sigterm"),
]


@pytest.mark.parametrize(("kind", "how"), CASES)
def test_no_process_survives_ctrl_c_in_the_middle_of_a_step(
    pytester: pytest.Pytester, tb, run_id: str, start, kind: str, how: str
) -> None:
    xdist = ["-n", "2"] if how.endswith("xdist") else []
    run = start(*long_step_setup(pytester, tb, run_id, kind), *xdist)
    processes = run.started()
    expected_processes(processes, kind)
    assert processes.survivors(tb, grace_s=0), "the run's processes must be found while it runs"

    began = time.monotonic()
    term = how.startswith("sigterm")
    run.send(signal.SIGTERM if term else signal.SIGINT, group=how == "terminal")
    ret = run.stopped(timeout=60)
    took = time.monotonic() - began
    output = run.output()

    assert ret == pytest.ExitCode.INTERRUPTED, output
    assert ("received SIGTERM" if term else "! KeyboardInterrupt !") in output, output
    # Under -n on a busy machine, execnet itself may SIGINT a worker whose teardown takes over 5 s
    # and print where that landed: xdist's noise, not a traceback of ours.
    noise = ["ExceptionGroup", "TargetClosedError", "INTERNALERROR", *([] if xdist else ["Traceback"])]
    for text in noise:
        assert text not in output, output
    if xdist:  # both trails run at once and both stop; the 120 s step ended far sooner (wait's timeout)
        assert "quick[web]" not in run.junit() or run.junit()["quick[web]"] == [], run.junit()
    else:
        assert took < 15, f"the run needed {took:.1f} s to stop (the step runs 30 s or more)"
        assert run.junit().get("quick[web]" if kind != "appium_poll" else "quick[android]") == [], run.junit()
    assert processes.survivors(tb) == {}


HANGING_SERVER = """
    - name: hanger
      command: {python}
      args: [{raw_server}, hang, "--sentinel={run_id}"]
"""


def test_ctrl_c_while_an_mcp_server_starts_stops_the_run(
    pytester: pytest.Pytester, tb, run_id: str, start
) -> None:
    """The server never answers ``initialize`` (nor exits on EOF): Ctrl-C must not wait for the 60 s."""
    mcp_workspace(pytester.path, tb, run_id, servers=HANGING_SERVER)
    tb.write(pytester.path, "trails/a_quick.trail.yaml", trail("quick", "web", QUICK["web"], "fx"))
    run = start("--trailblaze-mcp-handshake-timeout=60")
    deadline = time.monotonic() + 90
    while not (server := tb.matching(f"--sentinel={run_id}")):
        assert run.proc.poll() is None and time.monotonic() < deadline, run.output()
        time.sleep(0.05)

    began = time.monotonic()
    run.send(signal.SIGINT, group=True)
    ret = run.stopped(timeout=60)
    took = time.monotonic() - began

    assert ret == pytest.ExitCode.INTERRUPTED, run.output()
    assert "! KeyboardInterrupt !" in run.output()
    assert took < 15, f"the run needed {took:.1f} s to stop (the handshake waits 60 s)"
    left = RunProcesses([[pid, cmd] for pid, cmd in server.items()], run_id).survivors(tb)
    assert left == {}


def hard_end_setup(pytester: pytest.Pytester, tb, run_id: str) -> list[str]:
    """A web trail on target ``fx`` (browser, two MCP servers, a server's child), then a long Appium poll.

    When the poll begins, all of them run at once, with the local Appium server the plugin started.
    """
    options = long_step_setup(pytester, tb, run_id, "appium_poll")
    tb.write(pytester.path, "trails/a_quick.trail.yaml", trail("quick", "web", QUICK["web"], "fx"))
    mcp_workspace(pytester.path, tb, run_id, stubborn=True)
    return options


def check_hard_end(processes: RunProcesses, tb) -> None:
    for kind in ("web_wait", "mcp_call", "appium_poll"):
        expected_processes(processes, kind)
    assert processes.of("stubborn-child"), f"no child of the stubborn MCP server among {processes.recorded}"
    assert processes.of("trailblaze-reaper"), f"no reaper among {processes.recorded}"
    port = int(re.search(r"--port (\d+)", processes.of("appium/index.js server")[0]).group(1))
    assert processes.survivors(tb, grace_s=15) == {}
    with socket.socket() as sock:
        assert sock.connect_ex(("127.0.0.1", port)) != 0, f"the Appium port {port} is still open"


def test_nothing_survives_a_sigkill_of_pytest(pytester: pytest.Pytester, tb, run_id: str, start) -> None:
    run = start(*hard_end_setup(pytester, tb, run_id))
    processes = run.started()

    run.send(signal.SIGKILL, group=False)
    assert run.proc.wait(timeout=30) == -signal.SIGKILL

    check_hard_end(processes, tb)


TIMEOUT_CONFTEST = """
import pytest

def pytest_collection_modifyitems(items):
    for item in items:
        if item.name.startswith("long"):
            item.add_marker(pytest.mark.timeout(5, method="thread", func_only=True))
"""


def test_nothing_survives_pytest_timeout_thread_method(
    pytester: pytest.Pytester, tb, run_id: str, start
) -> None:
    options = hard_end_setup(pytester, tb, run_id)
    conftest = pytester.path / "conftest.py"
    conftest.write_text(conftest.read_text() + TIMEOUT_CONFTEST)
    run = start(*options)
    processes = run.started()

    ret = run.proc.wait(timeout=60)  # pytest-timeout's thread ends the process with os._exit(1)

    assert ret == 1, run.output()
    assert "Timeout" in run.output()
    check_hard_end(processes, tb)


#: A group leader that ignores SIGTERM, with a child; both carry argv[1] on their command lines.
STUBBORN_GROUP = (
    "import signal, subprocess, sys, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
    "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)', sys.argv[1] + '-child']); "
    "time.sleep(600)"
)
#: Starts two such groups, hands both to the reaper, takes one back, then waits to be killed.
OWNER = f"""
import subprocess, sys, time
from pytest_trailblaze.core.system.reaper import REAPER

for name in ("-kept", "-released"):
    argv = [sys.executable, "-c", {STUBBORN_GROUP!r}, sys.argv[1] + name]
    leader = subprocess.Popen(argv, start_new_session=True)
    REAPER.watch(leader.pid)
REAPER.release(leader.pid)
time.sleep(600)
"""


def wait_count(tb, marker: str, count: int, timeout_s: float = 15) -> dict[int, str]:
    """The processes carrying ``marker`` once there are ``count`` of them (or at the deadline)."""
    deadline = time.monotonic() + timeout_s
    while len(found := tb.matching(marker)) != count and time.monotonic() < deadline:
        time.sleep(0.1)
    return found


def test_the_reaper_stops_the_groups_it_holds_when_their_owner_is_killed(tb, run_id: str) -> None:
    owner = subprocess.Popen([sys.executable, "-c", OWNER, run_id])
    try:
        assert len(wait_count(tb, f"{run_id}-kept", 2)) == 2
        assert len(wait_count(tb, f"{run_id}-released", 2)) == 2

        owner.kill()
        owner.wait()

        assert wait_count(tb, f"{run_id}-kept", 0) == {}, (
            "the group the reaper holds (SIGTERM ignored) must die"
        )
        assert len(tb.matching(f"{run_id}-released")) == 2, "a group taken back is not the reaper's to stop"
    finally:
        owner.kill()
        for pid in tb.matching(run_id):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def test_the_reaper_leaves_a_reused_group_number_alone(tb, run_id: str) -> None:
    """A number whose process started at another time than the leader handed over is a stranger.

    Reuse cannot be forced, so the watcher is told a start time that is not the leader's, as a
    reused number would present itself; a group without a start time (no ``/proc``) is stopped.
    """
    argv = [sys.executable, "-c", STUBBORN_GROUP]
    leaders = {
        name: subprocess.Popen([*argv, f"{run_id}-{name}"], start_new_session=True)
        for name in ("timed", "stranger", "untimed")
    }
    try:
        for name in leaders:
            assert len(wait_count(tb, f"{run_id}-{name}", 2)) == 2
        told = {"timed": start_time(leaders["timed"].pid), "stranger": "1", "untimed": ""}
        assert told["timed"].isdigit()
        watcher = subprocess.Popen([sys.executable, "-I", "-S", "-c", WATCHER], stdin=subprocess.PIPE)
        lines = "".join(f"+ {leaders[name].pid} {start}\n" for name, start in told.items())
        watcher.communicate(lines.encode(), timeout=30)

        assert wait_count(tb, f"{run_id}-timed", 0) == {}, "the leader's own group must die"
        assert wait_count(tb, f"{run_id}-untimed", 0) == {}, "a group handed without a start time must die"
        assert len(tb.matching(f"{run_id}-stranger")) == 2, "a number naming another process is not stopped"
    finally:
        for pid in tb.matching(run_id):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        for leader in leaders.values():
            leader.wait(timeout=15)
