"""The 20 actions of the benchmark trail written against Playwright by hand: the control.

This module imports Playwright and nothing of the plugin, so a control process pays only for what
a hand-written Playwright script pays: Python, Playwright's import, the browser and the actions.
Run as a script, it is one control process of ``xdist_scaling.py``:

    python benchmarks/by_hand.py BASE_URL COUNT LAUNCH_JSON

launches one browser with the keyword arguments of ``LAUNCH_JSON`` (the ones the plugin launches
its browser with, so both sides run the same Chromium with the same flags), then runs the actions
``COUNT`` times, each in a fresh context, as the plugin runs a trail per context.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from playwright.sync_api import expect, sync_playwright


def direct(browser: Any, base_url: str, viewport: dict) -> None:
    """The same 20 actions as the benchmark trail, in a fresh context of ``browser``."""
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    page.goto(f"{base_url}/index.html")
    page.locator("#nav-form").click()
    page.locator("#name-input").fill("Ada Lovelace")
    page.locator("#email-input").fill("ada@example.test")
    page.locator("#category-select").select_option(["feedback"])
    page.locator("#message-input").fill("Hello")
    page.get_by_role("button", name="Submit", exact=True).click()
    expect(page.get_by_text("Form submitted!").first).to_be_visible()
    page.locator("#nav-counter").click()
    for _ in range(3):
        page.locator("#increment-btn").click()
    expect(page.locator("#counter-value")).to_contain_text("3")
    page.locator("#decrement-btn").click()
    expect(page.get_by_text("Current value: 2").first).to_be_visible()
    page.locator("#reset-btn").click()
    expect(page.get_by_text("Current value: 0").first).to_be_visible()
    page.locator("#nav-about").click()
    expect(page.locator("#version")).to_contain_text("1.0.0")
    expect(page.get_by_text("AI-powered").first).to_be_visible()
    context.close()


def main(base_url: str, count: int, launch: dict[str, Any]) -> None:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(**launch)
        try:
            for _ in range(count):
                direct(browser, base_url, {"width": 1280, "height": 800})
        finally:
            browser.close()


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3]))
