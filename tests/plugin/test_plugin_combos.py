"""Trails beside other pytest plugins and options and their combinations: real pytest
subprocess runs of real trails on Chromium, next to plain Python tests.

- ``--strict-markers`` with a Python test marked with a tag that trails declare passes whichever
  folder is collected first (tags are registered before any collection);
- pytest-randomly shuffles trails and Python tests together, serially and under ``-n 2``;
- pytest's cache options ``--lf`` / ``--ff`` / ``--sw``, ``-x`` and ``--durations`` treat trail
  items like any test;
- pytest-timeout's thread method ends the run, and the browser with it.
"""

from __future__ import annotations

import os
import re
import time
import uuid
from pathlib import Path

import pytest

SMOKE_TEST = """
import pytest


@pytest.mark.smoke
def test_smoke_python():
    assert True


@pytest.mark.checkout_flow
def test_checkout_python():
    assert True
"""

TAGGED = """
config: { id: tagged/counter, tags: [smoke, checkout-flow] }
trail:
  - step: Count once
    recording:
      web:
        - web_navigate: { url: "{{app}}/index.html#counter" }
        - web_click: { ref: "css=#increment-btn" }
        - web_verifyValue: { ref: "css=#counter-value", expected: "1" }
"""


#: The check of ``simple_trail``: it holds on the About page.
HOLDS = 'web_verifyTextVisible: { text: "Version: 1.0.0" }'
#: A call that fails at once (a script that throws): a text check that cannot hold would wait its
#: 5 s in each run that includes the trail, and the tests that use it are about the runs' order.
FAILS_AT_ONCE = "web_evaluate: { script: \"() => { throw new Error('fails') }\" }"


def simple_trail(name: str, check: str = HOLDS) -> str:
    return f"""
        config: {{ id: combo/{name} }}
        trail:
          - step: Open About
            recording:
              web:
                - web_navigate: {{ url: "{{{{app}}}}/index.html#about" }}
                - {check}
        """


@pytest.mark.parametrize("order", [("tests", "trails"), ("trails", "tests")])
def test_strict_markers_accept_trail_tags_on_python_tests_in_any_order(pytester, tb, order) -> None:
    tb.write(pytester.path, "tests/test_smoke.py", SMOKE_TEST)
    tb.write(pytester.path, "trails/counter.trail.yaml", TAGGED)

    # subprocesses: pytest keeps the marker names it has seen for the life of the process
    collect = ("--strict-markers", "--collect-only", "-q", "-p", "no:randomly")
    everything = pytester.runpytest_subprocess(*collect, *order)
    smoke = pytester.runpytest_subprocess(*collect, "-m", "smoke", *order)
    flow = pytester.runpytest_subprocess(*collect, "-m", "checkout_flow", *order)

    assert everything.ret == pytest.ExitCode.OK, everything.stdout.str()
    assert "3 tests collected" in everything.stdout.str()
    for selected in (smoke, flow):
        assert selected.ret == pytest.ExitCode.OK
        names = [line for line in selected.outlines if "::" in line]
        assert len(names) == 2 and "trails/counter.trail.yaml::tagged/counter[web]" in names


BLAZE_TAGGED = """
- config: { id: tagged/blaze, tags: [smoke] }
- prompts:
    - step: Count once
"""


@pytest.mark.parametrize("order", [("tests", "trails"), ("trails", "tests")])
def test_strict_markers_know_the_tags_of_a_blaze_yaml_definition(pytester, tb, order) -> None:
    """A legacy ``blaze.yaml`` is collected as a trail, so its tags are registered up front too."""
    tb.write(pytester.path, "tests/test_smoke.py", SMOKE_TEST.replace("checkout_flow", "smoke"))
    tb.write(pytester.path, "trails/legacy/blaze.yaml", BLAZE_TAGGED)

    collect = ("--strict-markers", "--collect-only", "-q", "-p", "no:randomly")
    smoke = pytester.runpytest_subprocess(*collect, "-m", "smoke", *order)

    assert smoke.ret == pytest.ExitCode.OK, smoke.stdout.str()
    assert "trails/legacy/blaze.yaml::tagged/blaze[web]" in smoke.outlines


