"""Which asyncio loop the thread calls "running" while Playwright's sync API is in use, and after.

Playwright's sync API runs an asyncio loop inside a greenlet and, after every call, marks that
loop as the thread's running loop (``compat.mark_running_loop``), because its next call resumes
the loop where it stopped and the loop's callbacks need it. Left like that between tests, the
mark breaks everything else that wants a loop on the main thread: pytest-asyncio and anyio fail
with "Runner.run() cannot be called from a running event loop", and a second Playwright (such as
pytest-playwright's) refuses to start ("Sync API inside the asyncio loop").

``PlaywrightLoop`` keeps the mark where it belongs: ``enter()`` marks the Playwright instance's
own loop (nothing before it started) right before our code uses it, and ``active()`` also puts
back, on the way out, whatever the thread had before. The plugin wraps each web trail in
``left_as_found()``, so between tests the main thread carries no loop of ours and any other
library's loop (pytest-playwright's own) is exactly as that library left it.

Why not a thread of its own for Playwright: trails and users' Python tools drive the page
directly (``ctx.driver.page.locator(...)``, ``expect(...)``), so every tool call would have to move
to that thread, with Ctrl-C reaching only the main thread. Marking the loop costs two C calls and
keeps every call, signal and traceback where it was.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager

from ..compat import has_ready_callbacks, mark_running_loop, running_loop


class CallTimeout(Exception):
    """A Playwright call outlived the bound of ``bounded`` (thrown into the caller waiting for it)."""


#: At most this many extra turns of the loop for answers already received (see ``bounded``).
HANDOVER_TURNS = 1000


@contextmanager
def bounded(loop: asyncio.AbstractEventLoop | None, seconds: float) -> Iterator[None]:
    """While the block waits for Playwright's sync API, ``CallTimeout`` is thrown into it after
    ``seconds``; Playwright then cancels the call it waits for (and tells its driver to abort it).

    The sync API waits for an answer by running its event loop in a greenlet of the calling
    thread, so a timer on that loop fires exactly while the caller waits: no thread, nothing of
    Playwright's patched. Its calls without a timeout of their own (``evaluate``, ``close``) get
    one this way.

    An answer that came in before the deadline is not lost to it: when the process got no CPU
    for a while (a loaded machine), the answer and the due timer are found in the same turn of
    the loop, and the answer reaches the caller only a few callbacks later. So a due timer lets
    the loop run what it already has queued (up to ``HANDOVER_TURNS`` turns) before it throws;
    a caller resumed meanwhile has left the block and the timer does nothing.
    """
    import greenlet

    if loop is None or loop.is_closed():
        yield
        return
    caller = greenlet.getcurrent()
    waiting = True

    def expire(turns_left: int) -> None:
        if not waiting or caller.dead:
            return
        if turns_left and has_ready_callbacks(loop):  # callbacks queued: an answer on its way?
            loop.call_soon(expire, turns_left - 1)
            return
        caller.throw(CallTimeout())

    timer = loop.call_later(seconds, expire, HANDOVER_TURNS)
    try:
        yield
    finally:
        waiting = False
        timer.cancel()


class PlaywrightLoop:
    """The loop of one Playwright instance (``None`` until it started) and the mark on the thread."""

    def __init__(self, loop: asyncio.AbstractEventLoop | None = None) -> None:
        self.loop = loop

    @classmethod
    def current(cls) -> PlaywrightLoop:
        """The loop the thread marks now: the one that owns objects a sync API call just returned."""
        return cls(running_loop())

    def enter(self) -> None:
        """Mark this instance's loop as running (none before it started), as its sync API expects."""
        loop = self.loop
        mark_running_loop(loop if loop is not None and not loop.is_closed() else None)

    def started(self) -> None:
        """Remember the loop of an instance that just started here (its sync API marked it)."""
        if self.loop is None or self.loop.is_closed():
            self.loop = running_loop()

    @contextmanager
    def active(self) -> Iterator[None]:
        """Our loop marked while the block runs; the thread's previous mark put back afterwards.

        A previous loop that has been closed meanwhile (our own, stopped in the block) leaves no
        mark: a closed loop marked running would still refuse every ``asyncio.run``.
        """
        previous = running_loop()
        self.enter()
        try:
            yield
        finally:
            alive = previous is not None and not previous.is_closed()
            mark_running_loop(previous if alive else None)

    @contextmanager
    def left_as_found(self) -> Iterator[None]:
        """A block that may use this instance (a web trail) leaves the thread's mark as it found it.

        Except for another Playwright that started in the block (pytest-playwright's, for a
        context the user handed in): its next sync call needs its loop marked, so its mark stays,
        as that library leaves it after its own tests.
        """
        previous = running_loop()
        try:
            yield
        finally:
            now = running_loop()
            if now is None or now is self.loop or now.is_closed():
                alive = previous is not None and not previous.is_closed()
                mark_running_loop(previous if alive else None)


class ForeignLoop:
    """Another library's Playwright loop (pytest-playwright's) that started in a block of ours.

    Its start marks its loop on the thread, where the mark would stay for every test after it.
    ``parked()`` takes that mark off again as the block ends, and ``resume()`` puts it back before
    the owner's own code runs (its next sync call and its teardown need it), as if it never left.
    """

    def __init__(self) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None

    @contextmanager
    def parked(self) -> Iterator[None]:
        """A block that may start the other Playwright leaves the thread's mark as it found it."""
        previous = running_loop()
        try:
            yield
        finally:
            now = running_loop()
            if now is not None and now is not previous and not now.is_closed():
                self.loop = now
                alive = previous is not None and not previous.is_closed()
                mark_running_loop(previous if alive else None)

    def resume(self) -> None:
        """Mark the parked loop again (once), for its owner's next call; nothing when none is parked."""
        loop, self.loop = self.loop, None
        if loop is not None and not loop.is_closed():
            mark_running_loop(loop)
