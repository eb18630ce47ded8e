"""Element resolution (docs/upstream.md, Element references on the web) on the real sample app:
every ref form and ``nodeSelector.web``.

Targets are checked by their effect (which button was clicked, which field holds the text), so a
ref that resolves to the wrong element fails the test.
"""

from __future__ import annotations

import dataclasses
import time

import pytest

from pytest_trailblaze.core.errors import ToolArgumentError, ToolFailure
from pytest_trailblaze.core.screen import aria


def detail(page) -> str:
    return page.locator("#detail-panel").inner_text()


def counter(page) -> str:
    return page.locator("#counter-value").inner_text()


def add_html(page, html: str, where: str = "main") -> None:
    page.evaluate(
        "([where, html]) => document.querySelector(where).insertAdjacentHTML('beforeend', html)",
        [where, html],
    )


# -- css= ----------------------------------------------------------------------------------------
class TestCssRefs:
    def test_css_id(self, run, open_app):
        page = open_app("index.html#counter")
        run("web_click", ref="css=#increment-btn")
        assert counter(page) == "1"

    def test_css_descendant_selector_picks_the_row(self, run, open_app):
        page = open_app("duplicate-list.html")
        run("web_click", ref="css=[data-id='office-1'] button")
        assert detail(page) == "Selected: Premium Cable — Office Supplies (ID: office-1)"

    def test_css_ref_is_a_plain_css_locator(self, driver, open_app):
        open_app("index.html#counter")
        locator, described = driver.locate("css=.counter-buttons button", None)
        assert locator.evaluate_all("els => els.map(e => e.id)") == [
            "decrement-btn",
            "increment-btn",
            "reset-btn",
        ]
        assert described == "css=.counter-buttons button"


