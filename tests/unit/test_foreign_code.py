"""A stranger's code that ends the process its own way is an error; a real signal still stops.

``foreign_code()`` turns ``SystemExit`` and a ``KeyboardInterrupt`` the code raised itself into
``ForeignExit``. A ``KeyboardInterrupt`` that a SIGINT (Ctrl-C) or a SIGTERM (a cancelled CI job,
which the plugin turns into a ``KeyboardInterrupt``) caused while the code ran still stops the run,
and the handlers that were there before are there again after the block.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator

import pytest

from pytest_trailblaze.core.system.foreign import ForeignExit, foreign_code


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt(f"received signal {signum}")


@pytest.fixture
def interrupting() -> Iterator[None]:
    """SIGTERM raising KeyboardInterrupt, as the plugin's handler does during a run."""
    before = signal.signal(signal.SIGTERM, _interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, before)


def _wait_for_the_signal() -> None:
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        time.sleep(0.01)
    raise AssertionError("the signal never arrived")


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_during_the_code_still_stops_the_run(interrupting: None, signum: int) -> None:
    handlers = (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM))
    with pytest.raises(KeyboardInterrupt), foreign_code():
        os.kill(os.getpid(), signum)
        _wait_for_the_signal()
    assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == handlers


def test_the_codes_own_interrupt_and_exit_are_errors(interrupting: None) -> None:
    own = r"raised KeyboardInterrupt itself \(no Ctrl-C was pressed\)"
    with pytest.raises(ForeignExit, match=own), foreign_code():
        raise KeyboardInterrupt
    with pytest.raises(ForeignExit, match=r"called sys.exit\(3\)"), foreign_code():
        raise SystemExit(3)


def _exits(ctx: object) -> None:
    raise SystemExit(3)


def test_a_users_python_tool_is_guarded_and_the_packages_own_are_not() -> None:
    """The guard's signal handlers go in and out around every call, so the built-in tools, which
    end only by raising, run without it; a tool of anyone else's still gets it."""
    from pytest_trailblaze.core.errors import ToolFailure
    from pytest_trailblaze.core.tooling.tooldef import PythonTool, tool
    from pytest_trailblaze.tools import builtin_tools

    own = [t.own for t in builtin_tools() if isinstance(t, PythonTool)]
    assert len(own) > 50 and all(own)
    theirs = tool()(_exits)
    assert not theirs.own
    with pytest.raises(ToolFailure, match=r"called sys.exit\(3\)"):
        theirs.invoke(None, theirs.validate({}))  # type: ignore[arg-type]  # the tool reads no context
