"""Recorded text checks compare what the author wrote, on real Chromium (YAML 1.2
scalars: ``text: 017`` checks ``017``).

YAML 1.1 read ``text: 9:00`` as the number 540 and the check then looked for "540": it passed on
a page showing 540 and failed on one showing 9:00. Each case loads a real trail text and replays
its recorded call through ``ToolRegistry.execute`` against a page set with plain Playwright.
"""

from __future__ import annotations

from typing import Any

import pytest

from pytest_trailblaze.core.errors import ToolFailure
from pytest_trailblaze.core.trail.parse import parse_trail


@pytest.fixture(autouse=True)
def short_expect(monkeypatch: pytest.MonkeyPatch) -> None:
    """A check that must fail gives up after 0.5 s instead of 5 s."""
    monkeypatch.setattr("pytest_trailblaze.tools.web_verify.EXPECT_TIMEOUT_MS", 500)


def recorded(call: str) -> tuple[str, dict[str, Any]]:
    """The one call a trail records for ``web``, as the loader reads it."""
    trail = parse_trail(
        f"trail:\n  - verify: v\n    recording:\n      web:\n        - {call}\n", "t.trail.yaml"
    )
    [found] = trail.steps[0].calls()
    return found.name, dict(found.args)


def show(driver: Any, text: str) -> None:
    driver.page.set_content(f"<main><p>Alarm set for</p><p id='shown'>{text}</p></main>")


@pytest.mark.parametrize(
    ("written", "page_shows", "passes"),
    [
        ("9:00", "9:00", True),
        ("9:00", "540", False),  # YAML 1.1 looked for "540"
        ("017", "Gate 017", True),
        ("017", "Gate 15", False),  # YAML 1.1 looked for "15" (octal)
        ("1.10", "Version 1.10", True),
        ("1.10", "Version 1.1 ", False),  # YAML 1.1 looked for "1.1"
        ("no", "no", True),  # YAML 1.1 looked for "False"
    ],
)
def test_verify_text_visible_looks_for_the_text_as_written(
    run: Any, driver: Any, written: str, page_shows: str, passes: bool
) -> None:
    show(driver, page_shows)
    name, args = recorded(f"web_verifyTextVisible: {{text: {written}}}")
    if passes:
        assert run(name, args).message == f"Text {written!r} is visible"
    else:
        with pytest.raises(ToolFailure, match=f"text '{written}' is not visible"):
            run(name, args)


def test_verify_value_compares_the_text_as_written(run: Any, driver: Any) -> None:
    driver.page.set_content("<input id='t' value='08:00'><input id='n' value='480'>")
    name, args = recorded("web_verifyValue: {ref: 'css=#t', type: VALUE, expected: 08:00}")
    assert run(name, args).message == "css=#t has value '08:00'"
    name, args = recorded("web_verifyValue: {ref: 'css=#n', type: VALUE, expected: 08:00}")
    with pytest.raises(ToolFailure):
        run(name, args)
