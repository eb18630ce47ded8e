"""Remote browser options: headers, connect options, what a server is sent, what messages show."""

from __future__ import annotations

import json

import pytest

from pytest_trailblaze.core.errors import ConfigurationError
from pytest_trailblaze.drivers.browser_options import BrowserOptions
from pytest_trailblaze.drivers.remote import (
    CDP_OPTIONS,
    CONNECT_OPTIONS,
    parse_headers,
    parse_options,
    server_headers,
    shown_endpoint,
)


def test_headers_read_the_environment_and_both_separators(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BROWSER_TOKEN", "s3cret")
    headers = parse_headers(["Authorization=Bearer {{BROWSER_TOKEN}}", "X-Team: web=1"], "--h")
    assert headers == {"Authorization": "Bearer s3cret", "X-Team": "web=1"}


def test_a_bad_header_never_echoes_its_value() -> None:
    with pytest.raises(ConfigurationError) as caught:
        parse_headers(["Bad Name=Bearer s3cret"], "--trailblaze-connect-header")
    assert "got a header named 'Bad Name'" in str(caught.value)
    assert "s3cret" not in str(caught.value)


def test_connect_options_are_typed_and_known() -> None:
    assert parse_options(["slow_mo=25", "expose_network=<loopback>"], "--o", CONNECT_OPTIONS) == {
        "slow_mo": 25.0,
        "expose_network": "<loopback>",
    }
    for bad, known in (
        ("expose_network=*", CDP_OPTIONS),
        ("slow_mo=-1", CONNECT_OPTIONS),
        ("x", CDP_OPTIONS),
    ):
        with pytest.raises(ConfigurationError):
            parse_options([bad], "--o", known)


def test_a_browser_server_is_sent_the_browser_path_and_arguments() -> None:
    plain = BrowserOptions(connect="ws://127.0.0.1:1/", connect_headers={"Authorization": "Bearer t"})
    assert server_headers(plain) == {"Authorization": "Bearer t"}
    given = BrowserOptions(
        connect="ws://127.0.0.1:1/", executable_path="/usr/bin/chromium", launch_args=("--lang=de",)
    )
    sent = json.loads(server_headers(given)["x-playwright-launch-options"])
    assert sent == {"executablePath": "/usr/bin/chromium", "args": ["--lang=de"]}


def test_headers_stay_out_of_the_options_repr() -> None:
    options = BrowserOptions(connect="ws://h/", connect_headers={"Authorization": "Bearer s3cret"})
    assert "s3cret" not in repr(options)


def test_endpoints_in_messages_show_no_credentials_or_query_values() -> None:
    assert shown_endpoint("wss://ada:pw@cloud.example.test/play?token=s3cret&region=eu") == (
        "wss://***@cloud.example.test/play?token=***&region=***"
    )
    assert shown_endpoint("ws://127.0.0.1:3000/") == "ws://127.0.0.1:3000/"
