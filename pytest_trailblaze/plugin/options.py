"""Command-line options and ini keys, resolved once (CLI > ini > default) into ``Settings``."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from ..core.errors import ConfigurationError
from ..core.trail.parse import TRAIL_FILE_PATTERNS
from ..drivers import remote
from ..drivers.appium import AppiumSettings
from ..drivers.appium_server import APPIUM_LOG_LEVELS
from ..drivers.playwright import BrowserOptions
from ..mcp.server import DEFAULT_CALL_S, handshake_timeout_default
from ..session.option_values import (
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
from ..session.settings import Settings

SETTINGS_KEY = pytest.StashKey["Settings"]()
BROWSERS = ("chromium", "firefox", "webkit")


def add_options(parser: pytest.Parser) -> None:
    group = parser.getgroup("trailblaze", "Trailblaze trails")

    def option(
        name: str,
        ini: str | None = None,
        *,
        ini_type: str | None = None,
        ini_default: Any = None,
        help: str,
        **cli: Any,
    ) -> None:
        group.addoption(f"--trailblaze-{name}", dest=f"trailblaze_{name.replace('-', '_')}", help=help, **cli)
        if ini:
            parser.addini(ini, help=help, type=ini_type, default=ini_default)

    parser.addini(
        "trailblaze_patterns",
        "file name patterns collected as trails",
        type="linelist",
        default=list(TRAIL_FILE_PATTERNS),
    )
    option(
        "output",
        "trailblaze_output",
        ini_default="trailblaze-output",
        metavar="DIR",
        help="folder for per-test artifacts: failure screenshots, snapshots (default trailblaze-output)",
    )
    option(
        "browser",
        "trailblaze_browser",
        ini_default="chromium",
        choices=BROWSERS,
        help="browser engine for web trails (default chromium)",
    )
    option(
        "headed",
        "trailblaze_headed",
        ini_type="bool",
        ini_default=False,
        action="store_true",
        default=None,
        help="show the browser window",
    )
    option(
        "browser-path",
        "trailblaze_browser_path",
        metavar="PATH",
        help="browser executable; default: Playwright's own, else the system Chromium "
        "(headless: chromium-headless-shell when installed)",
    )
    option(
        "browser-launch-timeout",
        "trailblaze_browser_launch_timeout",
        metavar="SECONDS",
        help="how long the browser may take to start (or --trailblaze-connect to answer) before the "
        "web trails fail and it is stopped (default 30)",
    )
    option(
        "browser-arg",
        "trailblaze_browser_args",
        ini_type="linelist",
        ini_default=[],
        action="append",
        metavar="ARG",
        help="extra browser launch argument (repeatable)",
    )
    option(
        "connect",
        "trailblaze_connect",
        metavar="WS_ENDPOINT",
        help="connect to a running Playwright browser server (playwright run-server, launchServer, a "
        "cloud browser service) instead of launching one",
    )
    option(
        "cdp",
        "trailblaze_cdp",
        metavar="URL",
        help="attach to a running Chromium over CDP: http://HOST:PORT of its --remote-debugging-port, "
        "or its ws://.../devtools/browser/... URL",
    )
    option(
        "connect-header",
        "trailblaze_connect_headers",
        ini_type="linelist",
        ini_default=[],
        action="append",
        metavar="NAME=VALUE",
        help="HTTP header for --trailblaze-connect / --trailblaze-cdp, like 'Authorization=Bearer "
        "{{TOKEN}}' ({{ENV_VAR}} reads the environment; repeatable)",
    )
    option(
        "connect-option",
        "trailblaze_connect_options",
        ini_type="linelist",
        ini_default=[],
        action="append",
        metavar="KEY=VALUE",
        help="Playwright connect option: slow_mo=MS, expose_network=RULES (--trailblaze-connect only); "
        "repeatable",
    )
    option(
        "viewport",
        "trailblaze_viewport",
        ini_default="1280x800",
        metavar="WxH",
        help="web viewport (default 1280x800)",
    )
    option(
        "web-timeout",
        "trailblaze_web_timeout_ms",
        metavar="MS",
        help="action timeout of web tools in ms (default 30000, 45000 when CI is set)",
    )
    option(
        "settle-ms",
        "trailblaze_settle_ms",
        ini_default="500",
        metavar="MS",
        help="quiet window after an action that started network requests (default 500)",
    )
    option(
        "memory", action="append", default=[], metavar="KEY=VALUE", help="seed a memory value (repeatable)"
    )
    option(
        "secret",
        action="append",
        default=[],
        metavar="KEY=VALUE|NAME",
        help="seed a secret memory value, masked in everything the run writes (repeatable); "
        "a bare NAME takes the value of environment variable NAME",
    )
    option("arg", action="append", default=[], metavar="NAME=VALUE", help="bind a trail arg (repeatable)")
    option("args-file", metavar="FILE", help="YAML or JSON map of trail args (--trailblaze-arg overrides it)")
    option(
        "agent-steps",
        "trailblaze_agent_steps",
        ini_default="fail",
        choices=("fail", "skip"),
        help="steps with no recording for the device and no agent: fail (default) or skip the trail",
    )
    option(
        "platform",
        "trailblaze_platform",
        ini_default="web",
        choices=("web", "android", "ios"),
        help="platform for trails that name no device classifier (default web)",
    )
    option(
        "agent-mode",
        "trailblaze_agent_mode",
        ini_default="host",
        choices=("host", "on-device"),
        help="agent mode of the session; on-device disables tools that need the host",
    )
    option(
        "driver",
        metavar="DRIVER",
        help="the upstream driver the sessions of its platform report (enum name or key, e.g. "
        "PLAYWRIGHT_ELECTRON): tools, toolsets and MCP servers filtered by driver follow it; "
        "overrides trail pins",
    )
    option(
        "config-dir",
        "trailblaze_config_dir",
        metavar="DIR",
        help="workspace config folder (holding trailblaze.yaml); default: trails/config found walking up "
        "from each trail, or TRAILBLAZE_CONFIG_DIR",
    )
    option(
        "strict",
        "trailblaze_strict",
        ini_type="bool",
        ini_default=False,
        action="store_true",
        default=None,
        help="treat naming and trailmap-scoping warnings as errors",
    )
    option(
        "allow-outside-code",
        "trailblaze_allow_outside_code",
        ini_type="bool",
        ini_default=False,
        action="store_true",
        default=None,
        help="let trails and tool files name code outside the workspace root: Python files, installed "
        "modules, MCP server scripts (code you trust)",
    )
    option(
        "max-file-size",
        "trailblaze_max_file_size",
        metavar="SIZE",
        help="refuse trail and workspace files larger than SIZE (default 10MB; e.g. 512KB, 20MB)",
    )
    option(
        "allow-file-urls",
        "trailblaze_allow_file_urls",
        ini_type="paths",
        ini_default=[],
        action="append",
        metavar="PATH",
        help="let web trails open file:// URLs under PATH too (repeatable, added to the ini's); by "
        "default only files inside the trail's workspace and the rootdir",
    )
    option(
        "mcp-handshake-timeout",
        "trailblaze_mcp_handshake_timeout",
        metavar="SECONDS",
        help="how long an MCP server may take to answer `initialize` (default 60, or "
        "TRAILBLAZE_MCP_SUBPROCESS_HANDSHAKE_TIMEOUT_MS)",
    )
    option(
        "mcp-call-timeout",
        "trailblaze_mcp_call_timeout",
        metavar="SECONDS",
        help="how long one MCP tool call may take before the server is stopped (default 60)",
    )
    option(
        "appium-url",
        "trailblaze_appium_url",
        metavar="URL",
        help="Appium server for android / ios trails (or TRAILBLAZE_APPIUM_URL), e.g. http://127.0.0.1:4723",
    )
    option(
        "appium-server",
        "trailblaze_appium_server",
        metavar="DIR",
        help="start a local Appium server for the run from DIR/node_modules/appium (stopped at the end)",
    )
    option(
        "appium-log-level",
        "trailblaze_appium_log_level",
        ini_default="warn",
        choices=APPIUM_LOG_LEVELS,
        help="log level of the local Appium server (default warn); its log is masked like all output",
    )
    option(
        "appium-caps",
        "trailblaze_appium_caps",
        metavar="FILE",
        help="YAML or JSON file of Appium capabilities by platform ({android: {...}, ios: {...}}) or by "
        "device (android-phone, android-tablet, ios-ipad, ...: each an item per trail, with its own url "
        "and a pool of devices for xdist workers)",
    )
    option(
        "appium-fresh-session",
        "trailblaze_appium_fresh_session",
        ini_type="bool",
        ini_default=False,
        action="store_true",
        default=None,
        help="start a new Appium session for every trail instead of one per platform and worker",
    )
    option(
        "full-trace",
        action="store_true",
        default=False,
        help="show Python tracebacks for trail failures instead of the trail report",
    )


class _Given:
    """What the user gave for an option: the command line wins over the ini file."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.option = config.option

    def pick(self, name: str, ini: str | None = None) -> Any:
        """``--trailblaze-<name>``, else ini ``trailblaze_<ini or name>`` (empty counts as not given)."""
        cli = getattr(self.option, f"trailblaze_{name}")
        return cli if cli not in (None, "") else self.config.getini(f"trailblaze_{ini or name}")

    def flag(self, name: str) -> bool:
        """An on/off option: the command line when given (``None`` is not given), else the ini."""
        cli = getattr(self.option, f"trailblaze_{name}")
        return bool(cli if cli is not None else self.config.getini(f"trailblaze_{name}"))