def test_strict_markers_in_a_real_run_with_python_tests_first(pytester, tb) -> None:
    tb.write(pytester.path, "tests/test_smoke.py", SMOKE_TEST)
    tb.write(pytester.path, "trails/counter.trail.yaml", TAGGED)

    result = pytester.runpytest_subprocess(
        tb.APP_MEMORY, "--strict-markers", "-p", "no:randomly", "-m", "smoke", "tests", "trails", timeout=180
    )

    result.assert_outcomes(passed=2, deselected=1)


#: A conftest that writes the node id of each test as it starts to ``order.txt`` (the xdist
#: controller writes it; workers do not).
ORDER_RECORDER = """
import pathlib

def pytest_runtest_logstart(nodeid, location):
    if not hasattr(_config, "workerinput"):
        with pathlib.Path(str(_config.rootpath), "order.txt").open("a") as fh:
            fh.write(nodeid + "\\n")

def pytest_configure(config):
    global _config
    _config = config
"""


def _ordered(pytester: pytest.Pytester, *args: str) -> tuple[pytest.RunResult, list[str]]:
    """Run pytest; return the result and the node ids in the order they ran."""
    order = pytester.path / "order.txt"
    order.unlink(missing_ok=True)
    result = pytester.runpytest_subprocess(*args, timeout=240)
    return result, order.read_text().splitlines() if order.exists() else []


def test_pytest_randomly_shuffles_trails_and_python_tests(pytester, tb) -> None:
    tb.write(pytester.path, "conftest.py", ORDER_RECORDER)
    tb.write(pytester.path, "tests/test_smoke.py", SMOKE_TEST)
    for name in ("a", "b", "c", "d"):
        tb.write(pytester.path, f"trails/{name}.trail.yaml", simple_trail(name))

    shuffled = (tb.APP_MEMORY, "-p", "randomly")  # the suite's inner runs keep file order otherwise
    first, first_order = _ordered(pytester, *shuffled, "--randomly-seed=1")
    second, second_order = _ordered(pytester, *shuffled, "--randomly-seed=2")
    xdist, _ = _ordered(pytester, *shuffled, "-n", "2", "--randomly-seed=3")

    for result in (first, second, xdist):
        result.assert_outcomes(passed=6)
    assert "Using --randomly-seed=1" in first.stdout.str()
    assert len(first_order) == 6 and sorted(first_order) == sorted(second_order)
    assert first_order != second_order


@pytest.fixture
def three_trails(pytester: pytest.Pytester, tb) -> pytest.Pytester:
    """a passes, b fails, c passes; the cache is on (``.pytest_cache`` in the test folder)."""
    tb.write(pytester.path, "conftest.py", ORDER_RECORDER)
    tb.write(pytester.path, "trails/a.trail.yaml", simple_trail("a"))
    tb.write(pytester.path, "trails/b.trail.yaml", simple_trail("b", FAILS_AT_ONCE))
    tb.write(pytester.path, "trails/c.trail.yaml", simple_trail("c"))
    return pytester


def _run(pytester: pytest.Pytester, tb, *args: str) -> tuple[pytest.RunResult, list[str]]:
    quiet = ("-p", "no:randomly", "-p", "cacheprovider", "--trailblaze-screenshots=off")
    return _ordered(pytester, tb.APP_MEMORY, *quiet, *args)


A, B, C = (f"trails/{n}.trail.yaml::combo/{n}[web]" for n in "abc")


def test_last_failed_failed_first_and_exitfirst(three_trails: pytest.Pytester, tb) -> None:
    full, full_order = _run(three_trails, tb)
    last_failed, last_failed_order = _run(three_trails, tb, "--lf")
    failed_first, failed_first_order = _run(three_trails, tb, "--ff")
    exit_first, exit_first_order = _run(three_trails, tb, "-x")

    full.assert_outcomes(passed=2, failed=1)
    assert full_order == [A, B, C]
    last_failed.assert_outcomes(failed=1)
    assert last_failed_order == [B]
    assert "run-last-failure: rerun previous 1 failure" in last_failed.stdout.str()
    failed_first.assert_outcomes(passed=2, failed=1)
    assert failed_first_order == [B, A, C]
    exit_first.assert_outcomes(passed=1, failed=1)
    assert exit_first_order == [A, B]
    assert "stopping after 1 failures" in exit_first.stdout.str()


