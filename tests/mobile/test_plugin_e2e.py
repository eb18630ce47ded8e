"""The plugin end to end in a subprocess: trails replayed on the real Appium server (fake driver).

The examples' contact-form trail (copied with what it needs from examples/) runs with ``-m android``,
``-m ios`` and ``-m web`` as a CI matrix would: this test's server through ``--trailblaze-appium-url``
or ``TRAILBLAZE_APPIUM_URL``, the examples' capability files. Small trails of this folder's fixture
apps cover sessions (fresh or reused), failures, a local server started by the plugin, and ``-n 2``.
A probe plugin (``-p trail_probe``) writes, at each item's teardown, the item's Appium session id,
what the app saw (clicks, typed values), the sessions the server holds, and the Appium processes
below the pytest process, so the tests can check effects and that nothing is left running afterwards.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import textwrap
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any
from xml.etree import ElementTree

import pytest
from sandbox import PROCESS_PROBE, processes

if TYPE_CHECKING:  # the fixtures' types; at run time the fixtures come from conftest.py
    from conftest import AppiumServer

REPO = Path(__file__).resolve().parents[2]
APPS = Path(__file__).resolve().parent / "apps"
EXAMPLES = REPO / "examples"
CONTACT_FORM = EXAMPLES / "trails" / "mobile" / "contact-form.trail.yaml"
RUN_TIMEOUT = 120

PROBE = (
    PROCESS_PROBE
    + '''
"""Records, at each item's teardown, its Appium session and what the app saw (one JSON line)."""
import json, pathlib, urllib.request

import pytest

OUT = pathlib.Path(os.environ["TB_PROBE_OUT"])
XPATHS = json.loads(os.environ.get("TB_PROBE_XPATHS", "{}"))


def _server_sessions():
    url = os.environ.get("TB_APPIUM_URL")
    if not url:
        return None
    with urllib.request.urlopen(f"{url}/appium/sessions", timeout=5) as answer:
        return [s["id"] for s in json.loads(answer.read())["value"]]


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item, nextitem):
    driver = getattr(item, "funcargs", {}).get("trailblaze_driver")
    session = getattr(driver, "session", None)
    entry = {"nodeid": item.nodeid, "pid": os.getpid(), "session": None, "effects": {}}
    if session is not None:
        entry["session"] = session.session_id
        for label, xpath in XPATHS.get(getattr(item, "platform", ""), {}).items():
            element = session.find_element("xpath", xpath)
            entry["effects"][label] = {
                "clicks": int(element.get_attribute("clicks") or 0),
                "value": element.get_attribute("value") or "",
            }
        entry["server_sessions"] = _server_sessions()
    entry["appium"] = [[pid, cmd] for pid, cmd in descendants() if "appium" in cmd]
    with OUT.open("a") as fh:
        fh.write(json.dumps(entry) + "\\n")
    return (yield)
