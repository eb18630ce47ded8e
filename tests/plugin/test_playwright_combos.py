"""Trails and pytest-playwright page tests in one run, on real Chromium.

Each run is a real ``python -m pytest`` with pytest-playwright 0.10 loaded from its entry point,
as a user has it. Its page tests need Debian's Chromium named in their launch arguments
(``PAGES_CONFTEST``, what the README tells users to set); the trails find it on their own.
Collection order is the folders' order (``-p no:randomly``), so one run has a page test before
a trail and one after it, in both directions.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from browsers import chromium_executable

from pytest_trailblaze.drivers.browser_options import BrowserOptions
from pytest_trailblaze.session.driver_choice import merged

PAGES_CONFTEST = """
import pytest

@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    return {**browser_type_launch_args, "executable_path": "/usr/bin/chromium"}
""".replace("/usr/bin/chromium", chromium_executable() or "/usr/bin/chromium")
PAGE_TEST = """
def test_page(page):
    page.set_content("<h1>page test</h1>")
    assert page.inner_text("h1") == "page test"
"""
TRAIL = """
config:
  id: {name}
trail:
  - step: Open a page
    recording:
      web:
        - web_navigate: {{ url: "data:text/html,<h1>{name}</h1>" }}
        - web_verifyTextVisible: {{ text: {name} }}
"""
#: Records the launch settings the trails' browser used, when the first tool runs.
OPTIONS_RECORDER = """
import dataclasses, json, pathlib

def pytest_trailblaze_before_tool(name, args, context):
    path = pathlib.Path(__file__).parent / "options.json"
    if not path.exists():
        path.write_text(json.dumps(dataclasses.asdict(context.driver.options), default=str))
"""
PLAIN = ["-p", "no:randomly", "-p", "no:cacheprovider"]


def interleaved(path: Path, tb) -> None:
    """A trail, page tests, a trail: each kind starts Playwright after the other ran.

    pytest runs the page tests next to each other (they share the session-scoped ``browser_name``
    parameter), so the second trail comes after both of them.
    """
    (path / "conftest.py").write_text(PAGES_CONFTEST)
    tb.write(path, "a_trails/one.trail.yaml", TRAIL.format(name="one"))
    tb.write(path, "b_pages/test_first.py", PAGE_TEST)
    tb.write(path, "c_trails/two.trail.yaml", TRAIL.format(name="two"))
    tb.write(path, "d_pages/test_second.py", PAGE_TEST)


def test_page_tests_and_trails_run_in_one_session_in_either_order(pytester: pytest.Pytester, tb) -> None:
    interleaved(pytester.path, tb)

    result = pytester.runpytest_subprocess(*PLAIN, "-v")

    result.assert_outcomes(passed=4)
    result.stdout.fnmatch_lines(  # K's progress lines may follow a trail's name: order only
        [
            "a_trails/one.trail.yaml::one[[]web[]]*",
            "b_pages/test_first.py::test_page*PASSED*",
            "d_pages/test_second.py::test_page*PASSED*",
            "c_trails/two.trail.yaml::two[[]web[]]*",
        ]
    )
    assert "asyncio loop" not in result.stdout.str()


def test_page_tests_and_trails_run_together_under_xdist(pytester: pytest.Pytester, tb) -> None:
    interleaved(pytester.path, tb)
    tb.write(pytester.path, "e_pages/test_third.py", PAGE_TEST)
    tb.write(pytester.path, "f_trails/three.trail.yaml", TRAIL.format(name="three"))

    result = pytester.runpytest_subprocess(*PLAIN, "-n", "2")

    result.assert_outcomes(passed=6)


def test_trails_follow_pytest_playwrights_launch_options_and_fixture(pytester: pytest.Pytester, tb) -> None:
    """``--slowmo`` and a user's ``browser_type_launch_args`` override reach the trails' browser."""
    override = """
import pytest

@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    return {**browser_type_launch_args, "args": ["--user-agent=TrailAgent/7"]}
"""
    (pytester.path / "conftest.py").write_text(override + OPTIONS_RECORDER)
    agent_page = "data:text/html,<p id=ua></p><script>ua.textContent=navigator.userAgent</script>"
    trail = f"""
trail:
  - step: Read the user agent
    recording:
      web:
        - web_navigate: {{ url: "{agent_page}" }}
        - web_verifyTextVisible: {{ text: TrailAgent/7 }}