# -- eN ids ----------------------------------------------------------------------------------------
class TestElementIds:
    def test_form_fields_by_id(self, run, open_app):
        """Upstream's numbering of index.html#form: e9 Name, e10 Email, e11 Category, e16 Message,
        e17 Submit."""
        page = open_app("index.html#form")
        run("web_type", text="Ada", ref="e9")
        run("web_type", text="ada@example.com", ref="[e10]")
        run("web_selectOption", values=["Sales"], ref="e11")
        run("web_type", text="Hello there", ref="e16")
        run("web_click", ref="[e17]")
        assert page.locator("#form-summary").inner_text() == (
            "Name: Ada, Email: ada@example.com, Category: sales, Message: Hello there"
        )

    def test_ids_in_the_navigation(self, run, open_app):
        page = open_app("index.html")
        run("web_verifyElementVisible", ref="e1")  # heading "Trailblaze Test Fixture"
        run("web_click", ref="e5")  # link "Counter"
        page.wait_for_url("**#counter")
        assert page.locator("#section-counter").is_visible()

    def test_ids_are_numbered_on_the_current_page(self, run, open_app):
        """e9 is the welcome paragraph on Home, the Name field once the Form section is open."""
        page = open_app("index.html")
        run("web_verifyValue", ref="e9", expected="fully offline fixture")
        run("web_click", ref="e4")  # link "Form"
        page.wait_for_url("**#form")
        run("web_type", text="Ada", ref="e9")
        assert page.input_value("#name-input") == "Ada"

    def test_option_ids(self, driver, open_app):
        open_app("index.html#form")
        locator, _ = driver.locate("e14", None)
        assert locator.evaluate("el => [el.tagName, el.value]") == ["OPTION", "sales"]

    def test_duplicates_use_their_occurrence(self, run, open_app):
        """duplicate-list.html: e4 e5 e6 are Electronics' View buttons, e8 the first Office one."""
        page = open_app("duplicate-list.html")
        run("web_click", ref="e8")
        assert detail(page) == "Selected: Premium Cable — Office Supplies (ID: office-1)"
        run("web_click", ref="e13")
        assert detail(page) == "Selected: Premium Cable — Accessories (ID: acc-2)"
        run("web_click", ref="e5")
        assert detail(page) == "Selected: Premium Cable — Electronics (ID: elec-2)"

    def test_text_content_element(self, run, open_app):
        """Counter section: e9 is ``paragraph: "Current value: 0"`` (no name, only text)."""
        page = open_app("index.html#counter")
        run("web_verifyValue", ref="e9", expected="Current value: 0")
        run("web_click", ref="e11")  # button "Increment"
        assert counter(page) == "1"
        # A fresh snapshot: e9 is now the paragraph with the new text.
        run("web_verifyElementVisible", ref="e9")
        run("web_verifyValue", ref="e9", expected="Current value: 1")

    def test_text_content_list_items(self, run, open_app):
        page = open_app("index.html")
        page.evaluate(
            "document.querySelectorAll('#item-list li').forEach(li =>"
            " li.addEventListener('click', () => { window.__clicked = li.textContent; }))"
        )
        run("web_click", ref="e13")  # listitem: Charlie
        assert page.evaluate("window.__clicked") == "Charlie"

    def test_text_content_with_collapsed_whitespace(self, run, driver, open_app):
        """The snapshot collapses whitespace ('Line one line two'); the element is still found."""
        page = open_app("index.html#counter")
        add_html(page, "<p id='wrapped'>Line   one\n      line two</p>", "#section-counter .card")
        assert page.locator("#wrapped").is_visible()
        numbered = aria.number_elements(driver.hierarchy())
        assert numbered["e13"] == aria.AriaElement("e13", "paragraph", "Line one line two", 0, True)
        result = run("web_verifyElementVisible", ref="e13")
        assert result.message == "e13 is visible"
        run("web_verifyValue", ref="e13", expected="line two")

    def test_unnamed_elements_count_every_element_of_their_role(self, run, open_app):
        """Two unlabelled inputs after the form are ``- textbox`` e18 and e19, the 4th and 5th textboxes."""
        page = open_app("index.html#form")
        add_html(page, "<input id='anon-1'><input id='anon-2'>")
        run("web_type", text="second", ref="e19")
        run("web_type", text="first", ref="e18")
        assert page.input_value("#anon-2") == "second"
        assert page.input_value("#anon-1") == "first"
        assert page.input_value("#name-input") == ""

    def test_names_that_yaml_must_quote_are_numbered(self, run, open_app):
        """A button named "Total: 5" prints as ``- 'button "Total: 5"'`` in the snapshot.

        It is an interactive element like any other, so it takes e9 (right after the heading
        "Counter", e8) and shifts the paragraph and the counter buttons by one.
        """
        page = open_app("index.html#counter")
        page.evaluate(
            "document.querySelector('#section-counter h2').insertAdjacentHTML('afterend',"
            ' \'<button id="total" onclick="window.__total = 1">Total: 5</button>\')'
        )
        run("web_click", ref="e9")
        assert page.evaluate("window.__total") == 1
        run("web_click", ref="e12")  # button "Increment"
        assert counter(page) == "1"

    def test_unknown_id_without_selector_fails_at_once(self, run, open_app):
        open_app("index.html#form")
        start = time.perf_counter()
        with pytest.raises(
            ToolFailure, match=r"element id e99 is not on the current page \(it has e1\.\.e17\)"
        ):
            run("web_click", ref="e99")
        assert time.perf_counter() - start < 3


