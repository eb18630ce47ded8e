"""drivers/aria.py: eN numbering of ARIA snapshots and ARIA descriptors, pure text
(docs/upstream.md, Element numbering)."""

from __future__ import annotations

import textwrap

import pytest

from pytest_trailblaze.core.screen.aria import (
    AriaElement,
    Descriptor,
    element_id,
    literal_name,
    number_elements,
    parse_descriptor,
    parse_line,
)

# What Playwright 1.65 prints for examples/sample-app/index.html#form (headless Chromium).
FORM_SNAPSHOT = textwrap.dedent(
    """\
    - document:
      - banner:
        - heading "Trailblaze Test Fixture" [level=1]
        - navigation "Main navigation":
          - link "Home":
            - /url: "#home"
          - link "Form":
            - /url: "#form"
          - link "Counter":
            - /url: "#counter"
          - link "About":
            - /url: "#about"
          - link "Scroll":
            - /url: "#scroll"
      - main:
        - heading "Contact Form" [level=2]
        - text: Name
        - textbox "Name":
          - /placeholder: Enter your name
        - text: Email
        - textbox "Email":
          - /placeholder: you@example.com
        - text: Category
        - combobox "Category":
          - option "Select a category" [selected]
          - option "Support"
          - option "Sales"
          - option "Feedback"
        - text: Message
        - textbox "Message"
        - button "Submit"
    """
)

COUNTER_MAIN = textwrap.dedent(
    """\
    - main:
      - heading "Counter" [level=2]
      - paragraph: "Current value: 0"
      - button "Decrement": "-"
      - button "Increment": +
      - button "Reset"
    """
)

DUPLICATE_LIST = textwrap.dedent(
    """\
    - main:
      - heading "Product List" [level=1]
      - paragraph: Several rows below share the same product name.
      - heading "Electronics" [level=2]
      - text: Premium Cable Electronics
      - button "View"
      - text: Premium Cable Electronics
      - button "View"
      - heading "Office Supplies" [level=2]
      - text: Premium Cable Office Supplies
      - button "View"
    """
)


def summary(snapshot: str) -> list[tuple[str, str, str | None, int, bool]]:
    return [(e.ref, e.role, e.name, e.nth, e.from_text) for e in number_elements(snapshot).values()]


def lines(*rows: str) -> str:
    return "\n".join(rows)