"""
    tb.write(pytester.path, "trails/agent.trail.yaml", trail)

    result = pytester.runpytest_subprocess(*PLAIN, "--slowmo", "20")

    result.assert_outcomes(passed=1)
    used = json.loads((pytester.path / "options.json").read_text())
    assert used["extra_launch"] == {"slow_mo": 20}
    assert used["launch_args"] == ["--user-agent=TrailAgent/7"]
    assert used["browser"] == "chromium" and used["headed"] is False


#: A page that shows what the browser context tells it: user agent, language, viewport width.
CONTEXT_PAGE = (
    "data:text/html,<p id=ua></p><script>ua.textContent="
    "[navigator.userAgent, navigator.language, innerWidth].join(' | ')</script>"
)
CONTEXT_TRAIL = f"""
trail:
  - step: Read what the context says
    recording:
      web:
        - web_navigate: {{ url: "{CONTEXT_PAGE}" }}
        - web_verifyTextVisible: {{ text: "{{{{expected}}}}" }}
"""
ASYNC_TEST = """
import asyncio

async def test_async_after_a_trail():
    assert await asyncio.sleep(0, result="ran") == "ran"
"""
CONTEXT_OVERRIDE = """
@pytest.fixture(scope="session")
def browser_context_args(browser_context_args):
    return {**browser_context_args, "user_agent": "ContextAgent/9", "locale": "de-DE"}
"""
AGENT_PAGE_TEST = """
def test_page(page):
    page.goto("data:text/html,<p>x</p>")
    assert page.evaluate("navigator.userAgent") == "ContextAgent/9"
"""


def test_a_browser_context_args_override_applies_to_trails_and_leaves_no_loop_behind(
    pytester: pytest.Pytester, tb
) -> None:
    """The user's ``browser_context_args`` reaches the trail's context; reading it starts
    pytest-playwright's Playwright, whose loop must not stay marked for the async test that comes
    next; the page test after that still runs on it."""
    (pytester.path / "conftest.py").write_text(PAGES_CONFTEST + CONTEXT_OVERRIDE)
    tb.write(pytester.path, "a_trails/context.trail.yaml", CONTEXT_TRAIL)
    tb.write(pytester.path, "b_async/test_async.py", ASYNC_TEST)
    tb.write(pytester.path, "c_pages/test_page.py", AGENT_PAGE_TEST)
    tb.write(pytester.path, "d_async/test_async_last.py", ASYNC_TEST.replace("after_a", "after_the"))

    result = pytester.runpytest_subprocess(
        *PLAIN, "-o", "asyncio_mode=auto", "--trailblaze-memory=expected=ContextAgent/9 | de-DE | 1280", "-v"
    )

    # the last async test runs after a page test: pytest-playwright leaves its loop marked then
    # (its design, README); everything before it passes
    result.assert_outcomes(passed=3, failed=1)
    result.stdout.fnmatch_lines(
        [
            "a_trails/context.trail.yaml::*context?web? PASSED*",
            "b_async/test_async.py::test_async_after_a_trail PASSED*",
            "c_pages/test_page.py::test_page*PASSED*",
            "d_async/test_async_last.py::test_async_after_the_trail FAILED*",
        ]
    )


def test_pytest_playwrights_device_option_reaches_the_trails(pytester: pytest.Pytester, tb) -> None:
    """``--device`` (no override of any fixture): the trail's context emulates that device (its
    user agent names it)."""
    tb.write(pytester.path, "trails/context.trail.yaml", CONTEXT_TRAIL)
    tb.write(pytester.path, "z_async/test_async.py", ASYNC_TEST)  # after the trail

    result = pytester.runpytest_subprocess(
        *PLAIN, "-o", "asyncio_mode=auto", "--device", "Pixel 5", "--trailblaze-memory=expected=Pixel 5"
    )

    result.assert_outcomes(passed=2)


OPTIONS_TEST = """
import dataclasses, json, pathlib

def test_options(trailblaze_browser_options, pytestconfig):
    used = dataclasses.asdict(trailblaze_browser_options)
    pathlib.Path(str(pytestconfig.rootpath), "options.json").write_text(json.dumps(used, default=str))
"""


@pytest.mark.parametrize(
    ("args", "browser", "headed"),
    [
        (["--browser", "firefox", "--headed"], "firefox", True),
        (["--browser", "firefox", "--trailblaze-browser", "webkit"], "webkit", False),
        ([], "chromium", False),
    ],
)
def test_pytest_playwrights_browser_and_headed_options_choose_the_trails_browser(
    pytester: pytest.Pytester, tb, args: list[str], browser: str, headed: bool
) -> None:
    """The launch settings trails get, read without starting a browser (none but Chromium here)."""
    tb.write(pytester.path, "test_options.py", OPTIONS_TEST)

    pytester.runpytest_subprocess(*PLAIN, *args).assert_outcomes(passed=1)

    used = json.loads((pytester.path / "options.json").read_text())
    assert (used["browser"], used["headed"]) == (browser, headed)


def test_pytest_playwrights_browser_channel_reaches_the_trails(
    pytester: pytest.Pytester, tb, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A channel is a choice of browser: the trails ask for it too (no Google Chrome here)."""
    tb.write(pytester.path, "trails/one.trail.yaml", TRAIL.format(name="one"))
    # Playwright's driver makes its artifacts and profile folders before it looks for the
    # browser, and leaves them when the launch fails: they go to this test's folder, not to /tmp.
    (pytester.path / "tmp").mkdir()
    monkeypatch.setenv("TMPDIR", str(pytester.path / "tmp"))

    result = pytester.runpytest_subprocess(*PLAIN, "--browser-channel", "chrome")

    result.assert_outcomes(errors=1)
    output = result.stdout.str()
    assert "could not start chromium" in output and "chrome" in output.split("could not start", 1)[1]
    assert "Traceback" not in output


