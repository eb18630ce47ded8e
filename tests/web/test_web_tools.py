"""Every built-in web tool, dispatched through ``ToolRegistry.execute`` on real Chromium.

Each test checks the effect on the page (values, text, URL, cookies, viewport, files) with plain
Playwright calls, not just the tool's message. Failures must be ``ToolFailure`` (an
``AssertionError``) with a message a trail author can act on.
"""

from __future__ import annotations

import json
import shutil
import socket
import time
from pathlib import Path

import pytest

from pytest_trailblaze.core.errors import ToolArgumentError, ToolFailure, UnknownToolError
from pytest_trailblaze.core.tooling.context import ToolContext
from pytest_trailblaze.core.tooling.memory import MASK, Memory
from pytest_trailblaze.drivers.playwright import WebDriver

REPO = Path(__file__).resolve().parents[2]
SAMPLE_APP = REPO / "examples" / "sample-app"
INCREMENT = "css=#increment-btn"


def _closed_port() -> int:
    """A port of 127.0.0.1 that nothing listens on (it was free a moment ago)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def counter(page) -> str:
    return page.locator("#counter-value").inner_text()


def wait_for(page, expression: str, timeout: float = 2_000) -> None:
    """Scrolling by wheel is asynchronous in Chromium: poll until the page agrees."""
    page.wait_for_function(expression, timeout=timeout)


# -- web_navigate ------------------------------------------------------------------------------
class TestNavigate:
    def test_goto_absolute_url_opens_the_page(self, run, driver, app_url):
        result = run("web_navigate", action="GOTO", url=f"{app_url}/index.html")
        assert driver.page.url == f"{app_url}/index.html"
        assert driver.page.title() == "Trailblaze Test Fixture"
        assert result.message == f"Navigated to {app_url}/index.html"

    def test_goto_is_the_default_action(self, run, driver, app_url):
        run("web_navigate", url=f"{app_url}/duplicate-list.html")
        assert driver.page.title() == "Product List"

    def test_goto_interpolates_memory_tokens(self, run, ctx, driver, app_url):
        ctx.memory.set("baseUrl", app_url)
        run("web_navigate", url="{{baseUrl}}/search-duplicates.html")
        assert driver.page.url == f"{app_url}/search-duplicates.html"

    def test_goto_without_url_fails(self, run, driver):
        """The schema requires ``url`` with GOTO, so this is known before the call (and at collection)."""
        for url in ("", "   "):
            with pytest.raises(ToolArgumentError, match="web_navigate': missing required argument 'url'"):
                run("web_navigate", action="GOTO", url=url)
        with pytest.raises(ToolArgumentError, match="missing required argument 'url'"):
            run("web_navigate")
        assert driver.page.url == "about:blank"

    @pytest.mark.parametrize("refused", [False, True], ids=["unsafe-port", "refused-connection"])
    def test_goto_unreachable_url_is_a_tool_failure(self, run, driver, refused):
        # Chromium refuses port 1 itself; a closed port fails at once and shows its error page
        port = _closed_port() if refused else 1
        error = "ERR_CONNECTION_REFUSED" if refused else "ERR_UNSAFE_PORT"
        url = f"http://127.0.0.1:{port}/"
        started = time.monotonic()
        with pytest.raises(ToolFailure) as failed:
            run("web_navigate", url=url)
        # the load failed, it did not time out: no probe of the page, nothing "stopped"
        assert str(failed.value) == f"could not open {url}: Page.goto: net::{error} at {url}"
        assert time.monotonic() - started < 10
        # right now the page is between documents (its error page commits): the page guard's
        # probe must take that for a live page, not for a script that never yields
        driver.guard.check_alive("after the failed load", 1)
        assert driver.page.evaluate("1 + 1") == 2

    def test_back_and_forward_walk_the_history(self, run, driver, app_url):
        run("web_navigate", url=f"{app_url}/index.html")
        run("web_navigate", url=f"{app_url}/duplicate-list.html")
        back = run("web_navigate", action="BACK")
        assert driver.page.url == f"{app_url}/index.html"
        assert driver.page.title() == "Trailblaze Test Fixture"
        assert back.message == f"Went back to {app_url}/index.html"
        forward = run("web_navigate", action="forward")  # enum values are case-insensitive
        assert driver.page.url == f"{app_url}/duplicate-list.html"
        assert forward.message == f"Went forward to {app_url}/duplicate-list.html"

    def test_back_over_a_hash_change(self, run, driver, app_url):
        run("web_navigate", url=f"{app_url}/index.html")
        driver.page.get_by_role("link", name="Form").click()
        driver.page.wait_for_url("**/index.html#form")
        run("web_navigate", action="BACK")
        assert driver.page.url == f"{app_url}/index.html"

    def test_back_with_empty_history_fails(self, run, driver):
        with pytest.raises(ToolFailure, match=r"there is no page to go back to \(history is empty\)"):
            run("web_navigate", action="BACK")
        assert driver.page.url == "about:blank"

    def test_forward_at_the_end_of_history_fails(self, run, app_url):
        run("web_navigate", url=f"{app_url}/index.html")
        with pytest.raises(ToolFailure, match="there is no page to go forward to"):
            run("web_navigate", action="FORWARD")

    def test_invalid_action_is_an_argument_error(self, offline_run):
        with pytest.raises(ToolArgumentError, match="argument 'action'"):
            offline_run("web_navigate", action="RELOAD", url="x.html")


class TestRelativeUrls:
    def test_relative_to_the_trail_folder(self, run, driver, trail_path):
        page = trail_path.parent / "page.html"
        page.write_text("<title>Beside the trail</title><h1>Trail folder</h1>")
        result = run("web_navigate", url="page.html")
        assert driver.page.url == page.as_uri()
        assert driver.page.title() == "Beside the trail"
        assert result.message == f"Navigated to {page.as_uri()}"

    def test_relative_subfolder_of_the_trail_folder(self, run, driver, trail_path):
        page = trail_path.parent / "pages" / "deep.html"
        page.parent.mkdir()
        page.write_text("<title>Deep</title>")
        run("web_navigate", url="pages/deep.html")
        assert driver.page.url == page.as_uri()

    def test_falls_back_to_the_working_directory(self, run, driver, tmp_path, monkeypatch):
        cwd = tmp_path / "cwd"
        cwd.mkdir()
        (cwd / "only-here.html").write_text("<title>From cwd</title>")
        monkeypatch.chdir(cwd)
        run("web_navigate", url="only-here.html")
        assert driver.page.url == (cwd / "only-here.html").as_uri()
        assert driver.page.title() == "From cwd"

    def test_trail_folder_wins_over_the_working_directory(
        self, run, driver, trail_path, tmp_path, monkeypatch
    ):
        cwd = tmp_path / "cwd"
        cwd.mkdir()
        (cwd / "both.html").write_text("<title>cwd copy</title>")
        (trail_path.parent / "both.html").write_text("<title>trail copy</title>")
        monkeypatch.chdir(cwd)
        run("web_navigate", url="both.html")
        assert driver.page.title() == "trail copy"
        assert driver.page.url == (trail_path.parent / "both.html").as_uri()

    def test_fragment_is_kept(self, run, driver, monkeypatch):
        monkeypatch.chdir(REPO)
        run("web_navigate", url="examples/sample-app/index.html#counter")
        assert driver.page.url == (SAMPLE_APP / "index.html").as_uri() + "#counter"
        assert driver.page.locator("#section-counter").is_visible()
        assert not driver.page.locator("#section-home").is_visible()

    def test_fragment_is_kept_for_a_file_in_the_trail_folder(self, run, driver, trail_path):
        shutil.copy(SAMPLE_APP / "index.html", trail_path.parent / "app.html")
        run("web_navigate", url="app.html#form")
        assert driver.page.url == (trail_path.parent / "app.html").as_uri() + "#form"
        assert driver.page.locator("#name-input").is_visible()

    def test_query_is_kept(self, run, driver, trail_path):
        (trail_path.parent / "q.html").write_text("<title>q</title>")
        run("web_navigate", url="q.html?lang=en")
        assert driver.page.url == (trail_path.parent / "q.html").as_uri() + "?lang=en"
        assert driver.page.evaluate("location.search") == "?lang=en"


# -- URLs ----------------------------------------------------------------------------------------
class TestUrls:
    def test_current_url(self, run, open_app, app_url):
        open_app("index.html#about")
        assert run("web_currentUrl").message == f"{app_url}/index.html#about"

    def test_wait_for_url_already_matching(self, run, open_app, app_url):
        open_app("index.html#counter")
        assert run("web_waitForUrl", pattern="#counter$").message == f"{app_url}/index.html#counter"

    def test_wait_for_url_waits_for_a_later_change(self, run, open_app):
        page = open_app("index.html")
        page.evaluate("setTimeout(() => { location.hash = 'about'; }, 300)")
        start = time.perf_counter()
        result = run("web_waitForUrl", pattern=r"index\.html#about$", timeoutMs=5_000)
        assert time.perf_counter() - start >= 0.25
        assert result.message.endswith("index.html#about")
        assert page.url.endswith("#about")

    def test_wait_for_url_with_java_quoting(self, run, driver, app_url):
        driver.page.goto(f"{app_url}/index.html?x=(1)+2")
        # Unquoted, "(1)+2" would be a regex group and a quantifier and could not match.
        result = run("web_waitForUrl", pattern=r"\Qindex.html?x=(1)+2\E$", timeoutMs=2_000)
        assert result.message == f"{app_url}/index.html?x=(1)+2"

    def test_wait_for_url_quoting_makes_dots_literal(self, run, driver, app_url):
        driver.page.goto(f"{app_url}/index.html")
        with pytest.raises(ToolFailure, match=r"the URL never matched /\\Qindex_html\\E/"):
            run("web_waitForUrl", pattern=r"\Qindex_html\E", timeoutMs=300)
        assert run("web_waitForUrl", pattern=r"index.html", timeoutMs=300).message.endswith("index.html")

    def test_wait_for_url_timeout(self, run, open_app):
        open_app("index.html")
        start = time.perf_counter()
        with pytest.raises(
            ToolFailure, match=r"the URL never matched /never-there/: .*Timeout 300ms exceeded"
        ):
            run("web_waitForUrl", pattern="never-there", timeoutMs=300)
        assert time.perf_counter() - start < 3


# -- element actions -------------------------------------------------------------------------
class TestClick:
    def test_click_increments_the_counter(self, run, open_app):
        page = open_app("index.html#counter")
        first = run("web_click", ref=INCREMENT)
        run("web_click", ref=INCREMENT)
        assert counter(page) == "2"
        assert first.message == "Clicked css=#increment-btn"

    def test_click_reports_a_url_change(self, run, open_app, app_url):
        """Each tab link sets ``location.hash`` in its click handler (a same-document navigation).

        When ``web_click`` returns, the page URL must already be the new one, and the message
        says so. Several clicks in a row, because a race here shows up only some of the time.
        """
        page = open_app("index.html")
        for section in ("Form", "Counter", "About", "Scroll", "Home") * 2:
            result = run("web_click", ref=f'link "{section}"')
            url = f"{app_url}/index.html#{section.lower()}"
            assert (page.url, result.message) == (url, f'Clicked link "{section}" (URL changed to {url})')
            assert page.locator(f"#section-{section.lower()}").is_visible()

    def test_click_without_url_change_says_nothing_about_urls(self, run, open_app):
        open_app("index.html#counter")
        assert "URL changed" not in run("web_click", ref="css=#decrement-btn").message

    def test_click_ignores_reasoning_annotations(self, run, open_app):
        page = open_app("index.html#counter")
        run("web_click", ref=INCREMENT, reasoning="tap plus", reason="because")
        assert counter(page) == "1"

    def test_click_first_of_several_matches(self, run, open_app):
        page = open_app("duplicate-list.html")
        run("web_click", ref='button "View"')
        assert (
            page.locator("#detail-panel").inner_text() == "Selected: Premium Cable — Electronics (ID: elec-1)"
        )

    def test_click_unknown_argument_is_rejected(self, run, open_app):
        page = open_app("index.html#counter")
        with pytest.raises(ToolArgumentError, match="unknown argument 'selector'"):
            run("web_click", selector="#increment-btn")
        assert counter(page) == "0"

    def test_unknown_tool(self, offline_run):
        with pytest.raises(UnknownToolError, match="unknown tool 'web_clik'"):
            offline_run("web_clik", ref=INCREMENT)


class TestType:
    def test_type_replaces_the_content_by_default(self, run, open_app):
        page = open_app("index.html#form")
        page.fill("#name-input", "old text")
        result = run("web_type", text="Ada Lovelace", ref='textbox "Name"')
        assert page.input_value("#name-input") == "Ada Lovelace"
        assert result.message == 'Typed into textbox "Name"'

    def test_type_clear_first_false_appends(self, run, open_app):
        page = open_app("index.html#form")
        page.fill("#name-input", "Ada")
        run("web_type", text=" Lovelace", ref="css=#name-input", clearFirst=False)
        assert page.input_value("#name-input") == "Ada Lovelace"

    def test_type_clear_first_false_fires_key_events(self, run, open_app):
        page = open_app("search-duplicates.html")
        page.evaluate(
            "window.__keys = 0; document.getElementById('search-input')"
            ".addEventListener('keydown', () => window.__keys++)"
        )
        run("web_type", text="lamp", ref="css=#search-input", clearFirst="false")
        assert page.evaluate("window.__keys") == 4

    def test_type_interpolates_memory(self, run, ctx, open_app):
        page = open_app("index.html#form")
        ctx.memory.set("first", "Grace")
        run("web_type", text="{{first}} Hopper", ref="css=#name-input")
        assert page.input_value("#name-input") == "Grace Hopper"
        assert ctx.tool_log[-1].args["text"] == "Grace Hopper"

    def test_type_masks_memory_secrets_in_the_log(self, run, ctx, open_app):
        page = open_app("index.html#form")
        ctx.memory.set("password", "s3cr3t-pw", secret=True)
        run("web_type", text="{{password}}", ref="css=#email-input")
        assert page.input_value("#email-input") == "s3cr3t-pw"
        entry = ctx.tool_log[-1]
        assert entry.success
        assert entry.args["text"] == MASK
        assert "s3cr3t-pw" not in repr(entry)

    def test_type_requires_text(self, offline_run):
        with pytest.raises(ToolArgumentError, match="missing required argument 'text'"):
            offline_run("web_type", ref="css=#name-input")

    def test_type_into_an_ambiguous_ref_is_a_tool_failure(self, run, open_app):
        """A bare ``textbox`` matches three fields: Playwright's strict mode refuses ``fill``.

        That is the trail author's problem to fix, so it must surface as a ``ToolFailure``
        (pytest FAILED with an actionable message), not as a raw Playwright ``Error``.
        """
        page = open_app("index.html#form")
        with pytest.raises(ToolFailure, match="3 elements"):
            run("web_type", text="x", ref="textbox")
        assert page.input_value("#name-input") == ""


class TestHoverAndSelect:
    def test_hover_puts_the_mouse_over_the_element(self, run, open_app):
        page = open_app("index.html#counter")
        page.evaluate(
            "window.__over = 0; document.getElementById('increment-btn')"
            ".addEventListener('mouseover', () => window.__over++)"
        )
        result = run("web_hover", ref='button "Increment"')
        assert page.evaluate("window.__over") >= 1
        assert page.evaluate("document.getElementById('increment-btn').matches(':hover')")
        assert not page.evaluate("document.getElementById('reset-btn').matches(':hover')")
        assert counter(page) == "0"  # hovering does not click
        assert result.message == 'Hovered button "Increment"'

    def test_hover_by_node_selector(self, run, open_app):
        page = open_app("index.html")
        run("web_hover", nodeSelector={"web": {"cssSelector": "#nav-about"}})
        assert page.evaluate("document.getElementById('nav-about').matches(':hover')")

    def test_select_by_value(self, run, open_app):
        page = open_app("index.html#form")
        result = run("web_selectOption", values=["sales"], ref='combobox "Category"')
        assert page.input_value("#category-select") == "sales"
        assert result.message == 'Selected sales in combobox "Category"'

    def test_select_by_label(self, run, open_app):
        page = open_app("index.html#form")
        run("web_selectOption", values=["Feedback"], ref="css=#category-select")
        assert page.input_value("#category-select") == "feedback"
        assert (
            page.evaluate("document.getElementById('category-select').selectedOptions[0].text") == "Feedback"
        )

    def test_select_with_no_values_fails(self, run, open_app):
        page = open_app("index.html#form")
        with pytest.raises(ToolFailure, match="web_selectOption needs at least one value in `values`"):
            run("web_selectOption", values=[], ref="css=#category-select")
        assert page.input_value("#category-select") == ""

    def test_select_values_must_be_a_list(self, offline_run):
        with pytest.raises(ToolArgumentError, match="argument 'values'"):
            offline_run("web_selectOption", values={"a": 1}, ref="css=#category-select")


class TestFillSecret:
    SECRET = "hunter2-Xq9!"

    def test_fills_the_field_and_masks_the_value(self, run, ctx, open_app):
        page = open_app("index.html#form")
        result = run("web_fillSecret", ref='textbox "Email"', value=self.SECRET)
        assert page.input_value("#email-input") == self.SECRET
        entry = ctx.tool_log[-1]
        assert entry.name == "web_fillSecret"
        assert entry.success
        assert entry.args == {"ref": 'textbox "Email"', "value": MASK}
        assert self.SECRET not in result.message
        assert result.message == 'Filled textbox "Email" with a secret value'

    def test_failure_never_shows_the_value(self, run, ctx, open_app):
        """Filling a non-editable element fails; the secret must not leak into the error or log."""
        page = open_app("index.html#counter")
        with pytest.raises(ToolFailure) as info:
            run("web_fillSecret", ref="css=#counter-value", value=self.SECRET)
        assert self.SECRET not in str(info.value)
        assert info.value.arguments == {"ref": "css=#counter-value", "value": MASK}
        entry = ctx.tool_log[-1]
        assert not entry.success
        assert self.SECRET not in entry.message
        assert counter(page) == "0"

    def test_invalid_value_type_never_shows_the_value(self, offline_run, offline_ctx):
        with pytest.raises(ToolArgumentError, match="argument 'value'") as info:
            offline_run("web_fillSecret", ref="css=#email-input", value={"password": self.SECRET})
        assert self.SECRET not in str(info.value)
        assert self.SECRET not in offline_ctx.tool_log[-1].message

    def test_ref_is_required(self, offline_run):
        with pytest.raises(ToolArgumentError, match="missing required argument 'ref'"):
            offline_run("web_fillSecret", value="x")


class TestPressKey:
    def test_enter_triggers_the_search(self, run, open_app):
        page = open_app("search-duplicates.html")
        run("web_type", text="keyboard", ref='textbox "Search products"')
        assert page.locator("#result-count").inner_text() == "14 products"
        result = run("web_pressKey", key="Enter")
        assert page.locator("#result-count").inner_text() == '3 results for "keyboard"'
        assert page.locator("#results-list [role=listitem]").count() == 3
        assert result.message == "Pressed Enter"

    def test_chord_on_the_focused_element(self, run, open_app):
        page = open_app("index.html#form")
        run("web_type", text="some text", ref="css=#name-input")
        run("web_pressKey", key="Control+A")
        run("web_pressKey", key="Backspace")
        assert page.input_value("#name-input") == ""

    def test_unknown_key_is_a_tool_failure(self, run, open_app):
        open_app("index.html")
        with pytest.raises(ToolFailure, match="could not press 'NoSuchKey'"):
            run("web_pressKey", key="NoSuchKey")


class TestScroll:
    def test_page_scrolls_down_then_up(self, run, open_app):
        page = open_app("duplicate-list.html")
        page.set_viewport_size({"width": 800, "height": 400})
        result = run("web_scroll", direction="DOWN", amount=300)
        wait_for(page, "window.scrollY > 0")
        assert result.message == "Scrolled the page down by 300px"
        run("web_scroll", direction="UP", amount=300)
        wait_for(page, "window.scrollY === 0")

    def test_page_scrolls_right_then_left(self, run, open_app):
        page = open_app("index.html")
        page.evaluate(
            "document.body.insertAdjacentHTML('beforeend', "
            "'<div style=\"width: 4000px; height: 10px\"></div>')"
        )
        run("web_scroll", direction="RIGHT", amount=400)
        wait_for(page, "window.scrollX > 0")
        assert page.evaluate("window.scrollY") == 0
        run("web_scroll", direction="left", amount=400)
        wait_for(page, "window.scrollX === 0")

    def test_default_direction_is_down(self, run, open_app):
        page = open_app("duplicate-list.html")
        page.set_viewport_size({"width": 800, "height": 400})
        assert run("web_scroll").message == "Scrolled the page down by 500px"
        wait_for(page, "window.scrollY > 0")

    def test_scroll_container_by_ref(self, run, open_app):
        page = open_app("index.html#scroll")
        result = run("web_scroll", direction="DOWN", amount=200, ref="css=#content-panel")
        wait_for(page, "document.getElementById('content-panel').scrollTop > 0")
        assert page.evaluate("document.getElementById('sidebar-nav').scrollTop") == 0
        assert result.message == "Scrolled css=#content-panel down by 200px"
        run("web_scroll", direction="UP", amount=200, ref="css=#content-panel")
        wait_for(page, "document.getElementById('content-panel').scrollTop === 0")

    def test_scroll_container_by_node_selector(self, run, open_app):
        page = open_app("index.html#scroll")
        run(
            "web_scroll",
            amount=150,
            nodeSelector={"web": {"ariaRole": "navigation", "ariaNameRegex": "Sidebar navigation"}},
        )
        wait_for(page, "document.getElementById('sidebar-nav').scrollTop > 0")
        assert page.evaluate("document.getElementById('content-panel').scrollTop") == 0

    def test_scroll_container_sideways(self, run, open_app):
        page = open_app("index.html#scroll")
        page.evaluate(
            "document.getElementById('content-panel').insertAdjacentHTML('beforeend', "
            "'<div style=\"width: 3000px; height: 4px\"></div>')"
        )
        run("web_scroll", direction="RIGHT", amount=250, ref="css=#content-panel")
        wait_for(page, "document.getElementById('content-panel').scrollLeft > 0")
        run("web_scroll", direction="LEFT", amount=250, ref="css=#content-panel")
        wait_for(page, "document.getElementById('content-panel').scrollLeft === 0")

    def test_invalid_direction(self, offline_run):
        with pytest.raises(ToolArgumentError, match="argument 'direction'"):
            offline_run("web_scroll", direction="DIAGONAL")


# -- waiting, viewport, snapshots ------------------------------------------------------------
class TestWaitResizeSnapshot:
    def test_web_wait_is_clamped_to_at_least_one_second(self, run, open_app):
        open_app("index.html")
        start = time.perf_counter()
        result = run("web_wait", seconds=0)
        elapsed = time.perf_counter() - start
        assert 1.0 <= elapsed < 3
        assert result.message == "Waited 1 s"

    def test_common_wait_uses_the_driver(self, run, open_app):
        open_app("index.html")
        start = time.perf_counter()
        result = run("wait", timeToWaitInSeconds=0.3)
        assert 0.3 <= time.perf_counter() - start < 2
        assert result.message == "Waited 0.3 s"

    def test_resize_changes_the_viewport(self, run, driver, open_app):
        page = open_app("index.html")
        result = run("web_resize", width=640, height=480)
        assert page.viewport_size == {"width": 640, "height": 480}
        assert page.evaluate("[window.innerWidth, window.innerHeight]") == [640, 480]
        assert driver.device_info().width == 640
        assert result.message == "Resized the viewport to 640x480"

    def test_resize_needs_positive_sizes(self, run, open_app):
        page = open_app("index.html")
        for width, height, name in [(0, 480, "width"), (640, -1, "height")]:
            with pytest.raises(ToolArgumentError, match=f"argument '{name}': .*greater than or equal to 1"):
                run("web_resize", width=width, height=height)
        assert page.viewport_size == {"width": 1280, "height": 800}

    def test_resize_validates_types(self, offline_run):
        with pytest.raises(ToolArgumentError, match="argument 'width'"):
            offline_run("web_resize", width="wide", height=400)

    def test_web_snapshot_writes_screenshot_and_tree(self, run, ctx, open_app):
        open_app("index.html#counter")
        result = run("web_snapshot", screenName="Counter page!")
        folder = ctx.artifacts_dir / "snapshots"
        image, tree = folder / "Counter_page.png", folder / "Counter_page.hierarchy.txt"
        assert image.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert image.stat().st_size > 1_000
        text = tree.read_text(encoding="utf-8")
        assert 'heading "Counter"' in text
        assert 'button "Increment"' in text
        assert "Contact Form" not in text  # hidden sections are not in the tree
        assert str(image) in result.message

    def test_take_snapshot_with_description(self, run, ctx, open_app):
        open_app("index.html")
        result = run("takeSnapshot", screenName="home", description="after login")
        assert (ctx.artifacts_dir / "snapshots" / "home.png").is_file()
        assert (
            "Trailblaze Test Fixture" in (ctx.artifacts_dir / "snapshots" / "home.hierarchy.txt").read_text()
        )
        assert "(after login)" in result.message


# -- storage -------------------------------------------------------------------------------------
class TestStorage:
    def test_apply_cookie_array(self, run, driver, open_app, app_url):
        page = open_app("index.html")
        cookies = [{"name": "session", "value": "abc123", "url": app_url}]
        result = run("web_applyCookies", cookiesJson=json.dumps(cookies))
        assert result.message == "Applied 1 cookie(s)"
        assert [(c["name"], c["value"]) for c in driver.context.cookies()] == [("session", "abc123")]
        page.reload()
        assert "session=abc123" in page.evaluate("document.cookie")

    def test_apply_storage_state(self, run, driver, app_url):
        state = {
            "cookies": [
                {"name": "a", "value": "1", "domain": "127.0.0.1", "path": "/"},
                {"name": "b", "value": "2", "domain": "127.0.0.1", "path": "/"},
            ],
            "origins": [],
        }
        assert run("web_applyCookies", cookiesJson=json.dumps(state)).message == "Applied 2 cookie(s)"
        assert {c["name"]: c["value"] for c in driver.context.cookies(app_url)} == {"a": "1", "b": "2"}

    def test_apply_nothing(self, run, driver):
        for args in ({"cookiesJson": ""}, {"cookiesJson": "  "}, {}):
            assert run("web_applyCookies", args).message == "No cookies to apply"
        assert driver.context.cookies() == []

    def test_apply_invalid_json(self, run, driver):
        with pytest.raises(ToolFailure, match="cookiesJson is not valid JSON"):
            run("web_applyCookies", cookiesJson="[{name: 'x'")
        assert driver.context.cookies() == []

    def test_apply_wrong_shape(self, run):
        with pytest.raises(ToolFailure, match="must be a cookie array or a storage state"):
            run("web_applyCookies", cookiesJson='{"cookies": 5}')

    def test_apply_incomplete_cookie(self, run):
        with pytest.raises(ToolFailure, match="could not apply the cookies"):
            run("web_applyCookies", cookiesJson='[{"name": "x", "value": "1"}]')

    def test_get_storage_state(self, run, driver, open_app, app_url):
        page = open_app("index.html")
        page.evaluate("localStorage.setItem('theme', 'dark'); document.cookie = 'visited=yes'")
        state = json.loads(run("web_getStorageState").message)
        assert {(c["name"], c["value"]) for c in state["cookies"]} == {("visited", "yes")}
        origin = next(o for o in state["origins"] if o["origin"] == app_url)
        assert {"name": "theme", "value": "dark"} in origin["localStorage"]

    def test_storage_state_round_trip(self, run, driver, browser_host, registry, app_url):
        driver.context.add_cookies([{"name": "token", "value": "t-1", "url": app_url}])
        state = run("web_getStorageState").message
        other = WebDriver.open(browser_host)
        try:
            other_ctx = ToolContext(registry, Memory(), other.device_info(), other)
            registry.execute("web_applyCookies", {"cookiesJson": state}, other_ctx)
            assert [(c["name"], c["value"]) for c in other.context.cookies()] == [("token", "t-1")]
        finally:
            other.close()


class TestEvaluate:
    def test_results_as_text(self, run, open_app):
        open_app("index.html")
        assert run("web_evaluate", script="1 + 2").message == "3"  # JSON for non-strings
        assert (
            run("web_evaluate", script="document.title").message == "Trailblaze Test Fixture"
        )  # strings as-is
        message = run(
            "web_evaluate", script="() => ({items: document.querySelectorAll('#item-list li').length})"
        )
        assert json.loads(message.message) == {"items": 5}
        assert run("web_evaluate", script="[true, null]").message == "[true, null]"

    def test_script_changes_the_page(self, run, open_app):
        page = open_app("index.html#counter")
        run("web_evaluate", script="document.getElementById('counter-value').textContent = '42'")
        assert counter(page) == "42"

    def test_script_error_is_a_tool_failure(self, run, open_app):
        open_app("index.html")
        with pytest.raises(ToolFailure, match=r"the script failed: .*boom"):
            run("web_evaluate", script="() => { throw new Error('boom') }")


# -- verification ------------------------------------------------------------------------------
class TestVerifyText:
    def test_visible_text_case_insensitive_substring(self, run, open_app):
        open_app("index.html")
        assert run("web_verifyTextVisible", text="fully OFFLINE fixture").message == (
            "Text 'fully OFFLINE fixture' is visible"
        )

    def test_hidden_text_fails(self, run, open_app):
        """'Contact Form' is in the DOM but its section is hidden: presence is not visibility."""
        page = open_app("index.html")
        assert page.get_by_text("Contact Form").count() == 1
        with pytest.raises(
            ToolFailure, match=r"text 'Contact Form' is not visible on the page \(waited 5 s\)"
        ):
            run("web_verifyTextVisible", text="Contact Form")


class TestVerifyElement:
    def test_visible_element(self, run, open_app):
        open_app("index.html")
        assert run("web_verifyElementVisible", ref="css=#item-list").message == "css=#item-list is visible"

    def test_visible_by_node_selector(self, run, open_app):
        open_app("index.html#counter")
        result = run("web_verifyElementVisible", nodeSelector={"web": {"dataTestId": "counter-value"}})
        assert result.message == "nodeSelector.web(dataTestId='counter-value') is visible"

    def test_hidden_element_fails(self, run, open_app):
        page = open_app("index.html#form")
        assert page.locator("#form-result").count() == 1
        with pytest.raises(ToolFailure) as info:
            run("web_verifyElementVisible", ref="css=#form-result")
        message = str(info.value)
        assert message.startswith("css=#form-result: ")
        assert "No element found" not in message

    def test_missing_element_fails(self, run, open_app):
        open_app("index.html")
        with pytest.raises(ToolFailure, match=r"^No element found matching css=#does-not-exist$"):
            run("web_verifyElementVisible", ref="css=#does-not-exist")


class TestVerifyValue:
    def submit_form(self, run, page) -> None:
        run("web_type", text="Ada", ref="css=#name-input")
        run("web_type", text="ada@example.com", ref="css=#email-input")
        run("web_selectOption", values=["support"], ref="css=#category-select")
        run("web_click", ref='button "Submit"')
        assert page.locator("#form-result").is_visible()

    def test_text_contains(self, run, open_app):
        page = open_app("index.html#form")
        self.submit_form(run, page)
        result = run("web_verifyValue", ref="css=#form-summary", expected="Email: ada@example.com")
        assert result.message == "css=#form-summary has text 'Email: ada@example.com'"

    def test_text_falls_back_to_the_input_value(self, run, open_app):
        page = open_app("index.html#form")
        page.fill("#name-input", "Grace")
        result = run("web_verifyValue", type="TEXT", ref='textbox "Name"', expected="Grace")
        assert result.message == "textbox \"Name\" has text 'Grace'"

    def test_value(self, run, open_app):
        page = open_app("index.html#form")
        page.select_option("#category-select", "sales")
        result = run("web_verifyValue", type="value", ref="css=#category-select", expected="sales")
        assert result.message == "css=#category-select has value 'sales'"

    def test_attribute(self, run, open_app):
        open_app("index.html#form")
        result = run(
            "web_verifyValue",
            type="ATTRIBUTE",
            attribute="placeholder",
            ref="css=#email-input",
            expected="you@example.com",
        )
        assert result.message == "css=#email-input has attribute 'you@example.com'"

    def test_attribute_needs_the_attribute_name(self, run, open_app):
        open_app("index.html#form")
        start = time.perf_counter()
        with pytest.raises(ToolFailure, match="web_verifyValue with type ATTRIBUTE needs `attribute`"):
            run("web_verifyValue", type="ATTRIBUTE", ref="css=#email-input", expected="x")
        assert time.perf_counter() - start < 2

    def test_counter_value_by_test_id_after_clicks(self, run, open_app):
        open_app("index.html#counter")
        run("web_click", ref='button "Increment"')
        run("web_click", ref='button "Increment"')
        run("web_click", ref='button "Decrement"')
        result = run("web_verifyValue", nodeSelector={"web": {"dataTestId": "counter-value"}}, expected="1")
        assert result.success


class TestVerifyList:
    def test_all_items_shown(self, run, open_app):
        open_app("index.html")
        result = run("web_verifyListVisible", ref="css=#item-list", items=["Alpha", "Charlie", "Echo"])
        assert result.message == "css=#item-list shows all 3 items"

    def test_missing_items_are_listed(self, run, open_app):
        open_app("index.html")
        with pytest.raises(ToolFailure, match=r"^css=#item-list does not show: 'Zulu', 'Yankee'$"):
            run("web_verifyListVisible", ref="css=#item-list", items=["Alpha", "Zulu", "Bravo", "Yankee"])

    def test_items_outside_the_container_do_not_count(self, run, open_app):
        open_app("search-duplicates.html")
        # "Product Search" is on the page, but not inside the results list.
        with pytest.raises(ToolFailure, match="does not show: 'Product Search'"):
            run("web_verifyListVisible", ref='list "Search results"', items=["Desk Lamp", "Product Search"])

    def test_needs_items(self, run, open_app):
        open_app("index.html")
        with pytest.raises(ToolFailure, match="needs at least one item"):
            run("web_verifyListVisible", ref="css=#item-list", items=[])


# -- platform-neutral tools on web -----------------------------------------------------------
class TestCommonAndMemoryTools:
    def test_launch_app_is_a_no_op_on_web(self, run, open_app, app_url):
        page = open_app("index.html#counter")
        run("web_click", ref=INCREMENT)
        result = run("launchApp", appId="com.example.app", launchMode="FORCE_RESTART")
        assert result.message == "launchApp is a no-op on web (com.example.app)"
        assert page.url == f"{app_url}/index.html#counter"
        assert counter(page) == "1"  # the page was not reloaded

    def test_assert_equals_with_tokens(self, offline_run, offline_ctx):
        offline_ctx.memory.set("count", "3")
        assert offline_run("assertEquals", actual="{{count}}", expected="3").success
        with pytest.raises(ToolFailure, match="expected '4' but got '3'"):
            offline_run("assertEquals", actual="{{count}}", expected="4")

    def test_assert_equals_reads_the_page_through_memory(self, run, ctx, open_app):
        page = open_app("index.html#counter")
        run("web_click", ref=INCREMENT)
        ctx.memory.set("shown", counter(page))
        assert run("assertEquals", actual="${shown}", expected="1").success

    def test_assert_not_equals(self, offline_run, offline_ctx):
        offline_ctx.memory.set("before", "0")
        offline_ctx.memory.set("after", "1")
        assert offline_run("assertNotEquals", actual="{{after}}", expected="{{before}}").success
        with pytest.raises(ToolFailure, match="expected a value other than '0'"):
            offline_run("assertNotEquals", actual="{{before}}", expected="0")

    def test_assert_math(self, offline_run, offline_ctx):
        offline_ctx.memory.set("price", "19.99")
        offline_ctx.memory.set("qty", "3")
        assert (
            offline_run("assertMath", expression="{{price}} * {{qty}}", expected="59.97").message
            == "19.99 * 3 = 59.97"
        )
        assert offline_run("assertMath", expression="2 ^ 10", expected="1024").success

    def test_assert_math_mismatch(self, offline_run):
        with pytest.raises(ToolFailure, match=r"^1 \+ 1 = 2, expected 3$"):
            offline_run("assertMath", expression="1 + 1", expected="3")

    def test_assert_math_rejects_screen_reads(self, offline_run):
        with pytest.raises(ToolFailure, match=r"reads values from the screen with \[\[\.\.\.\]\]"):
            offline_run("assertMath", expression="[[total]] + 1", expected="2")

    def test_assert_math_rejects_code(self, offline_run):
        with pytest.raises(ToolFailure, match="unsupported element"):
            offline_run("assertMath", expression="__import__('os').getcwd()", expected="0")

    def test_assert_math_tool_log(self, offline_run, offline_ctx):
        offline_ctx.memory.set("secret", "42", secret=True)
        with pytest.raises(ToolFailure):
            offline_run("assertMath", expression="{{secret}} + 1", expected="0")
        entry = offline_ctx.tool_log[-1]
        assert not entry.success
        assert "42" not in entry.message
        assert entry.args["expression"] == f"{MASK} + 1"

    def test_dump_memory_masks_secrets(self, offline_run, offline_ctx):
        assert offline_run("dumpMemory").message == "memory is empty"
        offline_ctx.memory.set("user", "ada")
        offline_ctx.memory.set("password", "pa55word", secret=True)
        assert offline_run("dumpMemory").message == f"password = {MASK}\nuser = ada"