# -- ARIA descriptors --------------------------------------------------------------------------
class TestAriaDescriptors:
    def test_quoted_name(self, run, open_app):
        page = open_app("index.html#form")
        run("web_type", text="Grace", ref='textbox "Name"')
        run("web_click", ref='button "Submit"')
        assert page.locator("#form-result").is_visible()
        assert "Name: Grace" in page.locator("#form-summary").inner_text()

    def test_quoted_name_is_exact(self, driver, open_app):
        open_app("index.html#counter")
        assert driver.locate('button "Incr"', None)[0].count() == 0
        assert driver.locate('button "increment"', None)[0].count() == 0
        assert driver.locate('button "Increment"', None)[0].count() == 1

    def test_trailing_attributes_are_ignored(self, run, open_app):
        page = open_app("index.html#counter")
        run("web_click", ref='button "Increment" [ref=e11] [cursor=pointer]')
        assert counter(page) == "1"
        run("web_verifyElementVisible", ref='heading "Counter" [level=2]')

    def test_bare_role(self, run, open_app):
        page = open_app("search-duplicates.html")
        run("web_type", text="hub", ref="textbox")  # the only textbox on the page
        run("web_click", ref='button "Search"')
        assert page.locator("#result-count").inner_text() == '2 results for "hub"'
        run("web_verifyElementVisible", ref="main")

    def test_unquoted_name(self, run, open_app):
        page = open_app("index.html#form")
        run("web_click", ref="link Home")
        page.wait_for_url("**#home")
        assert page.locator("#section-home").is_visible()

    def test_single_quoted_name(self, run, open_app):
        page = open_app("index.html")
        run("web_click", ref="link 'About'")
        page.wait_for_url("**#about")
        assert page.locator("#version").inner_text() == "1.0.0"

    def test_bare_label_falls_back_to_a_button(self, run, open_app):
        page = open_app("index.html#counter")
        run("web_click", ref='button "Increment"')
        run("web_click", ref='button "Increment"')
        assert counter(page) == "2"
        run("web_click", ref="Reset")
        assert counter(page) == "0"

    def test_label_starting_with_a_role_word_falls_back_to_the_whole_text(self, run, open_app):
        """'Search products': 'search' is a landmark role with no such element; the textbox wins."""
        page = open_app("search-duplicates.html")
        run("web_type", text="lamp", ref="Search products")
        assert page.input_value("#search-input") == "lamp"

    def test_field_label_falls_back_to_get_by_label(self, run, open_app):
        """A spin button is not among the fallback roles: only ``get_by_label`` finds it."""
        page = open_app("index.html#form")
        add_html(page, "<label for='qty'>Quantity</label><input id='qty' type='number'>", "#contact-form")
        run("web_type", text="3", ref="Quantity")
        assert page.input_value("#qty") == "3"

    def test_plain_text_falls_back_to_get_by_text(self, run, open_app):
        page = open_app("index.html")
        page.evaluate(
            "document.querySelectorAll('#item-list li').forEach(li =>"
            " li.addEventListener('click', () => { window.__clicked = li.textContent; }))"
        )
        run("web_click", ref="Delta")
        assert page.evaluate("window.__clicked") == "Delta"
        run("web_verifyElementVisible", ref="Welcome")  # a heading: not a fallback role, found by text