def test_a_context_handed_in_runs_trails_in_pytest_playwrights_browser(pytester: pytest.Pytester, tb) -> None:
    """``trailblaze_browser_context`` -> pytest-playwright's ``context``: its traces cover the trail,
    and a failing trail still gets its failure screenshot."""
    handed = "\n@pytest.fixture\ndef trailblaze_browser_context(context):\n    return context\n"
    (pytester.path / "conftest.py").write_text(PAGES_CONFTEST + handed)
    tb.write(pytester.path, "a_pages/test_first.py", PAGE_TEST)
    tb.write(pytester.path, "b_trails/one.trail.yaml", TRAIL.format(name="one"))
    failing = TRAIL.format(name="fails").replace("{ text: fails }", "{ text: Never there }")
    tb.write(pytester.path, "c_trails/fails.trail.yaml", failing)

    result = pytester.runpytest_subprocess(*PLAIN, "--tracing", "on")

    result.assert_outcomes(passed=2, failed=1)
    traces = sorted(p.parent.name for p in (pytester.path / "test-results").glob("*/trace.zip"))
    assert traces == [
        "a-pages-test-first-py-test-page-chromium",
        "b-trails-one-trail-yaml-one-web",
        "c-trails-fails-trail-yaml-fails-web",
    ], traces
    assert list((pytester.path / "trailblaze-output").glob("*fails*/failure.png"))


def test_a_handed_value_that_is_no_context_is_a_clear_error(pytester: pytest.Pytester, tb) -> None:
    conftest = "import pytest\n\n@pytest.fixture\ndef trailblaze_browser_context():\n    return 'nope'\n"
    (pytester.path / "conftest.py").write_text(conftest)
    tb.write(pytester.path, "trails/one.trail.yaml", TRAIL.format(name="one"))

    result = pytester.runpytest_subprocess(*PLAIN)

    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*trailblaze_browser_context returned str, not a Playwright BrowserContext"])
    assert "fixtures.py" not in result.stdout.str()


def test_ours_win_over_pytest_playwrights_where_given() -> None:
    """Merging is by field: a --trailblaze-* value given on purpose wins, arguments of both are kept."""
    theirs = {"headless": False, "channel": "chrome", "slow_mo": 5, "args": ["--a"], "executable_path": "/x"}
    defaults = merged(BrowserOptions(), "firefox", theirs)
    assert (defaults.browser, defaults.headed, defaults.executable_path) == ("firefox", True, "/x")
    assert defaults.launch_args == ("--a",)
    assert defaults.extra_launch == {"channel": "chrome", "slow_mo": 5}

    ours = BrowserOptions(browser="webkit", executable_path="/ours", launch_args=("--b",))
    given = merged(ours, "firefox", theirs)
    assert (given.browser, given.executable_path, given.launch_args) == ("webkit", "/ours", ("--a", "--b"))
    assert merged(BrowserOptions(), None, {}) == BrowserOptions()


EVIDENCE_RECORDER = """
import json, pathlib
from pytest_trailblaze.plugin.playwright_compat import evidence_defaults

def pytest_configure(config):
    pathlib.Path(str(config.rootpath), "evidence.json").write_text(json.dumps(evidence_defaults(config)))
"""


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (
            ["--tracing", "retain-on-failure", "--video", "on"],
            {"tracing": "retain-on-failure", "video": "on"},
        ),
        (["--screenshot", "only-on-failure"], {"screenshot": "only-on-failure"}),
        (["--tracing", "off"], {}),
        (["-p", "no:playwright"], {}),
    ],
)
def test_pytest_playwrights_evidence_options_are_offered_as_defaults(
    pytester: pytest.Pytester, args: list[str], expected: dict[str, str]
) -> None:
    pytester.makeconftest(EVIDENCE_RECORDER)

    pytester.runpytest_subprocess(*PLAIN, "--collect-only", *args)

    assert json.loads((pytester.path / "evidence.json").read_text()) == expected