def test_stepwise_and_durations(three_trails: pytest.Pytester, tb) -> None:
    first, first_order = _run(three_trails, tb, "--sw", "--durations=0", "--durations-min=0")
    second, second_order = _run(three_trails, tb, "--sw")

    first.assert_outcomes(passed=1, failed=1)
    assert first_order == [A, B]
    second.assert_outcomes(failed=1, deselected=1)
    assert second_order == [B], "stepwise resumes at the trail that failed, and stops there again"
    durations = first.stdout.str().split("slowest durations")[1]
    for when in ("setup", "call", "teardown"):
        assert re.search(rf"\d+\.\d+s {when} +{re.escape(A)}", durations), (when, durations)
    assert re.search(rf"\d+\.\d+s call +{re.escape(B)}", durations)


def _processes_with(mark: str) -> list[str]:
    """Command lines of the processes whose environment holds ``mark`` (this one excluded)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if mark.encode() in (entry / "environ").read_bytes():
                found.append((entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace"))
        except OSError:
            continue
    return found


def test_timeout_thread_method_ends_the_run_and_the_browser(pytester, tb, monkeypatch) -> None:
    """pytest-timeout's thread method dumps the stacks and ends the process with ``os._exit``: no
    teardown runs, yet nothing the run started (Playwright's driver, Chromium) may stay behind."""
    mark = f"combo-{uuid.uuid4().hex[:10]}"
    monkeypatch.setenv("TRAILBLAZE_COMBO_MARK", mark)  # inherited by every process the run starts
    trail = simple_trail("slow").replace(
        '- web_verifyTextVisible: { text: "Version: 1.0.0" }', "- wait: { timeToWaitInSeconds: 120 }"
    )
    tb.write(pytester.path, "trails/slow.trail.yaml", trail)
    tb.write(pytester.path, "pytest.ini", "[pytest]\ntimeout_func_only = true\n")

    result = pytester.runpytest_subprocess(
        tb.APP_MEMORY, "-p", "no:randomly", "--timeout", "3", "--timeout-method", "thread", timeout=180
    )

    assert result.ret == 1
    out = result.stdout.str()
    assert re.search(r"\++ Timeout \++", out) and "Stack of MainThread" in out
    deadline = time.monotonic() + 20
    left = _processes_with(mark)
    while left and time.monotonic() < deadline:  # they end once they notice their parent is gone
        time.sleep(0.2)
        left = _processes_with(mark)
    assert left == [], f"still running after the run ended: {left}"


LOCKED_CONFTEST = """
import errno
import pathlib

_is_file = pathlib.Path.is_file


def is_file(self):
    # A folder of another user (or /proc/1/fdinfo): looking inside it is refused.
    if "locked" in self.parts and self.name != "locked":
        raise PermissionError(errno.EACCES, "Permission denied", str(self))
    return _is_file(self)


pathlib.Path.is_file = is_file
"""


def test_a_folder_that_cannot_be_looked_into_does_not_stop_the_tag_pre_read(pytester, tb) -> None:
    """``pytest /`` once stopped with an INTERNALERROR from the pre-read of trail tags
    (``/proc/1/fdinfo/pyvenv.cfg``: permission denied); an unreadable folder is passed over."""
    pytester.makeconftest(LOCKED_CONFTEST)
    tb.write(pytester.path, "trails/tagged.trail.yaml", TAGGED)
    (pytester.path / "trails" / "locked" / "deeper").mkdir(parents=True)
    tb.write(pytester.path, "tests/test_smoke.py", SMOKE_TEST)

    result = pytester.runpytest("--strict-markers", "--collect-only", "-q", "-p", "no:randomly")

    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()
    result.stdout.fnmatch_lines(["*3 tests collected*"])