# -- nodeSelector.web ------------------------------------------------------------------------------
class TestNodeSelector:
    def test_css_selector(self, run, open_app):
        page = open_app("index.html")
        run("web_click", nodeSelector={"web": {"cssSelector": "#nav-form"}})
        assert page.locator("#section-form").is_visible()

    def test_data_test_id(self, run, open_app):
        page = open_app("search-duplicates.html")
        run("web_type", text="stand", nodeSelector={"web": {"cssSelector": "#search-input"}})
        run("web_click", nodeSelector={"web": {"dataTestId": "search-button"}})
        assert page.locator("#result-count").inner_text() == '3 results for "stand"'

    def test_data_test_id_form_result(self, run, open_app):
        open_app("index.html#form")
        run("web_type", text="Ada", ref="css=#name-input")
        run("web_click", ref='button "Submit"')
        run(
            "web_verifyValue", nodeSelector={"web": {"dataTestId": "form-result"}}, expected="Form submitted!"
        )

    def test_aria_role_and_name_regex(self, run, open_app):
        page = open_app("index.html#counter")
        for pattern in ("Increment", "^Increment$", r"\QIncrement\E"):
            run("web_click", nodeSelector={"web": {"ariaRole": "button", "ariaNameRegex": pattern}})
        assert counter(page) == "3"

    def test_quoted_name_regex_with_regex_characters(self, run, open_app):
        page = open_app("search-duplicates.html")
        selector = {
            "web": {
                "ariaRole": "listitem",
                "ariaNameRegex": r"\QWireless Mouse - Bluetooth, White - $29.99\E",
            }
        }
        run("web_click", nodeSelector=selector)
        assert (
            page.locator("#detail-view").inner_text()
            == "Viewing: Wireless Mouse — Bluetooth, White, $29.99 (ID: 2)"
        )

    def test_aria_role_only(self, run, open_app):
        page = open_app("search-duplicates.html")
        run("web_type", text="desk", nodeSelector={"web": {"ariaRole": "textbox"}})
        assert page.input_value("#search-input") == "desk"

    def test_heading_by_role_and_name(self, run, open_app):
        open_app("index.html#form")
        result = run(
            "web_verifyElementVisible",
            nodeSelector={"web": {"ariaRole": "heading", "ariaNameRegex": "Contact Form"}},
        )
        assert (
            result.message == "nodeSelector.web(ariaRole='heading', ariaNameRegex='Contact Form') is visible"
        )

    def test_nth_index_with_role(self, run, open_app):
        page = open_app("duplicate-list.html")
        run("web_click", nodeSelector={"web": {"ariaRole": "button", "ariaNameRegex": "View", "nthIndex": 3}})
        assert detail(page) == "Selected: Premium Cable — Office Supplies (ID: office-1)"

    def test_nth_index_with_css(self, run, open_app):
        page = open_app("duplicate-list.html")
        run("web_click", nodeSelector={"web": {"cssSelector": ".list-item button", "nthIndex": 7}})
        assert detail(page) == "Selected: Premium Cable — Accessories (ID: acc-2)"

    def test_stale_id_with_a_good_selector(self, run, open_app):
        """Recorded trails carry a stale ``ref: eN``; the node selector still finds the element."""
        page = open_app("index.html#counter")
        run("web_click", ref="e42", nodeSelector={"web": {"cssSelector": "#increment-btn"}})
        assert counter(page) == "1"

    def test_missing_descriptor_ref_with_a_good_selector(self, run, open_app):
        page = open_app("index.html#counter")
        run("web_click", ref='button "Gone"', nodeSelector={"web": {"dataTestId": "counter-value"}})
        run(
            "web_click",
            ref='button "No longer here"',
            nodeSelector={"web": {"ariaRole": "button", "ariaNameRegex": "Increment"}},
        )
        assert counter(page) == "1"

    def test_index_only_selector_falls_back_to_the_ref(self, run, open_app):
        """test-duplicate-list step 3 upstream: ``nodeSelector: {index: 2}`` plus ``ref: e5``."""
        page = open_app("duplicate-list.html")
        run("web_click", ref="e5", nodeSelector={"index": 2})
        assert detail(page) == "Selected: Premium Cable — Electronics (ID: elec-2)"

    def test_selector_of_another_driver_falls_back_to_the_ref(self, run, open_app):
        page = open_app("index.html#counter")
        run("web_click", ref="css=#increment-btn", nodeSelector={"androidAccessibility": {"textRegex": "+"}})
        assert counter(page) == "1"

    def test_element_ref_is_required(self, run, open_app):
        page = open_app("index.html#counter")
        unusable = [
            {},
            {"ref": "   "},
            {"ref": "", "nodeSelector": {"index": 2}},
            {"nodeSelector": {"web": {"headingLevel": 2}}},
            {"nodeSelector": {"web": {"ariaDescriptorRegex": "Increment"}}},
            {"ref": "", "nodeSelector": {"androidAccessibility": {"textRegex": "Submit"}}},
        ]
        for args in unusable:
            start = time.perf_counter()
            with pytest.raises(ToolFailure, match="Element ref is required"):
                run("web_click", args)
            assert time.perf_counter() - start < 3, args
        assert counter(page) == "0"

    def test_misspelt_selector_field_is_an_argument_error(self, run, open_app):
        open_app("index.html#counter")
        with pytest.raises(ToolArgumentError, match=r"nodeSelector\.web\.css"):
            run("web_click", nodeSelector={"web": {"css": "#increment-btn"}})


