"""The post-action settle (docs/upstream.md, Element references on the web): wait for what an
action started, and only for that.

* an action that started requests returns once they have drained (plus the quiet window);
* an action that navigated returns once the new page fired ``load``;
* an action that started nothing returns at once.

The slow responses come from the test server's ``/slow`` and ``/slow-page`` endpoints (conftest).
"""

from __future__ import annotations

import time

import pytest

SLOW_MS = 700

LOAD_BUTTON = (
    "<button id='load' onclick=\"window.__done = false;"
    " fetch('/slow?ms=" + str(SLOW_MS) + "').then(r => r.json()).then(j => { window.__done = j.ok; })\">"
    "Load data</button>"
)


def add_html(page, html: str, where: str = ".counter-buttons") -> None:
    page.evaluate(
        "([where, html]) => document.querySelector(where).insertAdjacentHTML('beforeend', html)",
        [where, html],
    )


def timed(call):
    start = time.perf_counter()
    result = call()
    return result, time.perf_counter() - start


class TestRequestsDrain:
    def test_click_waits_for_the_fetch_it_started(self, run, open_app):
        page = open_app("index.html#counter")
        add_html(page, LOAD_BUTTON)
        _, elapsed = timed(lambda: run("web_click", ref='button "Load data"'))
        # Checked right after the tool returned, without any waiting of our own.
        assert page.evaluate("window.__done") is True
        assert elapsed >= SLOW_MS / 1000

    def test_click_waits_for_a_fetch_started_in_a_microtask(self, run, open_app):
        """Seen without a round trip of ours: Playwright's click ends with one in Chromium."""
        page = open_app("index.html#counter")
        add_html(
            page,
            "<button id='later' onclick=\"window.__done = false; Promise.resolve().then(() =>"
            " fetch('/slow?ms=" + str(SLOW_MS) + "')).then(r => r.json())"
            ".then(j => { window.__done = j.ok; })\">Later</button>",
        )
        _, elapsed = timed(lambda: run("web_click", ref="css=#later"))
        assert page.evaluate("window.__done") is True
        assert elapsed >= SLOW_MS / 1000

    def test_click_waits_for_an_xhr(self, run, open_app):
        page = open_app("index.html#counter")
        add_html(
            page,
            "<button id='xhr' onclick=\"const x = new XMLHttpRequest(); window.__xhr = 0;"
            " x.onload = () => { window.__xhr = x.status; };"
            " x.open('GET', '/slow?ms=" + str(SLOW_MS) + "'); x.send();\">XHR</button>",
        )
        run("web_click", ref="css=#xhr")
        assert page.evaluate("window.__xhr") == 200

    @pytest.mark.parametrize(
        ("event", "start"),
        [("change", "fetch(url)"), ("input", "Promise.resolve().then(() => fetch(url))")],
        ids=["at-once", "in-a-microtask"],
    )
    def test_select_waits_for_the_fetch_its_handler_started(self, run, open_app, event, start):
        """Seen without a round trip of ours: the select's own script in the page fires the events."""
        page = open_app("index.html#form")
        page.evaluate(
            "([event, url]) => document.getElementById('category-select').addEventListener(event, () => {"
            f" window.__done = false; {start}.then(r => r.json())"
            ".then(j => { window.__done = j.ok; }); })",
            [event, f"/slow?ms={SLOW_MS}"],
        )
        _, elapsed = timed(lambda: run("web_selectOption", values=["feedback"], ref="css=#category-select"))
        assert page.evaluate("window.__done") is True
        assert elapsed >= SLOW_MS / 1000

    def test_key_press_waits_for_the_fetch_it_started(self, run, open_app):
        page = open_app("search-duplicates.html")
        page.evaluate(
            "document.getElementById('search-input').addEventListener('keydown', e => {"
            " if (e.key === 'Enter') fetch('/slow?ms=" + str(SLOW_MS) + "')"
            ".then(r => r.json()).then(j => { window.__searched = j.ok; }); })"
        )
        run("web_click", ref="css=#search-input")
        run("web_pressKey", key="Enter")
        assert page.evaluate("window.__searched") is True


class TestNavigation:
    def test_click_on_a_link_waits_for_load(self, run, open_app, app_url):
        page = open_app("index.html#counter")
        add_html(page, f"<a id='go' href='/slow-page?ms={SLOW_MS}'>Slow page</a>")
        result, elapsed = timed(lambda: run("web_click", ref='link "Slow page"'))
        target = f"{app_url}/slow-page?ms={SLOW_MS}"
        assert page.url == target
        assert page.evaluate("document.readyState") == "complete"
        assert page.evaluate("document.getElementById('loaded').textContent") == "loaded"
        assert result.message == f'Clicked link "Slow page" (URL changed to {target})'
        assert elapsed >= SLOW_MS / 1000

    def test_form_post_navigation_waits_for_load(self, run, open_app, app_url):
        page = open_app("index.html#counter")
        add_html(
            page,
            f"<form id='f' action='/slow-page' method='get'><input type='hidden' name='ms'"
            f" value='{SLOW_MS}'><button id='send'>Send</button></form>",
        )
        run("web_click", ref="css=#send")
        assert page.url == f"{app_url}/slow-page?ms={SLOW_MS}"
        assert page.evaluate("document.readyState") == "complete"

    def test_back_to_another_document_waits_for_load(self, run, open_app, app_url):
        page = open_app("index.html")
        page.goto(f"{app_url}/slow-page?ms=100")
        run("web_navigate", action="BACK")
        assert page.url == f"{app_url}/index.html"
        assert page.evaluate("document.readyState") == "complete"
        assert page.locator("#item-list li").count() == 5


class TestNoRequest:
    def test_click_that_starts_nothing_returns_at_once(self, run, open_app):
        """No request, no navigation: no quiet window either (the minimum of three is < 400 ms)."""
        page = open_app("index.html#counter")
        run("web_click", ref="css=#increment-btn")  # warm up the locator path
        times = [timed(lambda: run("web_click", ref="css=#increment-btn"))[1] for _ in range(3)]
        assert counter_value(page) == "4"
        assert min(times) < 0.4, times

    def test_type_that_starts_nothing_returns_at_once(self, run, open_app):
        page = open_app("index.html#form")
        times = [timed(lambda: run("web_type", text="Ada", ref="css=#name-input"))[1] for _ in range(3)]
        assert page.input_value("#name-input") == "Ada"
        assert min(times) < 0.4, times


def counter_value(page) -> str:
    return page.locator("#counter-value").inner_text()
