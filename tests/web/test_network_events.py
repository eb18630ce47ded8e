"""``web_assertNetworkEvent`` (docs/guides/trails.md) and the network capture behind it, on real Chromium.

``tests/web/pages/network.html`` sends analytics the way real pages do: a GET with the event in
the query string on load, JSON POSTs from clicks, a ``sendBeacon``, and an event sent 800 ms after
its click. The test server answers ``/collect`` with 204.
"""

from __future__ import annotations

import pytest

from pytest_trailblaze.core.errors import ToolFailure
from pytest_trailblaze.drivers.playwright import WebDriver


@pytest.fixture
def checkout(run, app_url):
    """The checkout page opened through ``web_navigate``, as a trail does."""
    run("web_navigate", url=f"{app_url}/test-pages/network.html")
    return run


class TestAssertNetworkEvent:
    def test_event_in_a_post_body(self, checkout, app_url):
        checkout("web_click", ref="css=#start")
        result = checkout("web_assertNetworkEvent", eventName="checkout-started")
        assert result.message == f"Network event 'checkout-started' was sent: POST {app_url}/collect"

    def test_event_in_the_url_sent_while_the_page_loaded(self, checkout, app_url):
        result = checkout("web_assertNetworkEvent", eventName="PAGE-VIEW", timeoutMs=0)
        assert result.message == (
            f"Network event 'PAGE-VIEW' was sent: GET {app_url}/collect?e=page-view&page=checkout"
        )

    def test_event_in_a_beacon_any_case(self, checkout):
        checkout("web_click", ref='button "Place order"')
        assert checkout("web_assertNetworkEvent", eventName="order-placed").message.endswith("/collect")

    def test_event_sent_after_the_check_started(self, checkout):
        checkout("web_click", ref="css=#pay")  # the page sends it 800 ms later
        result = checkout("web_assertNetworkEvent", eventName="payment-confirmed", timeoutMs=5_000)
        assert result.message.startswith("Network event 'payment-confirmed' was sent: POST ")

    def test_event_never_sent(self, checkout, app_url):
        with pytest.raises(ToolFailure) as info:
            checkout("web_assertNetworkEvent", eventName="refund-issued", timeoutMs=300)
        assert str(info.value) == (
            "network event 'refund-issued' is in none of the 2 request(s) this trail's pages sent "
            f"(URL or body, waited 300 ms); the last 2: GET {app_url}/test-pages/network.html -> 200, "
            f"GET {app_url}/collect?e=page-view&page=checkout -> 204"
        )

    def test_zero_timeout_checks_once(self, checkout):
        checkout("web_click", ref="css=#pay")
        with pytest.raises(ToolFailure, match="'payment-confirmed' is in none of the 2 request"):
            checkout("web_assertNetworkEvent", eventName="payment-confirmed", timeoutMs=0)

    def test_blank_event_name(self, checkout):
        with pytest.raises(ToolFailure, match="eventName must not be blank"):
            checkout("web_assertNetworkEvent", eventName="  ")

    def test_each_trail_starts_with_an_empty_capture(self, browser_host, checkout, app_url):
        """A new context (the next trail) has seen none of the requests of the one before."""
        checkout("web_click", ref="css=#start")
        other = WebDriver.open(browser_host)
        try:
            assert other.network_log.requests == []
            assert other.find_request("checkout-started", 0) is None
            other.page.goto(f"{app_url}/index.html")
            assert other.network_log.requests[0].url == f"{app_url}/index.html"
        finally:
            other.close()

    def test_requests_of_a_popup_count(self, checkout, driver, app_url):
        with driver.page.expect_popup() as popup:
            driver.page.evaluate("url => { window.open(url); }", f"{app_url}/index.html?from=popup-opened")
        popup.value.wait_for_load_state()
        checkout("web_assertNetworkEvent", eventName="popup-opened", timeoutMs=0)

    def test_it_is_a_recordable_verification(self, registry):
        tool = registry.get("web_assertNetworkEvent").descriptor
        assert (tool.is_verification, tool.is_recordable, tool.toolset) == (True, True, "web_verification")
