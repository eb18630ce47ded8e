"""Async work awaited from a thread whose loop is taken (Playwright's, during a web trail): the
background loop of ``async def`` tools, and ``run_in_loop`` under it (the MCP servers' too)."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from pytest_trailblaze.core.system.offloop import BackgroundLoop


async def double(value: int) -> tuple[int, str]:
    await asyncio.sleep(0)
    return value * 2, threading.current_thread().name


async def refuse() -> None:
    await asyncio.sleep(0)
    raise LookupError("no such user")


async def current_loop() -> asyncio.AbstractEventLoop:
    return asyncio.get_running_loop()


def test_the_result_comes_back_from_the_loops_thread() -> None:
    assert BackgroundLoop("tools-a").run(double, 21) == (42, "tools-a")


def test_it_works_where_the_thread_already_runs_a_loop() -> None:
    async def outer() -> tuple[int, str]:
        refused = double(1)
        with pytest.raises(RuntimeError, match="running event loop"):
            asyncio.run(refused)  # what a tool saw before: the thread's loop is taken
        refused.close()
        return BackgroundLoop("tools-b").run(double, 2)

    assert asyncio.run(outer())[0] == 4


def test_calls_share_one_loop_so_a_client_kept_between_them_works() -> None:
    tools = BackgroundLoop("tools-c")
    first = tools.run(current_loop)
    assert tools.run(current_loop) is first and first.is_running()


def test_the_coroutines_exception_is_raised_as_it_is() -> None:
    with pytest.raises(LookupError, match="no such user"):
        BackgroundLoop("tools-d").run(refuse)


def test_ctrl_c_cancels_the_coroutine_and_goes_on(tmp_path: Path) -> None:
    """The interrupt reaches the waiting thread; the coroutine's ``finally`` runs before it ends."""
    marker = tmp_path / "cleaned"
    script = textwrap.dedent(
        f"""
        import asyncio, os, signal, threading
        from pytest_trailblaze.core.system.offloop import ASYNC_TOOLS

        async def slow():
            try:
                await asyncio.sleep(60)
            finally:
                with open({str(marker)!r}, "w") as out:
                    out.write("yes")

        threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT)).start()
        try:
            ASYNC_TOOLS.run(slow)
        except KeyboardInterrupt:
            print("interrupted")
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=30)
    assert done.stdout.strip() == "interrupted", done.stderr
    assert marker.read_text() == "yes"