def resolve_settings(config: pytest.Config) -> Settings:
    """Read options and ini once; bad values are a ``pytest.UsageError`` naming the option."""
    opt = config.option
    given = _Given(config)
    output = given.pick("output")
    args = {**args_file(opt.trailblaze_args_file), **key_value_pairs(opt.trailblaze_arg, "--trailblaze-arg")}
    ci = os.environ.get("CI", "").lower() not in ("", "0", "false", "no")
    web_timeout = given.pick("web_timeout", "web_timeout_ms")
    timeout = milliseconds(web_timeout, "--trailblaze-web-timeout", default=45_000 if ci else 30_000)
    browser = BrowserOptions(
        browser=given.pick("browser"),
        headed=given.flag("headed"),
        executable_path=given.pick("browser_path") or None,
        launch_args=tuple(opt.trailblaze_browser_arg or config.getini("trailblaze_browser_args")),
        connect=given.pick("connect") or None,
        **_remote(given),
        viewport=viewport_size(given.pick("viewport")),
        action_timeout_ms=timeout,
        navigation_timeout_ms=timeout * 2 if ci else timeout,
        settle_quiet_ms=milliseconds(given.pick("settle_ms"), "--trailblaze-settle-ms"),
        launch_timeout_s=seconds_value(
            given.pick("browser_launch_timeout"), "--trailblaze-browser-launch-timeout", default=30.0
        ),
    )
    return Settings(
        patterns=tuple(config.getini("trailblaze_patterns")),
        output_dir=Path(config.rootpath, output) if not Path(output).is_absolute() else Path(output),
        browser=browser,
        memory=key_value_pairs(opt.trailblaze_memory, "--trailblaze-memory"),
        secrets=secret_pairs(opt.trailblaze_secret),
        args=args,
        agent_steps=given.pick("agent_steps"),
        default_platform=given.pick("platform"),
        agent_mode=given.pick("agent_mode"),
        driver_override=driver_name(opt.trailblaze_driver),
        full_trace=bool(opt.trailblaze_full_trace),
        config_dir=_config_dir(given.pick("config_dir"), config),
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
        file_url_roots=_file_url_roots(config),
    )


