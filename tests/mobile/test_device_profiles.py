"""Device profiles and pools end to end: pytest in a subprocess, real Appium servers (fake driver).

A capabilities file naming ``android-phone``, ``android-tablet``, ``ios-iphone`` and ``ios-ipad``
turns one trail into one item per device; each device replays its own recordings (the examples'
contact form: the tablet skips the Feedback tap) and ``-m`` / ``-k`` select devices. A pool of two
devices (two Appium servers) under ``-n 2`` gives each worker its own device for its session.
A probe plugin writes, at each item's teardown, the worker, the server URL of the item's Appium
session and what the app saw, so the tests check where each trail really ran.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any
from xml.etree import ElementTree

import pytest

if TYPE_CHECKING:  # the fixtures' types; at run time the fixtures come from conftest.py
    from conftest import AppiumServer

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
APPS = EXAMPLES / "mobile" / "apps"
RUN_TIMEOUT = 180

PROBE = '''
"""At each item's teardown: worker, Appium server URL and session, clicks on Feedback (JSON line)."""
import json, os, pathlib

import pytest

OUT = pathlib.Path(os.environ["TB_DEVICE_PROBE"])
FEEDBACK = {"android": "//*[@text='Feedback']", "ios": "//*[@name='categoryFeedback']"}


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item, nextitem):
    driver = getattr(item, "funcargs", {}).get("trailblaze_driver")
    session = getattr(driver, "session", None)
    entry = {"name": item.name, "worker": getattr(item.config, "workerinput", {}).get("workerid", "main")}
    if session is not None:
        entry["url"] = session.command_executor.client_config.remote_server_addr
        entry["session"] = session.session_id
        button = session.find_element("xpath", FEEDBACK[item.platform])
        entry["feedback_clicks"] = int(button.get_attribute("clicks") or 0)
    with OUT.open("a") as fh:
        fh.write(json.dumps(entry) + "\\n")
    return (yield)