# -- numbering --------------------------------------------------------------------------------
class TestNumbering:
    def test_sample_app_form_matches_the_recorded_ids(self):
        numbered = number_elements(FORM_SNAPSHOT)
        assert [(ref, e.descriptor) for ref, e in numbered.items()] == [
            ("e1", 'heading "Trailblaze Test Fixture"'),
            ("e2", 'navigation "Main navigation"'),
            ("e3", 'link "Home"'),
            ("e4", 'link "Form"'),
            ("e5", 'link "Counter"'),
            ("e6", 'link "About"'),
            ("e7", 'link "Scroll"'),
            ("e8", 'heading "Contact Form"'),
            ("e9", 'textbox "Name"'),
            ("e10", 'textbox "Email"'),
            ("e11", 'combobox "Category"'),
            ("e12", 'option "Select a category"'),
            ("e13", 'option "Support"'),
            ("e14", 'option "Sales"'),
            ("e15", 'option "Feedback"'),
            ("e16", 'textbox "Message"'),
            ("e17", 'button "Submit"'),
        ]
        assert all(e.nth == 0 and not e.from_text for e in numbered.values())

    def test_ids_are_keyed_by_ref(self):
        numbered = number_elements(FORM_SNAPSHOT)
        assert numbered["e17"] == AriaElement("e17", "button", "Submit", 0, False)
        assert numbered["e17"].ref == "e17"

    def test_empty_snapshot(self):
        assert number_elements("") == {}

    @pytest.mark.parametrize(
        "role",
        [
            "button",
            "link",
            "textbox",
            "combobox",
            "searchbox",
            "checkbox",
            "radio",
            "switch",
            "tab",
            "menuitem",
            "option",
            "slider",
            "spinbutton",
        ],
    )
    def test_interactive_roles_are_numbered_even_without_a_name(self, role):
        assert summary(f"- {role}") == [("e1", role, None, 0, False)]

    @pytest.mark.parametrize(
        "role",
        "heading img alert dialog status progressbar meter tooltip cell columnheader rowheader".split(),
    )
    def test_content_roles_need_a_name(self, role):
        assert summary(lines(f"- {role}", f'- {role} "Named"')) == [("e1", role, "Named", 0, False)]

    @pytest.mark.parametrize("role", ["navigation", "main", "region", "list", "form", "banner", "article"])
    def test_named_landmarks_and_containers_are_numbered(self, role):
        snapshot = lines(f"- {role}:", "  - button", f'- {role} "Area":', "  - link")
        assert [(e.ref, e.role, e.name) for e in number_elements(snapshot).values()] == [
            ("e1", "button", None), ("e2", role, "Area"), ("e3", "link", None),
        ]  # fmt: skip

    @pytest.mark.parametrize("role", ["generic", "none", "presentation"])
    def test_generic_roles_are_never_numbered(self, role):
        assert number_elements(lines(f'- {role} "Has a name"', f"- {role}: some text")) == {}

    @pytest.mark.parametrize("role", ["text", "foo", "customwidget"])
    def test_unknown_roles_count_as_generic(self, role):
        assert number_elements(lines(f'- {role} "Name"', f"- {role}: words", "- button")) == {
            "e1": AriaElement("e1", "button", None, 0, False)
        }

    def test_text_and_property_lines_are_skipped(self):
        snapshot = lines(
            "- text: Name",
            '- link "Home":',
            '  - /url: "#home"',
            "- /placeholder: Enter your name",
            "- document:",
            '- textbox "Name"',
        )
        assert summary(snapshot) == [("e1", "link", "Home", 0, False), ("e2", "textbox", "Name", 0, False)]

    def test_text_content_elements_are_flagged(self):
        assert summary(COUNTER_MAIN) == [
            ("e1", "heading", "Counter", 0, False),
            ("e2", "paragraph", "Current value: 0", 0, True),
            ("e3", "button", "Decrement", 0, False),
            ("e4", "button", "Increment", 0, False),
            ("e5", "button", "Reset", 0, False),
        ]

    def test_list_items_with_text(self):
        snapshot = lines("- list:", "  - listitem: Alpha", "  - listitem: Bravo", "  - listitem")
        assert summary(snapshot) == [
            ("e1", "listitem", "Alpha", 0, True),
            ("e2", "listitem", "Bravo", 0, True),
        ]

    def test_a_name_wins_over_text_content(self):
        snapshot = '- region "Content panel": Item 1 Item 2 Item 3'
        assert summary(snapshot) == [("e1", "region", "Content panel", 0, False)]

    def test_duplicates_get_increasing_nth(self):
        assert summary(DUPLICATE_LIST) == [
            ("e1", "heading", "Product List", 0, False),
            ("e2", "paragraph", "Several rows below share the same product name.", 0, True),
            ("e3", "heading", "Electronics", 0, False),
            ("e4", "button", "View", 0, False),
            ("e5", "button", "View", 1, False),
            ("e6", "heading", "Office Supplies", 0, False),
            ("e7", "button", "View", 2, False),
        ]

    def test_nth_is_per_role_and_name(self):
        snapshot = lines('- button "A"', '- link "A"', '- button "B"', '- button "A"', '- link "A"')
        assert summary(snapshot) == [
            ("e1", "button", "A", 0, False),
            ("e2", "link", "A", 0, False),
            ("e3", "button", "B", 0, False),
            ("e4", "button", "A", 1, False),
            ("e5", "link", "A", 1, False),
        ]

    def test_text_duplicates_get_increasing_nth(self):
        snapshot = lines("- paragraph: Same", "- paragraph: Other", "- paragraph: Same")
        assert [(e.name, e.nth) for e in number_elements(snapshot).values()] == [
            ("Same", 0), ("Other", 0), ("Same", 1),
        ]  # fmt: skip

    def test_text_and_name_of_the_same_words_are_distinct_keys(self):
        # get_by_role(name=...) and get_by_role().filter(has_text=...) are different locators.
        snapshot = lines('- listitem "Alpha"', "- listitem: Alpha")
        assert [(e.name, e.nth, e.from_text) for e in number_elements(snapshot).values()] == [
            ("Alpha", 0, False), ("Alpha", 0, True),
        ]  # fmt: skip

    def test_unnamed_elements_count_every_element_of_their_role(self):
        """get_by_role('textbox') returns named textboxes too, so they count for the nth."""
        snapshot = lines(
            '- textbox "Name"', '- textbox "Email"', "- textbox", '- textbox "Message"', "- textbox"
        )
        assert [(e.ref, e.name, e.nth) for e in number_elements(snapshot).values()] == [
            ("e1", "Name", 0), ("e2", "Email", 0), ("e3", None, 2), ("e4", "Message", 0), ("e5", None, 4),
        ]  # fmt: skip

    def test_unnamed_nth_counts_text_content_elements_and_skipped_ones_of_the_role(self):
        snapshot = lines("- button: Go", "- heading", "- button", "- heading", '- heading "H"')
        numbered = number_elements(snapshot)
        assert [(e.ref, e.role, e.name, e.nth) for e in numbered.values()] == [
            ("e1", "button", "Go", 0), ("e2", "button", None, 1), ("e3", "heading", "H", 0),
        ]  # fmt: skip

    def test_numbering_follows_document_order_across_nesting(self):
        snapshot = lines(
            '- navigation "Top":',
            '  - link "A":',
            '    - /url: "#a"',
            "  - list:",
            '    - listitem: "Item: one"',
            '- button "Last"',
        )
        assert [(e.ref, e.descriptor) for e in number_elements(snapshot).values()] == [
            ("e1", 'navigation "Top"'),
            ("e2", 'link "A"'),
            ("e3", 'listitem "Item: one"'),
            ("e4", 'button "Last"'),
        ]

    def test_names_that_yaml_must_quote_are_numbered(self):
        """Playwright wraps a line in single quotes when the name holds ': ' (YAML syntax).

        ``- 'button "Total: 5"'`` is still a button; skipping it would shift every later id.
        """
        snapshot = lines('- heading "Cart"', "- 'button \"Total: 5\"'", '- button "Pay"')
        assert summary(snapshot) == [
            ("e1", "heading", "Cart", 0, False),
            ("e2", "button", "Total: 5", 0, False),
            ("e3", "button", "Pay", 0, False),
        ]

    def test_quoted_line_with_escaped_quotes(self):
        snapshot = '- \'button "a: b \\"c\\""\''
        assert summary(snapshot) == [("e1", "button", 'a: b "c"', 0, False)]


