"""Ctrl-C and SIGTERM stop a run, always, and the same way.

Python turns SIGINT into ``KeyboardInterrupt`` in the main thread, wherever it is: in a
Playwright wait, an Appium poll, an MCP call. pytest then stops, runs every teardown (browser,
Appium sessions, MCP servers and their process groups), writes JUnit and exits with code 2. A
SIGTERM (a CI job cancelled, ``timeout``, ``docker stop``) kills the process at once instead: no
teardown, no report. This module raises ``KeyboardInterrupt`` for SIGTERM too, saying which
signal it was, so pytest's summary reads ``KeyboardInterrupt: received SIGTERM: ...``. The
handler's own frame is hidden from the report: the location pytest prints under the summary is
where the signal landed, not this module.

An exception that a signal handler raises can still be lost: Python cannot raise it out of a
finalizer or a weakref callback that happened to run at that moment (it reports it as
"unraisable" and goes on), and library code may catch ``BaseException``. So while a test item
still runs after the first signal of a run, that signal is delivered again every second, and an
item that ends normally all the same is followed by the interrupt. Outside items (an xdist
controller, teardown at the end) and for later signals (a second Ctrl-C), a signal raises once,
as Python does.

Handlers go in only where they work and hurt nobody, and come out at the end: SIGTERM's for the
whole run, in the main thread of each pytest process (an xdist controller also passes SIGTERM
on to its workers); SIGINT's only while a trail item runs, and only over Python's default, so
asyncio's and anyio's own Ctrl-C handling stays as it is for other tests. A handler of the
user's own, or an inherited "ignore", stays untouched.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable, Generator
from contextlib import suppress
from types import FrameType
from typing import TypeAlias

import pytest

from ..compat import xdist_worker_pids

REDELIVER_S = 1.0
#: What ``signal.signal`` takes and gives back: a function, SIG_DFL / SIG_IGN, or None (not set from Python).
Handler: TypeAlias = Callable[[int, FrameType | None], object] | int | signal.Handlers | None


#: What the interrupt raised for SIGTERM says (pytest prints it as ``KeyboardInterrupt: ...``).
SIGTERM_MESSAGE = "received SIGTERM: stopping the run as on Ctrl-C"


class Interrupts:
    """One pytest process's SIGINT / SIGTERM handling (see the module docstring); a plugin per config."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.pending: int | None = None
        self.settled = False
        self.in_item = False
        self._stop = threading.Event()
        self._previous: dict[int, Handler] = {}

    def handle(self, signum: int, frame: FrameType | None) -> None:
        __tracebackhide__ = True  # pytest's summary names where the signal landed, not this handler
        if not self.settled and self.pending is None:
            self.pending = signum
            if signum == signal.SIGTERM:
                _forward(self.config, signum)
            threading.Thread(target=self._redeliver, name="trailblaze-interrupts", daemon=True).start()
        raise _interrupt(signum)

    handle.trailblaze = True  # type: ignore[attr-defined]

    def settle(self) -> None:
        """The interrupt is on its way out (through an item, or at the session): stop delivering it."""
        self.settled = True
        self.pending = None
        self._stop.set()

    def _redeliver(self) -> None:
        """Deliver the first signal again while an item still runs after it (something swallowed it)."""
        while not self._stop.wait(REDELIVER_S):
            pending = self.pending
            if pending is not None and self.in_item:
                os.kill(os.getpid(), pending)

    def install(self, signum: int, over: Handler) -> None:
        """Handle ``signum`` if its handler is ``over`` now (in the main thread only)."""
        if threading.current_thread() is threading.main_thread() and signal.getsignal(signum) is over:
            self._previous[signum] = signal.signal(signum, self.handle)

    def uninstall(self, signum: int) -> None:
        """Put the previous handler back, unless someone replaced ours meanwhile."""
        previous = self._previous.pop(signum, None)
        if previous is not None and signal.getsignal(signum) == self.handle:
            signal.signal(signum, previous)

    # -- hooks ----------------------------------------------------------------------------------
    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> Generator[None, object, object]:
        """Around every item (outermost): an interrupt must come out of it, whatever swallowed it."""
        from .collection import TrailItem  # items run where they are collected, never on a controller

        if isinstance(item, TrailItem):
            self.install(signal.SIGINT, over=signal.default_int_handler)
        self.in_item = True
        try:
            result = yield
        except KeyboardInterrupt:
            self.settle()
            raise
        finally:
            self.in_item = False
            self.uninstall(signal.SIGINT)
        swallowed = self.pending
        if swallowed is not None:
            self.settle()
            raise _interrupt(swallowed)
        return result

    def pytest_keyboard_interrupt(self) -> None:
        self.settle()

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self) -> None:
        """Teardown has begun: no interrupt is delivered again into it (a new one raises once)."""
        self.settle()

    def pytest_unconfigure(self) -> None:
        self._stop.set()
        for signum in list(self._previous):
            self.uninstall(signum)


def _interrupt(signum: int) -> KeyboardInterrupt:
    """A plain ``KeyboardInterrupt``: pytest reports its class by its full name, and a subclass of
    ours would read ``pytest_trailblaze.plugin.signals....`` in the run's last line."""
    return KeyboardInterrupt(SIGTERM_MESSAGE) if signum == signal.SIGTERM else KeyboardInterrupt()


def _forward(config: pytest.Config, signum: int) -> None:
    """An xdist controller passes the signal on to its workers, so they stop their steps too.

    The controller itself stops at once, as on a terminal's Ctrl-C, so xdist reports the run as
    interrupted rather than its workers as crashed.
    """
    for pid in xdist_worker_pids(config):
        with suppress(OSError):
            os.kill(pid, signum)


def pytest_configure(config: pytest.Config) -> None:
    interrupts = Interrupts(config)
    config.pluginmanager.register(interrupts, "trailblaze-interrupts")
    interrupts.install(signal.SIGTERM, over=signal.SIG_DFL)


def pytest_report_header(config: pytest.Config) -> list[str]:
    """Say so when Ctrl-C cannot work: the process was started with SIGINT ignored."""
    if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
        return []
    return [
        "trailblaze: this process ignores SIGINT (a shell started it in the background), so Ctrl-C "
        "will not stop the run; SIGTERM will"
    ]
