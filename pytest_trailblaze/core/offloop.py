"""Running an ``async def`` tool while the trail's thread cannot host an event loop.

During a web trail the main thread carries Playwright's loop, marked as running (see
``drivers/loopstate.py``), so ``asyncio.run`` there fails. An ``async def`` tool (an HTTP client, a
database seed, anything with an async API) gets an event loop of its own on a short-lived thread
instead; the trail's thread waits for it. Ctrl-C while waiting cancels the coroutine (its
``finally`` blocks and ``async with`` exits run), then the interrupt goes on as usual.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")
#: How long a cancelled coroutine may take to unwind after Ctrl-C before the interrupt goes on.
CANCEL_GRACE_S = 5.0


def run_off_thread(coro: Coroutine[Any, Any, T], name: str = "trailblaze-async-tool") -> T:
    """``asyncio.run(coro)`` on a thread of its own; its result, or its exception, here."""
    outcome: dict[str, Any] = {}
    ready, finished = threading.Event(), threading.Event()
    handles: dict[str, Any] = {}

    async def main() -> T:
        handles["task"], handles["loop"] = asyncio.current_task(), asyncio.get_running_loop()
        ready.set()
        return await coro

    def body() -> None:
        try:
            outcome["value"] = asyncio.run(main())
        except BaseException as exc:  # handed to the waiting thread as it is
            outcome["error"] = exc
        finally:
            ready.set()
            finished.set()

    # Waiting on an event, not ``join()``: a join that Ctrl-C interrupted returns at once after.
    threading.Thread(target=body, name=name, daemon=True).start()
    try:
        finished.wait()
    except KeyboardInterrupt:
        ready.wait(CANCEL_GRACE_S)
        task, loop = handles.get("task"), handles.get("loop")
        if task is not None and loop is not None:
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: nothing to cancel
                loop.call_soon_threadsafe(task.cancel)
        finished.wait(CANCEL_GRACE_S)
        raise
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]
