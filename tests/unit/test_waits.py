"""Ctrl-C ends the trail's thread's waits on other threads at once, whichever thread the kernel
handed the signal to (``core/system/waits.py``).

Each case runs in a fresh interpreter whose main thread waits on a helper thread, as the trail's
thread waits on the MCP servers' loop; the signal goes to the helper threads only
(``pthread_kill``), the delivery that used to leave the wait asleep for its whole length.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from pytest_trailblaze.core.system import waits

REPO = Path(__file__).resolve().parents[2]

#: Runs the wait named by argv[1] for up to 30 s while a thread sends SIGINT to every other
#: thread but the main one; prints how long the wait took to end and how.
SCRIPT = textwrap.dedent(
    """
    import asyncio, queue, signal, sys, threading, time
    from pytest_trailblaze.core.system import waits
    from pytest_trailblaze.mcp.server import Portal

    async def never_starts(task_status):
        await asyncio.sleep(30)

    async def sleeps():
        await asyncio.sleep(30)

    portal = Portal()
    events = queue.SimpleQueue()
    worker = threading.Thread(target=time.sleep, args=(30,), daemon=True)
    worker.start()
    waits_by_name = {
        "portal start": lambda: portal.start_task(never_starts),
        "portal call": lambda: portal.call(sleeps),
        "loop run": lambda: portal.run(sleeps),
        "queue": lambda: waits.get(events, 30),
    }
    wait = waits_by_name[sys.argv[1]]
    portal.get()  # the loop's thread runs before the wait begins

    def kick():
        time.sleep(0.5)
        for thread in threading.enumerate():
            if thread is not threading.main_thread() and thread is not threading.current_thread():
                signal.pthread_kill(thread.ident, signal.SIGINT)

    threading.Thread(target=kick, daemon=True).start()
    began = time.monotonic()
    try:
        wait()
        print("ended", round(time.monotonic() - began, 2))
    except KeyboardInterrupt:
        print("interrupted", round(time.monotonic() - began, 2))
    began = time.monotonic()
    portal.close()
    print("closed", round(time.monotonic() - began, 2))
    """
)


@pytest.mark.parametrize("wait", ["portal start", "portal call", "loop run", "queue"])
def test_a_signal_another_thread_took_still_ends_the_wait(wait: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, wait], cwd=REPO, capture_output=True, text=True, timeout=60
    )

    assert done.returncode == 0, done.stderr
    how, took = done.stdout.split()[:2]
    assert how == "interrupted", done.stdout
    # kicked at 0.5 s; a slice is 0.2 s; a busy machine gets a second on top
    assert float(took) < 0.5 + waits.SLICE_S + 1.0, done.stdout
    closed = float(done.stdout.split()[3])
    assert closed < 5, f"the loop's unfinished task was waited for: {done.stdout}"


def test_waits_give_what_they_wait_for_and_keep_their_timeouts() -> None:
    import queue
    import threading
    from concurrent.futures import Future

    future: Future[int] = Future()
    threading.Timer(0.3, future.set_result, (7,)).start()
    assert waits.result(future, 5) == 7

    failed: Future[int] = Future()
    failed.set_exception(TimeoutError("the work's own timeout"))
    with pytest.raises(TimeoutError, match="the work's own timeout"):
        waits.result(failed, 5)  # raised at once, not mistaken for the wait's

    with pytest.raises(TimeoutError, match=r"no answer within 0\.5 s"):
        waits.result(Future(), 0.5)

    lock = threading.Lock()
    lock.acquire()
    assert waits.acquire(lock, 0.3) is False
    threading.Timer(0.3, lock.release).start()
    assert waits.acquire(lock) is True

    events: queue.SimpleQueue[str] = queue.SimpleQueue()
    with pytest.raises(queue.Empty):
        waits.get(events, 0.3)
    threading.Timer(0.3, events.put, ("ready",)).start()
    assert waits.get(events, 5) == "ready"
