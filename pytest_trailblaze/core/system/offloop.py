"""Awaiting coroutines from the trail's thread, which cannot host an event loop of its own.

During a web trail the main thread carries Playwright's loop, marked as running (see
``drivers/loopstate.py``), so ``asyncio.run`` there fails. Async work runs in an event loop on
another thread instead and the trail's thread waits for it: the MCP servers' loop
(``mcp/server.py``), and for ``async def`` tools (an HTTP API, a database seed) the loop of
``ASYNC_TOOLS``, started on first use and kept for the process, so an async client a tool keeps
between calls stays on the loop it was made on.
"""

from __future__ import annotations

import _thread
import asyncio
import threading
from collections.abc import Callable, Coroutine
from typing import TypeVar

from . import waits

T = TypeVar("T")
#: How long a cancelled ``async def`` tool may take to unwind after Ctrl-C before the interrupt goes on.
CANCEL_GRACE_S = 5.0


def run_in_loop(
    loop: asyncio.AbstractEventLoop,
    function: Callable[..., Coroutine[object, object, T]],
    *args: object,
    timeout: float | None = None,
    grace_s: float = 0.0,
) -> T:
    """Await ``function(*args)`` in ``loop`` (running on another thread) and return its result.

    One task in the loop and one plain lock to wait on: ``asyncio.run_coroutine_threadsafe``
    (a concurrent future, its condition and chained callbacks) costs a tenth of a fast MCP call.
    Past ``timeout``, or when the wait is interrupted (Ctrl-C), the task is cancelled, given up to
    ``grace_s`` to unwind (its ``finally`` blocks), and the error raised here: ``TimeoutError``
    for the timeout.
    """
    done = _thread.allocate_lock()
    done.acquire()
    box: list[asyncio.Task[T]] = []

    def start() -> None:
        task = loop.create_task(function(*args))
        box.append(task)
        task.add_done_callback(lambda _: done.release())

    def cancel() -> None:
        loop.call_soon_threadsafe(lambda: box[0].cancel())
        if grace_s:
            done.acquire(timeout=grace_s)

    loop.call_soon_threadsafe(start)
    try:
        finished = waits.acquire(done, timeout)  # in slices: a Ctrl-C another thread took ends it too
    except BaseException:
        cancel()
        raise
    if not finished:
        cancel()
        raise TimeoutError(f"no answer within {timeout:g} s")
    return box[0].result()


class BackgroundLoop:
    """An event loop on a daemon thread, started on first use and kept for the process."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None

    def run(self, function: Callable[..., Coroutine[object, object, T]], *args: object) -> T:
        """Await ``function(*args)`` there; Ctrl-C cancels it and lets it unwind first."""
        return run_in_loop(self._started(), function, *args, grace_s=CANCEL_GRACE_S)

    def _started(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                threading.Thread(target=loop.run_forever, name=self.name, daemon=True).start()
                self._loop = loop
            return self._loop


#: Where ``async def`` tools run (``core/tooldef.py``).
ASYNC_TOOLS = BackgroundLoop("trailblaze-async-tools")
