"""Playwright's loop is marked on the main thread only while trails use it (``drivers/loopstate.py``).

Real Chromium. A "trail" here is what the plugin's driver fixture does: a block under
``left_as_found()`` that makes a driver, acts on its page and closes it. Afterwards the thread
must carry no loop of ours (``asyncio.run`` works, as pytest-asyncio and anyio need), the browser
must go on working in the next block, and another Playwright on the same thread (pytest-playwright's
is one) must keep working before, between and after.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import pytest
from playwright.sync_api import sync_playwright

from pytest_trailblaze.drivers.browser import BrowserHost, find_system_chromium
from pytest_trailblaze.drivers.browser_options import BrowserOptions
from pytest_trailblaze.drivers.loopstate import CallTimeout, bounded
from pytest_trailblaze.drivers.playwright import WebDriver


async def _tick() -> str:
    await asyncio.sleep(0)
    return "ran"


def _trail(host: BrowserHost, text: str) -> str:
    """One trail's use of the browser, as the driver fixture wraps it."""
    with host.loop.left_as_found():
        driver = WebDriver.open(host)
        try:
            driver.page.set_content(f"<h1>{text}</h1>")
            return driver.page.inner_text("h1")
        finally:
            driver.close()


@pytest.fixture
def host() -> Iterator[BrowserHost]:
    own = BrowserHost(BrowserOptions())
    try:
        yield own
    finally:
        own.close()


@pytest.fixture
def other_playwright() -> Iterator[object]:
    """A second Playwright on this thread started the way pytest-playwright starts its own."""
    saved = asyncio._get_running_loop()
    asyncio._set_running_loop(None)
    playwright = sync_playwright().start()
    browser = playwright.chromium.launch(executable_path=find_system_chromium())
    try:
        yield browser
    finally:
        browser.close()
        playwright.stop()
        asyncio._set_running_loop(saved)


def test_a_trail_leaves_no_loop_marked_and_the_browser_works_after_another_loop_ran(host) -> None:
    before = asyncio._get_running_loop()

    assert _trail(host, "first") == "first"
    assert asyncio._get_running_loop() is before
    asyncio._set_running_loop(None)
    try:
        assert asyncio.run(_tick()) == "ran"  # what an async test after a trail does
        assert _trail(host, "second") == "second"
        assert asyncio.run(_tick()) == "ran"
        host.close()
        assert asyncio._get_running_loop() is None
        assert asyncio.run(_tick()) == "ran"
    finally:
        asyncio._set_running_loop(before)


def test_another_playwright_on_the_thread_works_before_between_and_after_trails(
    host, other_playwright
) -> None:
    theirs = asyncio._get_running_loop()
    page = other_playwright.new_page()
    page.set_content("<b>page test</b>")

    assert _trail(host, "trail") == "trail"  # our Playwright starts although theirs is marked
    assert asyncio._get_running_loop() is theirs
    assert page.inner_text("b") == "page test"
    assert _trail(host, "again") == "again"
    assert page.inner_text("b") == "page test"
    page.close()


def test_our_playwright_started_first_lets_another_one_start_after_a_trail(host) -> None:
    saved = asyncio._get_running_loop()
    asyncio._set_running_loop(None)
    try:
        assert _trail(host, "trail") == "trail"
        playwright = sync_playwright().start()  # refused with "Sync API inside the asyncio loop" before
        try:
            browser = playwright.chromium.launch(executable_path=find_system_chromium())
            page = browser.new_page()
            page.set_content("<b>page test</b>")
            assert page.inner_text("b") == "page test"
            assert _trail(host, "after") == "after"
            assert page.inner_text("b") == "page test"
            browser.close()
        finally:
            playwright.stop()
    finally:
        asyncio._set_running_loop(saved)


def test_a_handed_context_stays_open_for_its_owner_without_the_trails_listeners(host, app_url: str) -> None:
    context = host.new_context()
    try:
        driver = WebDriver.handed(context, host.options)
        assert not driver.owned
        driver.page.goto(f"{app_url}/index.html")
        seen = len(driver.network_log.requests)
        assert seen > 0

        driver.close()
        driver.page.goto(f"{app_url}/index.html#counter")
        driver.page.reload()

        assert not context.pages[0].is_closed()
        assert len(driver.network_log.requests) == seen
        assert driver.network.pending == set()
    finally:
        context.close()


def test_an_answer_that_came_in_before_the_bound_is_not_lost_to_the_due_timer(host) -> None:
    """On a loaded machine the process may get no CPU past a call's bound while the page's
    answer comes in; the timer then comes due in the same turn of the loop as the answer, and
    the answer must win (a probe of a live page read as "busy" stopped its scripts)."""
    with host.loop.left_as_found():
        driver = WebDriver.open(host)
        try:
            loop = host.loop.loop
            assert loop is not None
            # the request is written in the loop's first turn; right after it, the process
            # "starves" for 2 s, past the bound of 0.1 s, while the answer arrives
            loop.call_soon(loop.call_soon, time.sleep, 2.0)
            with bounded(loop, 0.1):
                assert driver.page.evaluate("'answered'") == "answered"
            # a call still waiting when its bound runs out is stopped as before
            with pytest.raises(CallTimeout), bounded(loop, 0.5):
                driver.page.evaluate("new Promise(() => {})")
            assert driver.page.evaluate("'still fine'") == "still fine"
        finally:
            driver.close()
