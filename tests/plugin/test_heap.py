"""The heap that import and collection built is frozen for the garbage collector while tests run."""

from __future__ import annotations

import json
import sys

import pytest

#: Records how many objects were frozen at every full collection after the test loop started.
WATCHER = """
import gc

SEEN = []

def _watch(phase, info):
    if phase == "start" and info["generation"] == 2:
        SEEN.append(gc.get_freeze_count())

def pytest_runtestloop(session):
    gc.callbacks.append(_watch)
"""

#: Runs one session in this process as a caller of ``pytest.main()`` that goes on would, and
#: records the frozen count when it returns and at exit (this exit handler, registered before the
#: plugin's, runs after it), with the full collections the watcher saw.
RUNNER = """
import atexit, gc, json, pathlib, sys

import pytest

record = {}

@atexit.register
def _write():
    record["at_exit"] = gc.get_freeze_count()
    pathlib.Path("heap.json").write_text(json.dumps(record))

record["code"] = int(pytest.main(["-p", "no:cacheprovider", "-q", *sys.argv[1:]]))
record["after_main"] = gc.get_freeze_count()
record["full"] = list(sys.modules["conftest"].SEEN)
"""

TESTS = """
import gc

def test_what_collection_built_is_frozen():
    assert gc.get_freeze_count() > 1000

def test_garbage_a_test_makes_is_still_collected():
    cycle = []
    cycle.append(cycle)
    del cycle
    assert gc.collect() >= 1
"""


def run_session(pytester: pytest.Pytester, *args: str) -> dict[str, object]:
    pytester.makeconftest(WATCHER)
    pytester.makepyfile(test_frozen=TESTS)
    runner = pytester.makepyfile(run_session=RUNNER)
    result = pytester.run(sys.executable, str(runner), *args)
    assert result.ret == 0, result.stdout.str() + result.stderr.str()
    record: dict[str, object] = json.loads((pytester.path / "heap.json").read_text())
    return record


def test_the_collected_heap_is_frozen_while_tests_run_and_unfrozen_after(pytester: pytest.Pytester) -> None:
    record = run_session(pytester)
    assert record["code"] == 0, record
    full = record["full"]
    assert isinstance(full, list) and len(full) >= 6, record  # the test's own, then pytest's five at the end
    assert all(frozen > 1000 for frozen in full), record
    assert record["after_main"] == 0, record  # a caller that goes on keeps nothing frozen


def test_the_heap_is_frozen_again_when_the_interpreter_exits(pytester: pytest.Pytester) -> None:
    """The interpreter's last full collections at exit skip the heap (they only free memory)."""
    record = run_session(pytester)
    at_exit = record["at_exit"]
    assert isinstance(at_exit, int) and at_exit > 1000, record


def test_the_freeze_can_be_turned_off_by_the_plugins_name(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_plain="""
        import gc

        def test_nothing_is_frozen():
            assert gc.get_freeze_count() == 0
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:trailblaze-heap")
    result.assert_outcomes(passed=1)


def test_turned_off_the_heap_is_not_frozen_at_exit_either(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_plain="def test_nothing():\n    pass\n")
    record = run_session(pytester, "-p", "no:trailblaze-heap", "test_plain.py")
    assert record["at_exit"] == 0, record


def test_what_pytest_loaded_is_frozen_before_the_plugins_own_modules_load(pytester: pytest.Pytester) -> None:
    """Loading the plugin's modules set off a full collection that walked pytest's heap too."""
    pytester.makeconftest(
        """
        import gc, pytest

        @pytest.hookimpl(trylast=True)
        def pytest_configure(config):
            config.frozen_at_configure = gc.get_freeze_count()

        def pytest_collection_finish(session):
            assert session.config.frozen_at_configure > 1000, session.config.frozen_at_configure
        """
    )
    pytester.makepyfile(test_plain="def test_nothing():\n    pass\n")
    pytester.runpytest_subprocess("-p", "no:cacheprovider").assert_outcomes(passed=1)


def test_a_configure_that_fails_leaves_nothing_frozen(pytester: pytest.Pytester) -> None:
    """The start-up freeze comes before the options are read; a usage error after it still undoes it."""
    record = run_session(pytester, "--trailblaze-browser-launch-timeout=-1")
    assert record["code"] == int(pytest.ExitCode.USAGE_ERROR), record
    assert record["after_main"] == 0, record
