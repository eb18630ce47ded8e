"""Waits of the trail's thread on other threads that Ctrl-C and SIGTERM always end at once.

Linux hands a signal sent to a process to any one of its threads that does not block it: the
main thread as a rule, another one now and then (when the main thread has a signal pending
already, say). Python runs its handlers in the main thread only, once that thread runs Python
code again. A main thread asleep in one long lock wait (a future of the MCP servers' loop, a
portal call) is not woken by a signal another thread took, so it slept out its whole wait (a
60 s MCP handshake) before the interrupt was raised. Blocking the signals in helper threads is
no cure: the processes they spawn (MCP servers, TypeScript hosts) would inherit the mask and
ignore SIGTERM.

So the waits here sleep in slices of ``SLICE_S``: between two, the interpreter runs any handler
a signal left pending, wherever the kernel delivered it. A wait that ends within its first slice
(a fast tool call) costs nothing more.
"""

from __future__ import annotations

import queue
import time
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Protocol, TypeVar

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)
#: The longest a pending Ctrl-C waits for the trail's thread to notice it.
SLICE_S = 0.2


class Lock(Protocol):
    def acquire(self, blocking: bool = True, timeout: float = -1) -> bool: ...


class Source(Protocol[T_co]):
    """A ``queue.Queue`` or ``queue.SimpleQueue``."""

    def get(self, block: bool = True, timeout: float | None = None) -> T_co: ...


def _next_slice(deadline: float | None) -> float:
    """The next slice of a wait ending at ``deadline`` (None: no end); 0 when it is over."""
    if deadline is None:
        return SLICE_S
    return max(0.0, min(SLICE_S, deadline - time.monotonic()))


def _deadline(timeout: float | None) -> float | None:
    return None if timeout is None or timeout < 0 else time.monotonic() + timeout


def acquire(lock: Lock, timeout: float | None = None) -> bool:
    """``lock.acquire(timeout=timeout)`` (None or negative: no limit), in slices."""
    deadline = _deadline(timeout)
    while True:
        wait = _next_slice(deadline)
        if wait <= 0:
            return lock.acquire(blocking=False)
        if lock.acquire(timeout=wait):
            return True


def result(future: Future[T], timeout: float | None = None) -> T:
    """``future.result(timeout)``, in slices (``TimeoutError`` past ``timeout``)."""
    deadline = _deadline(timeout)
    while True:
        try:
            return future.result(timeout=_next_slice(deadline))
        except FutureTimeout:
            if future.done():  # the work's own TimeoutError
                raise
            if deadline is not None and time.monotonic() >= deadline:
                raise TimeoutError(f"no answer within {timeout:g} s") from None


def get(source: Source[T], timeout: float | None = None) -> T:
    """``source.get(timeout=timeout)``, in slices (``queue.Empty`` past ``timeout``)."""
    deadline = _deadline(timeout)
    while True:
        try:
            return source.get(timeout=_next_slice(deadline))
        except queue.Empty:
            if deadline is not None and time.monotonic() >= deadline:
                raise