# -- Playwright's refs of the same elements (AI snapshot) --------------------------------------
# What Playwright 1.65 prints for TodoMVC's vanillajs app (npm `todomvc`) with two todos: the
# checkboxes' "✔" comes from CSS `::after`, the AI snapshot adds generic wrappers and the
# visible-but-unnamed "✖" of the destroy buttons.
TODO_DEFAULT = textwrap.dedent(
    """\
    - document:
      - heading "todos" [level=1]
      - textbox "What needs to be done?"
      - checkbox "Mark all as complete": »
      - list:
        - listitem:
          - checkbox: ✔
          - text: Updates docs
        - listitem:
          - checkbox: ✔
          - text: Buy milk
      - strong: "2"
      - text: items left
    """
)
TODO_AI = textwrap.dedent(
    """\
    - generic [ref=e1]:
      - generic [ref=e2]:
        - generic [ref=e3]:
          - heading "todos" [level=1] [ref=e4]
          - textbox "What needs to be done?" [active] [ref=e5]
        - generic [ref=e6]:
          - checkbox "Mark all as complete" [ref=e7]: »
          - list [ref=e8]:
            - listitem [ref=e9]:
              - generic [ref=e10]:
                - checkbox [ref=e11]: ✔
                - generic [ref=e12]: Updates docs
                - text: ✖
            - listitem [ref=e13]:
              - generic [ref=e14]:
                - checkbox [ref=e15]: ✔
                - generic [ref=e16]: Buy milk
                - text: ✖
        - generic [ref=e17]:
          - generic [ref=e18]:
            - strong [ref=e19]: "2"
            - text: items left
    """
)


def aria_refs(default: str, ai: str) -> dict[str, str | None]:
    return {ref: e.aria_ref for ref, e in number_elements(default, ai).items()}


