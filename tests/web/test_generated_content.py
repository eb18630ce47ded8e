"""``eN`` refs to elements named by CSS generated content (``::before`` / ``::after``).

The ARIA snapshot shows such names (``- checkbox: ✔``, ``- listitem: ✔ Updates docs``) but no
text a locator can match holds them: a ref the numbering produced must still reach the element
it numbered. Checked on ``tests/web/pages/generated-content.html`` and on the real TodoMVC app
from npm, by the effect of each action on the page.
"""

from __future__ import annotations

import pytest

from pytest_trailblaze.core.screen import aria


def log(page) -> str:
    return page.locator("#log").inner_text()


def numbered(driver) -> list[tuple[str, str]]:
    return [(ref, e.descriptor) for ref, e in aria.number_elements(driver.hierarchy()).items()]


class TestGeneratedContentPage:
    def test_numbering_shows_the_generated_names(self, driver, open_test_page):
        open_test_page("generated-content.html")
        assert numbered(driver) == [
            ("e1", 'heading "Tasks"'),
            ("e2", 'checkbox "✔"'),
            ("e3", 'checkbox "✔"'),
            ("e4", 'listitem "✔ Updates docs"'),
            ("e5", 'listitem "✔ Updates tests"'),
            ("e6", 'button "×"'),
        ]

    def test_click_a_checkbox_named_by_after_content(self, run, open_test_page):
        page = open_test_page("generated-content.html")
        run("web_click", ref="e3")
        assert page.is_checked("#toggle-read")
        assert not page.is_checked("#toggle-walk")
        run("web_click", ref="[e2]")
        assert page.is_checked("#toggle-walk")

    def test_click_a_list_item_whose_text_starts_with_before_content(self, run, open_test_page):
        page = open_test_page("generated-content.html")
        run("web_click", ref="e5")
        assert log(page) == "clicked done-tests"
        run("web_click", ref="e4")
        assert log(page) == "clicked done-docs"

    def test_verify_tools_reach_the_numbered_element(self, run, open_test_page):
        open_test_page("generated-content.html")
        assert run("web_verifyElementVisible", ref="e2").message == "e2 is visible"
        run("web_verifyValue", ref="e4", expected="Updates docs")
        run("web_verifyValue", ref="e2", type="ATTRIBUTE", attribute="id", expected="toggle-walk")
        run("web_hover", ref="e5")

    def test_name_only_from_generated_content(self, run, open_test_page):
        page = open_test_page("generated-content.html")
        run("web_click", ref="e6")  # button "×"
        assert log(page) == "closed"

    def test_frames_are_not_numbered(self, run, driver, open_test_page):
        """A frame's own "×" button is not e6; the main page's is, as before the frame came."""
        page = open_test_page("generated-content.html")
        page.evaluate(
            "document.querySelector('h1').insertAdjacentHTML('beforebegin',"
            " '<iframe srcdoc=\"<button>×</button><input type=checkbox>\"></iframe>')"
        )
        page.frame_locator("iframe").locator("button").wait_for()
        assert numbered(driver)[5] == ("e6", 'button "×"')
        run("web_click", ref="e6")
        assert log(page) == "closed"
        run("web_click", ref="e2")
        assert page.is_checked("#toggle-walk")

    def test_ids_follow_the_page_as_it_changes(self, run, open_test_page):
        """After the click the log paragraph has text and is numbered too: e7."""
        page = open_test_page("generated-content.html")
        run("web_click", ref="e4")
        run("web_verifyValue", ref="e7", expected="clicked done-docs")
        page.evaluate("document.querySelector('#finished li').remove()")
        run("web_click", ref="e4")  # now "✔ Updates tests"
        assert log(page) == "clicked done-tests"


class TestTodoMvc:
    """TodoMVC's vanillajs app (npm ``todomvc``): each todo's ✔ toggle is named by ``::after``."""

    @pytest.fixture
    def todos(self, run, todomvc_url):
        run("web_navigate", url=f"{todomvc_url}/index.html")
        for title in ("Updates docs", "Buy milk"):
            run("web_type", ref="e2", text=title)  # textbox "What needs to be done?"
            run("web_pressKey", key="Enter")
        return run

    def test_the_toggles_are_numbered(self, todos, driver):
        assert numbered(driver)[:6] == [
            ("e1", 'heading "todos"'),
            ("e2", 'textbox "What needs to be done?"'),
            ("e3", 'checkbox "Mark all as complete"'),
            ("e4", 'checkbox "✔"'),
            ("e5", 'checkbox "✔"'),
            ("e6", 'strong "2"'),
        ]

    def test_complete_a_todo_by_its_ref(self, todos, driver):
        todos("web_click", ref="e5")  # the toggle of "Buy milk"
        page = driver.page
        assert page.locator("#todo-list li.completed").inner_text().strip() == "Buy milk"
        todos("web_verifyTextVisible", text="1 item left")
        todos("web_click", ref="e4")
        todos("web_verifyTextVisible", text="0 items left")
        assert page.locator("#todo-list li.completed").count() == 2
