"""The heap that import and collection built is frozen for the garbage collector while tests run."""

from __future__ import annotations

import json

import pytest

#: Records how many objects were frozen at every full collection after the test loop started, and
#: after everything pytest does at the end (at exit).
WATCHER = """
import atexit, gc, json, pathlib

SEEN = []

def _watch(phase, info):
    if phase == "start" and info["generation"] == 2:
        SEEN.append(gc.get_freeze_count())

def pytest_runtestloop(session):
    gc.callbacks.append(_watch)

@atexit.register
def _write():
    record = {"full": SEEN, "after": gc.get_freeze_count()}
    pathlib.Path(str(ROOT), "heap.json").write_text(json.dumps(record))
"""


def test_the_collected_heap_is_frozen_while_tests_run_and_unfrozen_after(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(f"ROOT = {str(pytester.path)!r}\n{WATCHER}")
    pytester.makepyfile(
        test_frozen="""
        import gc

        def test_what_collection_built_is_frozen():
            assert gc.get_freeze_count() > 1000

        def test_garbage_a_test_makes_is_still_collected():
            cycle = []
            cycle.append(cycle)
            del cycle
            assert gc.collect() >= 1
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")  # pytester skips pytest's end
    result.assert_outcomes(passed=2)
    record = json.loads((pytester.path / "heap.json").read_text())
    assert len(record["full"]) >= 6, record  # the test's own, then pytest's five at the end
    assert all(frozen > 1000 for frozen in record["full"]), record
    assert record["after"] == 0  # nothing stays frozen once the session is over


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