'''


class Run:
    """One subprocess run: its result, JUnit cases (outcome and properties) and probe records."""

    def __init__(self, result: pytest.RunResult, junit: Path, probe: Path) -> None:
        self.result = result
        self.text = result.stdout.str() + result.stderr.str()
        self.cases: dict[str, dict[str, Any]] = {}
        for case in ElementTree.parse(junit).iter("testcase") if junit.is_file() else ():
            outcome = next((t for t in ("failure", "error", "skipped") if case.find(t) is not None), "passed")
            props = {p.get("name"): p.get("value") for p in case.iter("property")}
            name = case.get("name", "")  # xdist adds `@<group>` under --dist loadgroup
            self.cases[name.rsplit("]@", 1)[0] + "]" if "]@" in name else name] = {
                "outcome": outcome,
                "properties": props,
                "group": name.rsplit("]@", 1)[1] if "]@" in name else None,
            }
        lines = probe.read_text().splitlines() if probe.is_file() else []
        self.records = {r["name"]: r for r in map(json.loads, lines)}


@pytest.fixture
def run(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Any:
    """``run(*args, env=...)``: pytest in a subprocess with the probe loaded."""
    pytester.makepyfile(device_probe=PROBE)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(pytester.path), os.environ.get("PYTHONPATH", "")]))
    monkeypatch.delenv("TRAILBLAZE_APPIUM_URL", raising=False)
    counter = iter(range(100))

    def run_(*args: str, env: dict[str, str] | None = None) -> Run:
        n = next(counter)
        junit, probe = pytester.path / f"junit-{n}.xml", pytester.path / f"probe-{n}.jsonl"
        monkeypatch.setenv("TB_DEVICE_PROBE", str(probe))
        for key, value in (env or {}).items():
            monkeypatch.setenv(key, value)
        common = ["-p", "device_probe", "-p", "no:randomly", f"--junitxml={junit}", "-rA"]
        result = pytester.runpytest_subprocess(*common, *args, timeout=RUN_TIMEOUT)
        return Run(result, junit, probe)

    return run_


@pytest.fixture
def examples(pytester: pytest.Pytester) -> Path:
    """The contact-form trail with the examples' conftest, sample app, mobile apps and caps files."""
    shutil.copy(EXAMPLES / "conftest.py", pytester.path / "conftest.py")
    shutil.copytree(EXAMPLES / "sample-app", pytester.path / "sample-app")
    shutil.copytree(EXAMPLES / "mobile", pytester.path / "mobile")
    (pytester.path / "trails").mkdir()
    shutil.copy(EXAMPLES / "trails" / "mobile" / "contact-form.trail.yaml", pytester.path / "trails")
    return pytester.path


def write(base: Path, name: str, text: str) -> Path:
    path = base / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return path


def fake(app: str) -> str:
    """A flow map of fake-driver capabilities on one of the examples' apps."""
    return f"{{platformName: Fake, appium:automationName: Fake, appium:app: {APPS / app}}}"


@pytest.fixture
def second_server(start_appium: Any) -> AppiumServer:
    return start_appium()


# -- one item per trail and device ----------------------------------------------------------------
def test_every_device_is_an_item_selected_by_marker_and_keyword(
    examples: Path, pytester: pytest.Pytester
) -> None:
    args = ["--collect-only", "-q", "-p", "no:randomly", "--strict-markers", "trails"]
    args.append("--trailblaze-appium-caps=mobile/devices.yaml")
    everything = pytester.runpytest_subprocess(*args)
    names = [line.split("::")[1] for line in everything.stdout.lines if "::" in line]
    assert names == [
        "mobile/contact-form[android-phone]",
        "mobile/contact-form[android-tablet]",
        "mobile/contact-form[ios-iphone]",
        "mobile/contact-form[ios-ipad]",
        "mobile/contact-form[web]",
    ]
    tablets = pytester.runpytest_subprocess(*args, "-m", "android-tablet or ios-ipad")
    tablets.stdout.fnmatch_lines(["*[[]android-tablet[]]", "*[[]ios-ipad[]]", "2/5 tests collected*"])
    android = pytester.runpytest_subprocess(*args, "-m", "android and not android-phone")
    android.stdout.fnmatch_lines(["*contact-form[[]android-tablet[]]", "1/5 tests collected*"])
    by_name = pytester.runpytest_subprocess(*args, "-k", "iphone")
    by_name.stdout.fnmatch_lines(["*contact-form[[]ios-iphone[]]", "1/5 tests collected*"])


def test_todays_caps_files_keep_their_items(examples: Path, pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_subprocess(
        "--collect-only", "-q", "-p", "no:randomly", "trails", "--trailblaze-appium-caps=mobile/caps.yaml"
    )
    names = [line.split("::")[1] for line in result.stdout.lines if "::" in line]
    assert names == ["mobile/contact-form[android]", "mobile/contact-form[ios]", "mobile/contact-form[web]"]


def test_phone_tablet_iphone_and_ipad_in_one_run(
    examples: Path, run: Any, appium_server: AppiumServer
) -> None:
    done = run(
        "trails",
        "--trailblaze-appium-caps=mobile/devices.yaml",
        f"--trailblaze-appium-url={appium_server.url}",
    )
    done.result.assert_outcomes(passed=5)
    for device in ("android-phone", "android-tablet", "ios-iphone", "ios-ipad"):
        props = done.cases[f"mobile/contact-form[{device}]"]["properties"]
        assert (props["classifier"], props["device"], props["steps_run"]) == (device, device, "5/5")
    # closest wins per device: `android-tablet: []` (Feedback preselected) beats `android`
    assert done.records["mobile/contact-form[android-phone]"]["feedback_clicks"] == 1
    assert done.records["mobile/contact-form[android-tablet]"]["feedback_clicks"] == 0
    assert done.records["mobile/contact-form[ios-ipad]"]["feedback_clicks"] == 1
    sessions = {r["session"] for r in done.records.values() if "session" in r}
    assert len(sessions) == 4  # one session per device


def test_a_device_with_its_own_server(
    examples: Path, run: Any, appium_server: AppiumServer, second_server: AppiumServer
) -> None:
    caps = write(
        examples,
        "caps-servers.yaml",
        f"""
        android-phone: {fake("android-phone.xml")}
        android-tablet:
          capabilities: {fake("android-tablet.xml")}
          url: {second_server.url}
        """,
    )
    done = run(
        "trails",
        "-m",
        "android",
        f"--trailblaze-appium-caps={caps}",
        f"--trailblaze-appium-url={appium_server.url}",
    )
    done.result.assert_outcomes(passed=2, deselected=2)  # ios (no capabilities) and web
    assert done.records["mobile/contact-form[android-phone]"]["url"] == appium_server.url
    assert done.records["mobile/contact-form[android-tablet]"]["url"] == second_server.url
    alone = run("trails", "-m", "android", f"--trailblaze-appium-caps={caps}")  # no run-wide server
    alone.result.assert_outcomes(passed=1, skipped=1, deselected=2)
    assert alone.cases["mobile/contact-form[android-tablet]"]["outcome"] == "passed"
    assert alone.cases["mobile/contact-form[android-phone]"]["outcome"] == "skipped"
    alone.result.stdout.fnmatch_lines(["SKIPPED*no android driver configured*"])


def test_config_skip_for_a_device_type_skips_that_device_only(
    pytester: pytest.Pytester, run: Any, appium_server: AppiumServer
) -> None:
    write(
        pytester.path,
        "trails/phones.trail.yaml",
        """
        config:
          skip: { android-tablet: the tablet layout is not ready }
        trail:
          - step: Look at the title
            recording:
              android:
                - assertVisibleWithText: { text: Contact Form }
        """,
    )
    caps = write(
        pytester.path,
        "caps.yaml",
        f"""
        android-phone: {fake("android-phone.xml")}
        android-tablet: {fake("android-tablet.xml")}
        """,
    )
    done = run("trails", f"--trailblaze-appium-caps={caps}", f"--trailblaze-appium-url={appium_server.url}")
    done.result.assert_outcomes(passed=1, skipped=1)
    assert done.cases["phones[android-tablet]"]["outcome"] == "skipped"
    assert (
        "phones[android-tablet]" not in done.records
        or "session" not in done.records["phones[android-tablet]"]
    )
    done.result.stdout.fnmatch_lines(
        ["SKIPPED*config.skip for android-tablet: the tablet layout is not ready*"]
    )


def test_a_broken_caps_file_is_a_usage_error_with_places(examples: Path, pytester: pytest.Pytester) -> None:
    write(
        examples, "broken.yaml", "android-tablet:\n  capabilities: {platformName: Fake}\n  udid: x\nweb: {}\n"
    )
    result = pytester.runpytest_subprocess("trails", "--trailblaze-appium-caps=broken.yaml")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "*--trailblaze-appium-caps *broken.yaml:",
            "*broken.yaml:3:3: unknown key 'udid' in device 'android-tablet'",
            "*broken.yaml:4:1: 'web' is not an android or ios device name",
        ]
    )
    assert "Traceback" not in result.stdout.str() + result.stderr.str()


# -- pools: each xdist worker its own device ----------------------------------------------------------
PHONE_TRAIL = """
config:
  id: pool/trail-{n}
trail:
  - step: Look at the title
    recording:
      android:
        - assertVisibleWithText: {{ text: Contact Form }}
"""


@pytest.fixture
def pool_run(
    pytester: pytest.Pytester, run: Any, appium_server: AppiumServer, second_server: AppiumServer
) -> Iterator[Any]:
    """``pool_run(*args)``: six android trails on a pool of two devices (two Appium servers).

    Temporary files of the run go to a fresh folder, so the test sees its lease folder go.
    """
    for n in range(1, 7):
        write(pytester.path, f"trails/trail-{n}.trail.yaml", PHONE_TRAIL.format(n=n))
    caps = write(
        pytester.path,
        "pool.yaml",
        f"""
        android-phone:
          capabilities: {fake("android-phone.xml")}
          devices: [{appium_server.url}, {second_server.url}]
        """,
    )
    temp = Path(tempfile.mkdtemp(prefix="tb-"))  # short: Chromium's socket paths live below it

    def pool_run_(*args: str) -> Run:
        return run("trails", f"--trailblaze-appium-caps={caps}", *args, env={"TMPDIR": str(temp)})

    pool_run_.temp = temp  # type: ignore[attr-defined]
    pool_run_.urls = {appium_server.url, second_server.url}  # type: ignore[attr-defined]
    pool_run_.first = appium_server.url  # type: ignore[attr-defined]
    yield pool_run_
    shutil.rmtree(temp, ignore_errors=True)


def devices_by_worker(done: Run) -> dict[str, set[str]]:
    """The server URLs each worker's sessions went to; each JUnit case names the same device."""
    used: dict[str, set[str]] = {}
    for name, record in done.records.items():
        used.setdefault(record["worker"], set()).add(record["url"])
        assert done.cases[name]["properties"]["pool_device"] == record["url"]
    return used


def test_each_worker_takes_its_own_device_with_loadgroup(pool_run: Any) -> None:
    done = pool_run("-n", "2", "--dist", "loadgroup")
    done.result.assert_outcomes(passed=6)
    used = devices_by_worker(done)
    assert sorted(used) == ["gw0", "gw1"], used
    assert all(len(urls) == 1 for urls in used.values()), used  # one device per worker
    assert set.union(*used.values()) == pool_run.urls  # ...and each device on its own worker
    groups = {case["group"] for case in done.cases.values()}
    assert groups == {"android-phone-1", "android-phone-2"}  # one xdist group per pool device
    assert list(pool_run.temp.glob("trailblaze-leases-*")) == []  # the run's leases are gone


def test_workers_never_share_a_device_without_groups(pool_run: Any) -> None:
    done = pool_run("-n", "2")
    done.result.assert_outcomes(passed=6)
    used = devices_by_worker(done)
    assert all(len(urls) == 1 for urls in used.values()), used
    assert len(set.union(*used.values())) == len(used)  # no device on two workers


def test_a_pool_without_xdist_uses_its_first_device(pool_run: Any) -> None:
    done = pool_run()
    done.result.assert_outcomes(passed=6)
    assert devices_by_worker(done) == {"main": {pool_run.first}}
    assert list(pool_run.temp.glob("trailblaze-leases-*")) == []