def _file_url_roots(config: pytest.Config) -> tuple[Path, ...]:
    """The ini's ``trailblaze_allow_file_urls`` (relative to the ini file, as pytest reads ``paths``)
    and every ``--trailblaze-allow-file-urls`` (relative to where pytest started): both widen."""
    given = config.option.trailblaze_allow_file_urls or []
    paths = [
        *config.getini("trailblaze_allow_file_urls"),
        *(Path(config.invocation_params.dir, p) for p in given),
    ]
    return tuple(dict.fromkeys(p.resolve() for p in paths))


def _config_dir(value: Any, config: pytest.Config) -> Path | None:
    if not value:
        return None
    path = Path(value) if Path(value).is_absolute() else Path(config.invocation_params.dir, value)
    if not (path / "trailblaze.yaml").is_file():
        raise pytest.UsageError(f"--trailblaze-config-dir {value}: no trailblaze.yaml in {path}")
    return path.resolve()


def _appium(given: _Given) -> AppiumSettings:
    config = given.config
    url = given.pick("appium_url") or os.environ.get("TRAILBLAZE_APPIUM_URL")
    server = given.pick("appium_server")
    if url and server:
        raise pytest.UsageError(
            "--trailblaze-appium-url and --trailblaze-appium-server exclude each other: use one"
        )
    home = existing_dir(server, "--trailblaze-appium-server", config) if server else None
    caps_file = given.pick("appium_caps")
    level = given.pick("appium_log_level")
    if level not in APPIUM_LOG_LEVELS:
        raise pytest.UsageError(
            f"trailblaze_appium_log_level = {level}: use one of {', '.join(APPIUM_LOG_LEVELS)}"
        )
    return AppiumSettings(
        url=url or None,
        server_home=home,
        server_log_level=level,
        profiles=load_profiles(Path(config.invocation_params.dir, caps_file)) if caps_file else {},
        fresh_session=given.flag("appium_fresh_session"),
    )


def _remote(given: _Given) -> dict[str, Any]:
    """``--trailblaze-cdp`` and the headers and options of a remote browser (``drivers.remote``)."""
    config, cdp = given.config, given.pick("cdp") or None
    if cdp and given.pick("connect"):
        raise pytest.UsageError("--trailblaze-connect and --trailblaze-cdp exclude each other: use one")
    if cdp and given.pick("browser") != "chromium":
        raise pytest.UsageError("--trailblaze-cdp attaches to Chromium only, not to --trailblaze-browser")
    headers = config.option.trailblaze_connect_header or config.getini("trailblaze_connect_headers")
    options = config.option.trailblaze_connect_option or config.getini("trailblaze_connect_options")
    known = remote.CDP_OPTIONS if cdp else remote.CONNECT_OPTIONS
    try:
        return {
            "cdp": cdp,
            "connect_headers": remote.parse_headers(headers, "--trailblaze-connect-header"),
            "connect_options": remote.parse_options(options, "--trailblaze-connect-option", known),
        }
    except ConfigurationError as exc:
        raise pytest.UsageError(str(exc)) from None


def worker_id(config: pytest.Config) -> str:
    """``gw0``, ``gw1``... under xdist, ``main`` otherwise: names per-worker logs, servers, records.

    Read from xdist's ``workerinput``, never from the environment: a pytest started inside an
    xdist worker (a test of a test suite) inherits ``PYTEST_XDIST_WORKER`` without being one.
    """
    return getattr(config, "workerinput", {}).get("workerid", "main")