# -- the attach wait -------------------------------------------------------------------------------
class TestAttachWait:
    def test_element_added_after_the_click_is_issued(self, run, open_app):
        page = open_app("index.html#counter")
        page.evaluate(
            "setTimeout(() => document.querySelector('.counter-buttons').insertAdjacentHTML("
            "'beforeend', '<button id=\"late\" onclick=\"window.__late = 1\">Late</button>'), 1500)"
        )
        start = time.perf_counter()
        run("web_click", ref='button "Late"')
        elapsed = time.perf_counter() - start
        assert page.evaluate("window.__late") == 1
        assert 1.3 <= elapsed < 8

    def test_never_appearing_element(self, run, open_app):
        open_app("index.html#counter")
        start = time.perf_counter()
        with pytest.raises(ToolFailure) as info:
            run("web_click", ref="css=#never", nodeSelector={"web": {"dataTestId": "not-there"}})
        elapsed = time.perf_counter() - start
        assert str(info.value) == (
            "No element found matching nodeSelector.web(dataTestId='not-there') or css=#never (waited 10 s)"
        )
        assert 9.5 <= elapsed < 14


# -- actions the page refuses ----------------------------------------------------------------------
def with_action_timeout(driver, ms: int) -> None:
    driver.options = dataclasses.replace(driver.options, action_timeout_ms=ms)


MODAL = "<dialog id='consent'>We use cookies <button>Accept</button></dialog>"


class TestRefusedActions:
    def test_click_under_a_modal_fails_in_the_action_timeout_with_the_reason(self, run, driver, open_app):
        page = open_app("index.html#counter")
        with_action_timeout(driver, 2_000)
        add_html(page, MODAL, "body")
        page.evaluate("document.getElementById('consent').showModal()")
        with pytest.raises(ToolFailure) as info:
            run("web_click", ref="css=#increment-btn")
        assert str(info.value) == (
            'css=#increment-btn: Locator.click timed out after 2 s: <dialog open="" id="consent">…</dialog>'
            " intercepts pointer events"
        )
        page.get_by_role("button", name="Accept").click()
        assert counter(page) == "0"

    def test_the_attach_wait_counts_towards_the_action_timeout(self, run, driver, open_app):
        """The element is there at once but covered: 11 s in all, not 10 s of attach wait + 11 s."""
        page = open_app("index.html#counter")
        with_action_timeout(driver, 11_000)
        add_html(page, MODAL, "body")
        page.evaluate("document.getElementById('consent').showModal()")
        refused = r"timed out after 11 s: <dialog .*> intercepts pointer events$"
        with pytest.raises(ToolFailure, match=refused):
            run("web_click", ref='button "Increment"')

    def test_disabled_field_names_the_reason(self, run, driver, open_app):
        page = open_app("index.html#form")
        with_action_timeout(driver, 1_000)
        page.evaluate("document.getElementById('name-input').disabled = true")
        with pytest.raises(ToolFailure) as info:
            run("web_type", ref='textbox "Name"', text="Ada")
        assert str(info.value) == 'textbox "Name": Locator.fill timed out after 1 s: element is not enabled'

    def test_a_short_action_timeout_keeps_the_attach_wait(self, run, driver, open_app):
        """An element that appears after the action timeout but within 10 s is still clicked."""
        page = open_app("index.html#counter")
        with_action_timeout(driver, 1_000)
        page.evaluate(
            "setTimeout(() => document.querySelector('.counter-buttons').insertAdjacentHTML("
            "'beforeend', '<button id=\"late\" onclick=\"window.__late = 1\">Late</button>'), 2500)"
        )
        run("web_click", ref='button "Late"')
        assert page.evaluate("window.__late") == 1

    def test_modal_closed_within_the_timeout_lets_the_click_through(self, run, driver, open_app):
        page = open_app("index.html#counter")
        with_action_timeout(driver, 5_000)
        add_html(page, MODAL, "body")
        page.evaluate(
            "document.getElementById('consent').showModal();"
            " setTimeout(() => document.getElementById('consent').close(), 700)"
        )
        run("web_click", ref="css=#increment-btn")
        assert counter(page) == "1"