'''
)

#: What the probe reads in the examples' apps after the contact-form trail.
EXAMPLE_XPATHS = {
    "android": {
        "name": "//MockInputField[@resource-id='com.example.sample:id/name']",
        "email": "//MockInputField[@resource-id='com.example.sample:id/email']",
        "feedback": "//*[@text='Feedback']",
        "submit": "//*[@resource-id='com.example.sample:id/submit']",
    },
    "ios": {
        "name": "//MockInputField[@name='nameField']",
        "email": "//MockInputField[@name='emailField']",
        "feedback": "//*[@name='categoryFeedback']",
        "submit": "//*[@name='submit']",
    },
}
#: ... and in this folder's apps after the small trails.
FIXTURE_XPATHS = {
    "android": {"submit": "//*[@id='submit']", "username": "//*[@id='username']"},
    "ios": {"submit": "//*[@id='submit']", "username": "//*[@id='username']"},
}

TRAILS = {
    "trails/tap.trail.yaml": """
        config:
          id: e2e/tap
        trail:
          - step: Type a name and submit
            recording:
              android:
                - tapOnElementBySelector:
                    nodeSelector: { androidAccessibility: { resourceIdRegex: ".*:id/username" } }
                - inputText: { text: ada, hideKeyboardAfter: false }
                - tapOnElementBySelector:
                    nodeSelector: { androidAccessibility: { textRegex: Submit, isClickable: true } }
              ios:
                - tapOnElementBySelector: { nodeSelector: { iosMaestro: { resourceIdRegex: usernameField } } }
                - inputText: { text: ada, hideKeyboardAfter: false }
                - tapOnElementBySelector: { nodeSelector: { iosMaestro: { textRegex: submit } } }
    """,
    "trails/check.trail.yaml": """
        config:
          id: e2e/check
        trail:
          - verify: The title is there
            recording:
              android:
                - assertVisibleBySelector:
                    nodeSelector: { androidAccessibility: { resourceIdRegex: ".*:id/title" } }
                    expectedText: Sign in
    """,
    "trails/broken.trail.yaml": """
        config:
          id: e2e/broken
        trail:
          - verify: A banner that never shows
            recording:
              android:
                - assertVisibleBySelector:
                    nodeSelector: { androidAccessibility: { textRegex: Welcome back } }
                    timeoutMs: 300
    """,
}


# -- helpers ----------------------------------------------------------------------------------------------
class Run:
    """One subprocess run: its result, JUnit cases, probe records and wall time."""

    def __init__(
        self, result: pytest.RunResult, junit: Path, probe: Path, output: Path, seconds: float
    ) -> None:
        self.result = result
        self.output = output
        self.seconds = seconds
        self.text = result.stdout.str() + result.stderr.str()
        self.cases = junit_cases(junit) if junit.is_file() else {}
        lines = probe.read_text().splitlines() if probe.is_file() else []
        self.records = [json.loads(line) for line in lines]

    def outcome(self, name: str) -> str:
        return self.cases[name]["outcome"]

    def record(self, fragment: str) -> dict[str, Any]:
        found = [r for r in self.records if fragment in r["nodeid"]]
        assert len(found) == 1, (fragment, self.records)
        return found[0]

    def appium_processes(self) -> dict[int, str]:
        return {pid: cmd for r in self.records for pid, cmd in r["appium"]}


def junit_cases(path: Path) -> dict[str, dict[str, Any]]:
    cases: dict[str, dict[str, Any]] = {}
    for case in ElementTree.parse(path).iter("testcase"):
        props = {p.get("name"): p.get("value") for p in case.iter("property")}
        outcome, message = "passed", ""
        for tag in ("failure", "error", "skipped"):
            element = case.find(tag)
            if element is not None:
                outcome = tag
                message = (element.get("message") or "") + "\n" + (element.text or "")
        cases[case.get("name", "")] = {"outcome": outcome, "properties": props, "message": message}
    return cases


@pytest.fixture
def run(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, appium_server: AppiumServer) -> Any:
    """``run(*args, xpaths=..., env=...)``: pytest in a subprocess with the probe plugin loaded."""
    pytester.makepyfile(trail_probe=PROBE)
    counter = iter(range(100))

    def run_(*args: str, xpaths: dict[str, Any] | None = None, env: dict[str, str] | None = None) -> Run:
        n = next(counter)
        junit = pytester.path / f"junit-{n}.xml"
        probe = pytester.path / f"probe-{n}.jsonl"
        monkeypatch.setenv(
            "PYTHONPATH", os.pathsep.join([str(pytester.path), os.environ.get("PYTHONPATH", "")])
        )
        monkeypatch.setenv("TB_PROBE_OUT", str(probe))
        monkeypatch.setenv("TB_PROBE_XPATHS", json.dumps(xpaths or {}))
        monkeypatch.setenv("TB_APPIUM_URL", appium_server.url)
        monkeypatch.delenv("TRAILBLAZE_APPIUM_URL", raising=False)
        for key, value in (env or {}).items():
            monkeypatch.setenv(key, value)
        output = pytester.path / f"out-{n}"
        started = time.monotonic()
        result = pytester.runpytest_subprocess(
            "-p",
            "trail_probe",
            f"--junitxml={junit}",
            f"--trailblaze-output={output}",
            "-rA",
            *args,
            timeout=RUN_TIMEOUT,
        )
        return Run(result, junit, probe, output, time.monotonic() - started)

    return run_


def assert_no_orphans(run: Run) -> None:
    """The Appium servers the run started (seen by the probe) are gone, as ``ps`` shows."""
    started = run.appium_processes()
    assert started, "the probe saw no Appium server below pytest"
    deadline = time.monotonic() + 5
    while True:
        left = {pid: cmd for pid, cmd in processes().items() if started.get(pid) == cmd}
        if not left or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert left == {}, f"Appium processes left running: {left}"


def fixture_caps(folder: Path, *platforms: str) -> Path:
    apps = {"android": APPS / "android.xml", "ios": APPS / "ios.xml"}
    lines = []
    for platform in platforms:
        lines += [
            f"{platform}:",
            "  platformName: Fake",
            "  appium:automationName: Fake",
            f"  appium:app: {apps[platform]}",
        ]
    path = folder / f"caps-{'-'.join(platforms)}.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def fixture_trails(pytester: pytest.Pytester) -> Path:
    for relpath, text in TRAILS.items():
        path = pytester.path / relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return pytester.path / "trails"


@pytest.fixture
def examples(pytester: pytest.Pytester) -> Path:
    """What the contact-form trail needs from examples/, copied: its conftest (the sample web app and
    ``baseUrl``), the sample app, the mobile apps and capability files, and the trail itself (the
    examples' workspace and its MCP servers are covered elsewhere and would only slow this down)."""
    shutil.copy(EXAMPLES / "conftest.py", pytester.path / "conftest.py")
    shutil.copytree(EXAMPLES / "sample-app", pytester.path / "sample-app")
    shutil.copytree(EXAMPLES / "mobile", pytester.path / "mobile")
    trail = pytester.path / "trails" / "mobile" / CONTACT_FORM.name
    trail.parent.mkdir(parents=True)
    shutil.copy(CONTACT_FORM, trail)
    return pytester.path


def example_args(server: str | None, caps: str = "mobile/caps.yaml") -> list[str]:
    args = ["trails/mobile", f"--trailblaze-appium-caps={caps}"]
    return [*args, f"--trailblaze-appium-url={server}"] if server else args


# -- the examples' contact form: the CI matrix ---------------------------------------------------------
def test_examples_android(examples: Path, run: Any, appium_server: AppiumServer) -> None:
    done = run("-m", "android", *example_args(appium_server.url), xpaths=EXAMPLE_XPATHS)
    done.result.assert_outcomes(passed=1, deselected=2)
    case = done.cases["mobile/contact-form[android]"]
    assert case["outcome"] == "passed"
    assert case["properties"]["classifier"] == "android-phone"
    assert case["properties"]["platform"] == "android"
    assert case["properties"]["driver"] == "appium-android"
    assert case["properties"]["steps_run"] == "5/5"
    effects = done.record("[android]")["effects"]
    assert effects["name"]["value"] == "Grace Hopper"
    assert effects["email"]["value"] == "grace@example.test"
    assert effects["feedback"]["clicks"] == 1
    assert effects["submit"]["clicks"] == 1


def test_examples_ios_with_the_url_from_the_environment(
    examples: Path, run: Any, appium_server: AppiumServer
) -> None:
    done = run(
        "-m",
        "ios",
        *example_args(None),
        xpaths=EXAMPLE_XPATHS,
        env={"TRAILBLAZE_APPIUM_URL": appium_server.url},
    )
    done.result.assert_outcomes(passed=1, deselected=2)
    props = done.cases["mobile/contact-form[ios]"]["properties"]
    assert (props["classifier"], props["driver"], props["steps_run"]) == ("ios-iphone", "appium-ios", "5/5")
    effects = done.record("[ios]")["effects"]
    assert effects["name"]["value"] == "Grace Hopper"
    assert effects["email"]["value"] == "grace@example.test"
    assert effects["feedback"]["clicks"] == 1
    assert effects["submit"]["clicks"] == 1


def test_examples_web(examples: Path, run: Any, appium_server: AppiumServer) -> None:
    done = run("-m", "web", *example_args(appium_server.url))
    done.result.assert_outcomes(passed=1, deselected=2)
    props = done.cases["mobile/contact-form[web]"]["properties"]
    assert (props["classifier"], props["driver"]) == ("web", "playwright-native")
    assert done.record("[web]")["session"] is None  # no Appium session for web


def test_examples_on_a_tablet_use_the_tablet_recording(
    examples: Path, run: Any, appium_server: AppiumServer
) -> None:
    caps = "mobile/caps-tablet.yaml"  # android only
    done = run("-m", "android or ios", *example_args(appium_server.url, caps), xpaths=EXAMPLE_XPATHS)
    done.result.assert_outcomes(passed=1, skipped=1, deselected=1)
    android = done.cases["mobile/contact-form[android]"]
    assert android["outcome"] == "passed"
    assert android["properties"]["classifier"] == "android-tablet"
    effects = done.record("[android]")["effects"]
    assert effects["feedback"]["clicks"] == 0  # `android-tablet: []`: the tablet preselects Feedback
    assert effects["submit"]["clicks"] == 1 and effects["name"]["value"] == "Grace Hopper"
    ios = done.cases["mobile/contact-form[ios]"]
    assert ios["outcome"] == "skipped"
    assert "no Appium capabilities for ios" in ios["message"]
    assert "--trailblaze-appium-caps" in ios["message"]
    done.result.stdout.fnmatch_lines(["SKIPPED *no Appium capabilities for ios*"])


def test_unreachable_server_is_an_error_of_the_mobile_items_only(examples: Path, run: Any) -> None:
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    done = run(*example_args(url))
    assert done.seconds < 20
    done.result.assert_outcomes(passed=1, errors=2)
    assert done.outcome("mobile/contact-form[web]") == "passed"
    for platform in ("android", "ios"):
        case = done.cases[f"mobile/contact-form[{platform}]"]
        assert case["outcome"] == "error"
        assert f"could not reach the Appium server at {url}" in case["message"]
        assert "Connection refused" in case["message"]
        assert "fix:" in case["message"] and "--trailblaze-appium-url" in case["message"]
    assert "Traceback" not in done.text
    done.result.stdout.fnmatch_lines(["*ERROR at setup of mobile/contact-form[[]android[]]*"])


def test_refused_session_carries_the_servers_message(
    examples: Path, run: Any, appium_server: AppiumServer
) -> None:
    caps = examples / "caps-bad.yaml"
    caps.write_text(
        "android:\n  platformName: Fake\n  appium:automationName: NoSuchDriver\n"
        f"  appium:app: {APPS / 'android.xml'}\n",
        encoding="utf-8",
    )
    done = run("-m", "android", *example_args(appium_server.url, caps.name))
    assert done.seconds < 20
    done.result.assert_outcomes(errors=1, deselected=2)
    message = done.cases["mobile/contact-form[android]"]["message"]
    assert f"the Appium server at {appium_server.url} refused" in message
    assert "Could not find a driver for automationName 'NoSuchDriver'" in message  # the server's words
    assert "NoSuchDriver" in message and "fix:" in message
    assert "Traceback" not in done.text


# -- sessions: reused per platform, or fresh per trail ------------------------------------------------------
def test_one_session_is_reused_across_trails(
    run: Any, pytester: pytest.Pytester, fixture_trails: Path, appium_server: AppiumServer
) -> None:
    caps = fixture_caps(pytester.path, "android")
    done = run(
        str(fixture_trails),
        "-m",
        "android",
        f"--trailblaze-appium-url={appium_server.url}",
        f"--trailblaze-appium-caps={caps}",
        xpaths=FIXTURE_XPATHS,
    )
    done.result.assert_outcomes(passed=2, failed=1)
    assert done.outcome("e2e/broken[android]") == "failure"
    assert "Welcome back" in done.cases["e2e/broken[android]"]["message"]
    sessions = {r["nodeid"]: r["session"] for r in done.records}
    assert len(sessions) == 3 and None not in sessions.values()
    assert len(set(sessions.values())) == 1, sessions  # one session for the three trails
    (session,) = set(sessions.values())
    assert done.record("tap.trail")["effects"]["username"]["value"] == "ada"
    assert done.record("tap.trail")["effects"]["submit"]["clicks"] == 1
    assert session not in appium_server.session_ids()  # quit at the end, also after a failure


def test_fresh_session_per_trail(
    run: Any, pytester: pytest.Pytester, fixture_trails: Path, appium_server: AppiumServer
) -> None:
    caps = fixture_caps(pytester.path, "android")
    done = run(
        str(fixture_trails / "tap.trail.yaml"),
        str(fixture_trails / "check.trail.yaml"),
        "-m",
        "android",
        f"--trailblaze-appium-url={appium_server.url}",
        f"--trailblaze-appium-caps={caps}",
        "--trailblaze-appium-fresh-session",
        xpaths=FIXTURE_XPATHS,
    )
    done.result.assert_outcomes(passed=2)
    first, second = done.records
    assert first["session"] and second["session"] and first["session"] != second["session"]
    assert first["session"] in first["server_sessions"]
    assert first["session"] not in second["server_sessions"]  # the first trail's session was quit
    assert second["effects"]["submit"]["clicks"] == 0  # a new session: a fresh app
    left = appium_server.session_ids()
    assert first["session"] not in left and second["session"] not in left


# -- processes: a server the plugin starts is stopped, also after failures and with xdist --------------------
def test_local_server_is_stopped_after_a_failing_run(
    run: Any, pytester: pytest.Pytester, fixture_trails: Path
) -> None:
    caps = fixture_caps(pytester.path, "android", "ios")
    done = run(
        str(fixture_trails),
        f"--trailblaze-appium-server={REPO}",
        f"--trailblaze-appium-caps={caps}",
        xpaths=FIXTURE_XPATHS,
    )
    done.result.assert_outcomes(passed=3, failed=1)
    assert done.outcome("e2e/broken[android]") == "failure"
    assert done.record("e2e/tap[ios]")["effects"]["username"]["value"] == "ada"
    servers = done.appium_processes()
    assert len(servers) == 1 and all("node_modules/appium/index.js server" in c for c in servers.values())
    assert_no_orphans(done)


def test_local_servers_are_stopped_after_an_xdist_run(
    run: Any, pytester: pytest.Pytester, fixture_trails: Path
) -> None:
    caps = fixture_caps(pytester.path, "android", "ios")
    done = run(
        str(fixture_trails),
        "-n",
        "2",
        f"--trailblaze-appium-server={REPO}",
        f"--trailblaze-appium-caps={caps}",
        xpaths=FIXTURE_XPATHS,
    )
    done.result.assert_outcomes(passed=3, failed=1)
    workers = {r["pid"] for r in done.records}
    assert len(workers) == 2, "both workers ran mobile trails"
    servers = done.appium_processes()
    assert len(servers) == 2  # one local server per worker
    assert_no_orphans(done)
    # each worker's server keeps its own log (one shared file is truncated by the second server)
    logs = [p for p in (done.output / "appium-logs").rglob("*") if p.is_file()]
    assert len(logs) == 2, f"expected one Appium server log per worker, found {logs}"