class TestAriaRefs:
    def test_todomvc_generated_content_checkboxes(self):
        assert aria_refs(TODO_DEFAULT, TODO_AI) == {
            "e1": "e4",
            "e2": "e5",
            "e3": "e7",
            "e4": "e11",
            "e5": "e15",
            "e6": "e19",
        }

    def test_numbering_is_the_default_snapshots(self):
        with_refs = number_elements(TODO_DEFAULT, TODO_AI)
        assert [(e.ref, e.role, e.name, e.nth, e.from_text) for e in with_refs.values()] == summary(
            TODO_DEFAULT
        )

    def test_without_an_ai_snapshot_there_are_no_refs(self):
        assert set(aria_refs(TODO_DEFAULT, "").values()) == {None}
        assert all(e.aria_ref is None for e in number_elements(TODO_DEFAULT).values())

    def test_hidden_duplicate_is_skipped(self):
        """An aria-hidden but visible "Save" shows in the AI snapshot as nameless text only."""
        default = lines('- button "Save"', '- button "Next"')
        ai = lines("- button [ref=e3]: Save", '- button "Save" [ref=e4]', '- button "Next" [ref=e5]')
        assert aria_refs(default, ai) == {"e1": "e4", "e2": "e5"}

    def test_name_repeated_by_a_child_is_dropped_in_ai_mode(self):
        default = lines('- heading "Docs" [level=2]:', '  - link "Docs":', '    - /url: "#x"')
        ai = lines("- heading [level=2] [ref=e5]:", '  - link "Docs" [ref=e6] [cursor=pointer]:')
        assert aria_refs(default, ai) == {"e1": "e5", "e2": "e6"}

    def test_elements_without_a_ref_fall_back(self):
        """Options of a closed <select> and nameless images: no ref, the rest still lines up."""
        default = lines(
            '- combobox "Category":',
            '  - option "Support" [selected]',
            '  - option "Sales"',
            "- img",
            '- button "Go"',
        )
        ai = lines(
            '- combobox "Category" [ref=e2]:',
            '  - option "Support" [selected]',
            '  - option "Sales"',
            '- button "Go" [ref=e4] [cursor=pointer]',
        )
        assert aria_refs(default, ai) == {"e1": "e2", "e2": None, "e3": None, "e4": "e4"}

    def test_a_line_missing_from_the_ai_snapshot_shifts_nothing(self):
        """A nameless image is dropped in AI mode; it must not take the clickable image's ref."""
        default = lines("- img", '- link "Home"', "- img", '- button "Go"')
        ai = lines('- link "Home" [ref=e2]', "- img [ref=e3] [cursor=pointer]", '- button "Go" [ref=e4]')
        numbered = number_elements(default, ai)
        assert [(e.ref, e.role, e.aria_ref) for e in numbered.values()] == [
            ("e1", "link", "e2"),
            ("e2", "button", "e4"),
        ]

    def test_a_large_page_of_repeated_rows(self):
        """3,000 elements, no line unique: every row still gets its own refs, in order."""
        default, ai = ["- list:"], ["- list [ref=e1]:"]
        for row in range(1000):
            default += ["  - listitem:", f'    - link "Item {row % 50}"', '    - button "Delete"']
            default += ["    - checkbox"]
            ai += [
                f"  - listitem [ref=r{row}]:",
                f"    - generic [ref=g{row}]:",
                f'      - link "Item {row % 50}" [ref=l{row}]',
                f'      - button "Delete" [ref=b{row}]',
                f"      - checkbox [ref=c{row}]",
            ]
        refs = aria_refs(lines(*default), lines(*ai))
        assert len(refs) == 3000
        assert (refs["e1"], refs["e2"], refs["e3"], refs["e3000"]) == ("l0", "b0", "c0", "c999")

    def test_frame_content_is_excluded(self):
        default = lines("- iframe", '- button "After"')
        ai = lines("- iframe [ref=e15]:", '  - button "After" [ref=f1e2]', '- button "After" [ref=e16]')
        assert aria_refs(default, ai) == {"e1": "e16"}

    def test_text_that_differs_still_pairs_by_role(self):
        """Visible-but-hidden text (a destroy button's "✖") joins the item's text in AI mode."""
        default = lines("- listitem: Updates docs", '- link "All"')
        ai = lines("- listitem [ref=e9]: Updates docs ✖", '- link "All" [ref=e22]')
        assert aria_refs(default, ai) == {"e1": "e9", "e2": "e22"}

    def test_yaml_quoted_ai_line(self):
        default = lines('- button "Total: 5"')
        ai = lines("- 'button \"Total: 5\" [ref=e7] [cursor=pointer]'")
        assert aria_refs(default, ai) == {"e1": "e7"}


