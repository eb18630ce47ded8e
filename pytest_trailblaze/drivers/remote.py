"""Remote browsers: a Playwright browser server (``connect``) or a running Chromium over CDP.

``--trailblaze-connect ws://...`` attaches to a server started with ``playwright run-server`` or
``browserType.launchServer()`` (or a cloud browser service speaking that protocol);
``--trailblaze-cdp URL`` attaches to a Chromium started with ``--remote-debugging-port``. Both take
headers (``Authorization: Bearer ...`` for cloud services; ``{{ENV_VAR}}`` in a value reads the
environment, so a token stays off the command line) and Playwright's connect options.

A ``run-server`` launches the browser the client names with the launch options the client sends
in ``x-playwright-launch-options``; it honours a browser path and arguments only when started
with ``--unsafe``. So ``--trailblaze-browser-path`` and ``--trailblaze-browser-arg`` given with
``--trailblaze-connect`` are sent there: a server without a browser of its own can then use the
machine's Chromium. Header values and credentials never appear in messages.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from ..core.errors import ConfigurationError, first_line

# expand_template and shown_url load where they are used: their modules import PyYAML, which every
# process reading the options would otherwise load for options that are seldom given

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserType, Playwright

    from .browser_options import BrowserOptions

LAUNCH_OPTIONS_HEADER = "x-playwright-launch-options"
#: Playwright's keyword arguments of ``connect`` / ``connect_over_cdp`` a user may set, and their types.
CONNECT_OPTIONS: dict[str, type] = {"expose_network": str, "slow_mo": float}
CDP_OPTIONS: dict[str, type] = {"slow_mo": float}
_HEADER = re.compile(r"\s*([A-Za-z0-9!#$%&'*+.^_`|~-]+)\s*[=:]\s*(.*?)\s*", re.S)
_QUERY_VALUE = re.compile(r"([?&][^=&#]+=)[^&#]*")


def parse_headers(pairs: Iterable[str], option: str) -> dict[str, str]:
    """``NAME=VALUE`` (or ``NAME: VALUE``) pairs; ``{{ENV_VAR}}`` in a value reads the environment."""
    headers: dict[str, str] = {}
    for pair in pairs:
        found = _HEADER.fullmatch(pair)
        if found is None:
            name = re.split(r"[=:]", pair, maxsplit=1)[0].strip()  # never the value: it may be a token
            raise ConfigurationError(
                f"{option} expects NAME=VALUE with an HTTP header name, like "
                f"'Authorization=Bearer {{{{BROWSER_TOKEN}}}}'; got a header named {name!r}"
            )
        from ..core.trail.envpass import expand_template  # with the first header: most runs give none

        headers[found.group(1)] = expand_template(found.group(2))
    return headers


def parse_options(pairs: Iterable[str], option: str, known: Mapping[str, type]) -> dict[str, str | float]:
    """``KEY=VALUE`` pairs of Playwright connect options, typed; unknown keys are errors."""
    options: dict[str, str | float] = {}
    for pair in pairs:
        key, sep, value = (part.strip() for part in pair.partition("="))
        if not sep or key not in known:
            raise ConfigurationError(
                f"{option} expects KEY=VALUE with KEY one of {', '.join(known)}; got {pair!r}"
            )
        if known[key] is float:
            try:
                number = float(value)
            except ValueError:
                number = -1.0
            if not 0 <= number < float("inf"):
                raise ConfigurationError(f"{option} {key} expects a number of milliseconds, got {value!r}")
            options[key] = number
        else:
            options[key] = value
    return options


def shown_endpoint(url: str) -> str:
    """The endpoint for a message: no credentials, no query values (tokens often ride there)."""
    from .profiles import shown_url

    return _QUERY_VALUE.sub(r"\1***", shown_url(url))


def connect(playwright: Playwright, options: BrowserOptions) -> Browser:
    """The remote browser the options name (``cdp`` or ``connect``), within the launch timeout."""
    timeout = options.launch_timeout_s * 1000
    if options.cdp:
        headers = dict(options.connect_headers)
        return playwright.chromium.connect_over_cdp(
            options.cdp, headers=headers, timeout=timeout, **dict(options.connect_options)
        )
    assert options.connect, "a remote browser is named by cdp or connect"
    browser_type: BrowserType = getattr(playwright, options.browser)
    headers = server_headers(options)
    return browser_type.connect(
        options.connect, headers=headers, timeout=timeout, **dict(options.connect_options)
    )


def server_headers(options: BrowserOptions) -> dict[str, str]:
    """The user's headers, plus the browser path and arguments as the server's launch options."""
    headers = dict(options.connect_headers)
    launch: dict[str, object] = {}
    if options.executable_path:
        launch["executablePath"] = options.executable_path
    if options.launch_args:
        launch["args"] = list(options.launch_args)
    if options.headed:
        launch["headless"] = False
    if launch and LAUNCH_OPTIONS_HEADER not in {name.lower() for name in headers}:
        headers[LAUNCH_OPTIONS_HEADER] = json.dumps(launch)
    return headers


def endpoint_of(options: BrowserOptions) -> str:
    return shown_endpoint(options.cdp or options.connect or "")


def failure_message(options: BrowserOptions, exc: BaseException) -> str:
    """Why attaching failed, in the server's words, and the way out for the usual causes."""
    text, first = str(exc), first_line(exc)
    if options.cdp:
        return (
            f"could not attach to Chromium over CDP at {endpoint_of(options)}: {first}\n"
            f"  fix: start Chromium with --remote-debugging-port=PORT and pass --trailblaze-cdp "
            f"http://HOST:PORT (or its ws://.../devtools/browser/... URL)"
        )
    fix = _fix(options, text)
    return f"could not connect to the browser at {endpoint_of(options)}: {first}\n  fix: {fix}"


def _fix(options: BrowserOptions, text: str) -> str:
    if "Executable doesn't exist" in text or "browserType.launch" in text.lower():
        return (
            f"the server has no {options.browser} of its own: start it with `playwright run-server "
            f"--unsafe` and pass --trailblaze-browser-path (sent as its launch option), or install "
            f"the browsers where the server runs"
        )
    if re.search(r"\b40[13]\b", text):
        return "the server wants credentials: pass them with --trailblaze-connect-header NAME=VALUE"
    if "version" in text.lower() and "mismatch" in text.lower():
        return "run a browser server of the Playwright version this plugin uses (1.65)"
    return "start a Playwright browser server there (`playwright run-server`), or drop --trailblaze-connect"


def timeout_message(options: BrowserOptions, waited_s: float) -> str:
    if options.cdp:
        return (
            f"could not attach to Chromium over CDP at {endpoint_of(options)}: no answer within "
            f"{waited_s:g} s\n  fix: check that it runs and is reachable, or raise "
            f"--trailblaze-browser-launch-timeout"
        )
    return (
        f"could not connect to the browser at {endpoint_of(options)}: no answer within {waited_s:g} s\n"
        "  fix: start a Playwright browser server there, or raise --trailblaze-browser-launch-timeout"
    )
