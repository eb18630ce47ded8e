"""What a run was told, read once from its options: the command line over the ini file over the
environment over the defaults (``option_table`` declares them, ``option_values`` reads each value).

A bad value is a ``ConfigurationError`` naming the option; the pytest plugin shows it as a usage
error before anything runs.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path

from ..core.errors import ConfigurationError
from ..drivers import remote
from ..drivers.appium_server import APPIUM_LOG_LEVELS
from ..drivers.appium_settings import AppiumSettings
from ..drivers.browser_options import BrowserOptions
from ..mcp.timeouts import DEFAULT_CALL_S, handshake_timeout_default
from .option_table import RECORDING, SCREENSHOT, SCREENSHOT_ALIASES
from .option_values import (
    Given,
    args_file,
    driver_name,
    existing_dir,
    key_value_pairs,
    load_profiles,
    milliseconds,
    seconds_value,
    secret_pairs,
    size_value,
    viewport_size,
)
from .settings import EvidenceSettings, Settings


def read_settings(given: Given) -> Settings:
    """Every option of the run but the agent's and the evidence's."""
    output = given.pick("output")
    args = {**args_file(given.option("args_file")), **key_value_pairs(given.many("arg"), "--trailblaze-arg")}
    ci = os.environ.get("CI", "").lower() not in ("", "0", "false", "no")
    web_timeout = given.pick("web_timeout", "web_timeout_ms")
    timeout = milliseconds(web_timeout, "--trailblaze-web-timeout", default=45_000 if ci else 30_000)
    cdp, headers, options = _remote(given)
    browser = BrowserOptions(
        browser=given.pick("browser"),
        headed=given.flag("headed"),
        executable_path=given.pick("browser_path") or None,
        launch_args=tuple(given.many("browser_arg") or given.lines("browser_args")),
        connect=given.pick("connect") or None,
        cdp=cdp,
        connect_headers=headers,
        connect_options=options,
        viewport=viewport_size(given.pick("viewport")),
        action_timeout_ms=timeout,
        navigation_timeout_ms=timeout * 2 if ci else timeout,
        settle_quiet_ms=milliseconds(given.pick("settle_ms"), "--trailblaze-settle-ms"),
        launch_timeout_s=seconds_value(
            given.pick("browser_launch_timeout"), "--trailblaze-browser-launch-timeout", default=30.0
        ),
    )
    return Settings(
        patterns=tuple(given.lines("patterns")),
        output_dir=Path(given.root, output) if not Path(output).is_absolute() else Path(output),
        browser=browser,
        memory=key_value_pairs(given.many("memory"), "--trailblaze-memory"),
        secrets=secret_pairs(given.many("secret")),
        args=args,
        agent_steps=given.pick("agent_steps"),
        default_platform=given.pick("platform"),
        agent_mode=given.pick("agent_mode"),
        driver_override=driver_name(given.option("driver")),
        full_trace=bool(given.cli("full_trace")),
        config_dir=_config_dir(given.pick("config_dir"), given.base),
        strict=given.flag("strict"),
        allow_outside_code=given.flag("allow_outside_code"),
        mcp_handshake_timeout=seconds_value(
            given.pick("mcp_handshake_timeout"),
            "--trailblaze-mcp-handshake-timeout",
            default=handshake_timeout_default(),
        ),
        appium=_appium(given),
        mcp_call_timeout=seconds_value(
            given.pick("mcp_call_timeout"), "--trailblaze-mcp-call-timeout", default=DEFAULT_CALL_S
        ),
        max_file_bytes=size_value(given.pick("max_file_size"), "--trailblaze-max-file-size"),
        file_url_roots=_file_url_roots(given),
    )


def _file_url_roots(given: Given) -> tuple[Path, ...]:
    """The ini's ``trailblaze_allow_file_urls`` (relative to the ini file, as pytest reads ``paths``)
    and every ``--trailblaze-allow-file-urls`` (relative to where the run started): both widen."""
    given_paths = (Path(given.base, p) for p in given.many("allow_file_urls"))
    paths = [*given.paths("allow_file_urls"), *given_paths]
    return tuple(dict.fromkeys(p.resolve() for p in paths))


def _config_dir(value: str, base: Path) -> Path | None:
    if not value:
        return None
    path = Path(value) if Path(value).is_absolute() else Path(base, value)
    if not (path / "trailblaze.yaml").is_file():
        raise ConfigurationError(f"--trailblaze-config-dir {value}: no trailblaze.yaml in {path}")
    return path.resolve()


def _appium(given: Given) -> AppiumSettings:
    url = given.pick("appium_url") or os.environ.get("TRAILBLAZE_APPIUM_URL")
    server = given.pick("appium_server")
    if url and server:
        raise ConfigurationError(
            "--trailblaze-appium-url and --trailblaze-appium-server exclude each other: use one"
        )
    home = existing_dir(server, "--trailblaze-appium-server", given.base) if server else None
    caps_file = given.pick("appium_caps")
    level = given.pick("appium_log_level")
    if level not in APPIUM_LOG_LEVELS:
        raise ConfigurationError(
            f"trailblaze_appium_log_level = {level}: use one of {', '.join(APPIUM_LOG_LEVELS)}"
        )
    return AppiumSettings(
        url=url or None,
        server_home=home,
        server_log_level=level,
        profiles=load_profiles(Path(given.base, caps_file)) if caps_file else {},
        fresh_session=given.flag("appium_fresh_session"),
    )


def _remote(given: Given) -> tuple[str | None, dict[str, str], Mapping[str, object]]:
    """``--trailblaze-cdp`` and the headers and options of a remote browser (``drivers.remote``)."""
    cdp = given.pick("cdp") or None
    if cdp and given.pick("connect"):
        raise ConfigurationError("--trailblaze-connect and --trailblaze-cdp exclude each other: use one")
    if cdp and given.pick("browser") != "chromium":
        raise ConfigurationError("--trailblaze-cdp attaches to Chromium only, not to --trailblaze-browser")
    headers = given.many("connect_header") or given.lines("connect_headers")
    options = given.many("connect_option") or given.lines("connect_options")
    known = remote.CDP_OPTIONS if cdp else remote.CONNECT_OPTIONS
    return (
        cdp,
        remote.parse_headers(headers, "--trailblaze-connect-header"),
        remote.parse_options(options, "--trailblaze-connect-option", known),
    )


def read_evidence(given: Given, theirs: Mapping[str, str]) -> EvidenceSettings:
    """The command line over the ini file over ``theirs`` (pytest-playwright's ``--tracing`` /
    ``--video`` / ``--screenshot``, when it is active) over the defaults."""
    report = given.pick("report")
    shot = given.pick("screenshot") or given.text("screenshots")
    shot = shot or theirs.get("screenshot") or "only-on-failure"
    return EvidenceSettings(
        report=Path(given.base, report) if report else None,
        screenshot=_choice("screenshot", SCREENSHOT_ALIASES.get(shot, shot), SCREENSHOT),
        tracing=_choice("tracing", given.pick("tracing") or theirs.get("tracing"), RECORDING),
        video=_choice("video", given.pick("video") or theirs.get("video"), RECORDING),
    )


def _choice(name: str, value: str | None, allowed: tuple[str, ...]) -> str:
    value = (value or "off").strip()
    if value not in allowed:
        raise ConfigurationError(f"trailblaze_{name} expects one of {', '.join(allowed)}, got {value!r}")
    return value


def unknown_args(provided: Iterable[str], declared: set[str]) -> str | None:
    """What is wrong with ``--trailblaze-arg`` names no collected trail declares, or None."""
    unknown = sorted(set(provided) - declared)
    if not unknown:
        return None
    known = ", ".join(sorted(declared)) or "none"
    return (
        f"unknown trail arg(s) {', '.join(unknown)}: no collected trail declares them in config.args "
        f"(declared: {known})"
    )