class TestParseLine:
    @pytest.mark.parametrize(
        ("line", "expected"),
        [
            ('- button "Submit"', ("button", "Submit", False)),
            ('    - heading "Title" [level=1]', ("heading", "Title", False)),
            ('- checkbox "Agree" [checked] [disabled]', ("checkbox", "Agree", False)),
            ('- link "Home":', ("link", "Home", False)),
            ('- button "Decrement": "-"', ("button", "Decrement", False)),
            ('- button "Say \\"hi\\""', ("button", 'Say "hi"', False)),
            ("- paragraph: Version: 1.0.0", ("paragraph", "Version: 1.0.0", True)),
            ('- paragraph: "Current value: 0"', ("paragraph", "Current value: 0", True)),
            ("- paragraph: 'It''s here'", ("paragraph", "It's here", True)),
            ("- main:", ("main", None, False)),
            ("- textbox", ("textbox", None, False)),
            ("- option [selected]", ("option", None, False)),
        ],
    )
    def test_lines(self, line, expected):
        assert parse_line(line) == expected

    @pytest.mark.parametrize(
        "line", ["- text: Name", '- /url: "#home"', "- /placeholder: x", "", "just words", "  -"]
    )
    def test_non_elements(self, line):
        assert parse_line(line) is None


# -- element ids --------------------------------------------------------------------------------
class TestElementId:
    @pytest.mark.parametrize(
        ("ref", "expected"), [("e1", "e1"), ("e17", "e17"), ("[e12]", "e12"), (" e3 ", "e3")]
    )
    def test_ids(self, ref, expected):
        assert element_id(ref) == expected

    @pytest.mark.parametrize(
        "ref", ["e", "e1a", "E1", "ee1", "1", "button", 'button "e1"', "css=#e1", "[e1] x", ""]
    )
    def test_not_ids(self, ref):
        assert element_id(ref) is None


# -- descriptors ------------------------------------------------------------------------------
class TestParseDescriptor:
    @pytest.mark.parametrize(
        ("ref", "expected"),
        [
            ('button "Submit"', Descriptor("button", "Submit", True, 'button "Submit"')),
            ('button "Submit" [ref=e5]', Descriptor("button", "Submit", True, 'button "Submit"')),
            ('heading "Title" [level=2] [active]', Descriptor("heading", "Title", True, 'heading "Title"')),
            ('  link "Home"  ', Descriptor("link", "Home", True, 'link "Home"')),
            ('button ""', Descriptor("button", "", True, 'button ""')),
            ('button "Say "hi""', Descriptor("button", 'Say "hi"', True, 'button "Say "hi""')),
            ("navigation", Descriptor("navigation", None, False, "navigation")),
            ("navigation [level=1]", Descriptor("navigation", None, False, "navigation")),
            ("link Home", Descriptor("link", "Home", False, "link Home")),
            ("link 'About us'", Descriptor("link", "About us", False, "link 'About us'")),
            ("button Add to cart", Descriptor("button", "Add to cart", False, "button Add to cart")),
        ],
    )
    def test_role_and_name(self, ref, expected):
        assert parse_descriptor(ref) == expected

    @pytest.mark.parametrize(
        ("ref", "expected"),
        [
            ('widget "Submit"', Descriptor("generic", "Submit", True, 'widget "Submit"')),
            ("frobnicate", Descriptor("generic", None, False, "frobnicate")),
            ("Reset", Descriptor("generic", None, False, "Reset")),
            ("Current value", Descriptor("generic", "value", False, "Current value")),
        ],
    )
    def test_unknown_roles_are_generic(self, ref, expected):
        assert parse_descriptor(ref) == expected

    def test_a_known_role_word_starting_a_label(self):
        # 'Search products': the text is kept whole for the fallback ladder.
        descriptor = parse_descriptor("Search products")
        assert (descriptor.role, descriptor.name, descriptor.quoted, descriptor.text) == (
            "search", "products", False, "Search products",
        )  # fmt: skip

    def test_element_descriptor_round_trips(self):
        element = AriaElement("e3", "link", "Home", 0)
        assert parse_descriptor(element.descriptor) == Descriptor("link", "Home", True, 'link "Home"')
        assert AriaElement("e9", "textbox", None, 2).descriptor == "textbox"


class TestLiteralName:
    @pytest.mark.parametrize(
        ("pattern", "expected"),
        [
            ("Contact Form", "Contact Form"),
            ("^Increment$", "Increment"),
            ("^Increment", "Increment"),
            ("Increment$", "Increment"),
            (r"\QWireless Mouse - Bluetooth, Black - $29.99\E", "Wireless Mouse - Bluetooth, Black - $29.99"),
            (r"\Q^starts$\E", "^starts$"),
            (r"Price \$", r"Price \$"),
            ("", ""),
        ],
    )
    def test_patterns(self, pattern, expected):
        assert literal_name(pattern) == expected
