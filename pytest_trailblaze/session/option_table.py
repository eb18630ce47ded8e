"""Every option and ini key a run takes, as data: its flags, help, ini key, type and default.

The pytest plugin declares them to pytest's parser in this order (an option, then the ini key that
sets it), and the options reference is generated from that declaration. ``run_options`` reads
what the user gave for them into ``Settings``; the agent's options are declared in
``agent_options`` next to the code that reads them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal, TypedDict, Unpack

from ..core.trail.filenames import TRAIL_FILE_PATTERNS
from ..drivers.appium_server import APPIUM_LOG_LEVELS

BROWSERS = ("chromium", "firefox", "webkit")
SCREENSHOT = ("on", "off", "only-on-failure")
RECORDING = ("on", "off", "retain-on-failure")
#: Older values of ``--trailblaze-screenshot`` still accepted, and what they mean now.
SCREENSHOT_ALIASES = {"on-failure": "only-on-failure"}


IniType = Literal["string", "paths", "pathlist", "args", "linelist", "bool", "int", "float"]


class IniExtra(TypedDict, total=False):
    """What pytest's ``addini`` is given besides the name and help: the value's type, its default."""

    type: IniType | None
    default: object


@dataclass(frozen=True)
class IniSpec:
    """An ini key: its name, help, and what else pytest's ``addini`` is given (type, default)."""

    name: str
    help: str
    extra: IniExtra = field(default_factory=lambda: IniExtra())


@dataclass(frozen=True)
class OptionSpec:
    """A command-line option (none for an ini key alone) and the ini keys that set it.

    ``cli`` is what pytest's ``addoption`` is given besides the flags and the destination:
    help, metavar, choices, action, default.
    """

    flags: tuple[str, ...]
    dest: str
    cli: Mapping[str, object]
    inis: tuple[IniSpec, ...] = ()


def _opt(
    name: str,
    ini: str | None = None,
    *,
    ini_type: IniType | None = None,
    ini_default: object = None,
    help: str,
    **cli: object,
) -> OptionSpec:
    """``--trailblaze-<name>``, and the ini key ``ini`` (of ``ini_type``, ``ini_default``) with its help."""
    inis = (IniSpec(ini, help, {"type": ini_type, "default": ini_default}),) if ini else ()
    dest = f"trailblaze_{name.replace('-', '_')}"
    return OptionSpec((f"--trailblaze-{name}",), dest, {"help": help, **cli}, inis)


def _ini(name: str, help: str, **extra: Unpack[IniExtra]) -> OptionSpec:
    """An ini key with no option of its own."""
    return OptionSpec((), "", {}, (IniSpec(name, help, extra),))


RUN_OPTIONS: tuple[OptionSpec, ...] = (
    _ini(
        "trailblaze_patterns",
        "file name patterns collected as trails",
        type="linelist",
        default=list(TRAIL_FILE_PATTERNS),
    ),
    _opt(
        "output",
        "trailblaze_output",
        ini_default="trailblaze-output",
        metavar="DIR",
        help="folder for per-test artifacts: failure screenshots, snapshots (default trailblaze-output)",
    ),
    _opt(
        "browser",
        "trailblaze_browser",
        ini_default="chromium",
        choices=BROWSERS,
        help="browser engine for web trails (default chromium)",
    ),
    _opt(
        "headed",
        "trailblaze_headed",
        ini_type="bool",
        ini_default=False,
        action="store_true",
        default=None,
        help="show the browser window",
    ),
    _opt(
        "browser-path",
        "trailblaze_browser_path",
        metavar="PATH",
        help="browser executable; default: Playwright's own, else the system Chromium "
        "(headless: chromium-headless-shell when installed)",
    ),
    _opt(
        "browser-launch-timeout",
        "trailblaze_browser_launch_timeout",
        metavar="SECONDS",
        help="how long the browser may take to start (or --trailblaze-connect to answer) before the "
        "web trails fail and it is stopped (default 30)",
    ),
    _opt(
        "browser-arg",
        "trailblaze_browser_args",
        ini_type="linelist",
        ini_default=[],
        action="append",
        metavar="ARG",
        help="extra browser launch argument (repeatable)",
    ),
    _opt(
        "connect",
        "trailblaze_connect",
        metavar="WS_ENDPOINT",
        help="connect to a running Playwright browser server (playwright run-server, launchServer, a "
        "cloud browser service) instead of launching one",
    ),
    _opt(
        "cdp",
        "trailblaze_cdp",
        metavar="URL",
        help="attach to a running Chromium over CDP: http://HOST:PORT of its --remote-debugging-port, "
        "or its ws://.../devtools/browser/... URL",
    ),
    _opt(
        "connect-header",
        "trailblaze_connect_headers",
        ini_type="linelist",
        ini_default=[],
        action="append",
        metavar="NAME=VALUE",
        help="HTTP header for --trailblaze-connect / --trailblaze-cdp, like 'Authorization=Bearer "
        "{{TOKEN}}' ({{ENV_VAR}} reads the environment; repeatable)",
    ),
    _opt(
        "connect-option",
        "trailblaze_connect_options",
        ini_type="linelist",
        ini_default=[],
        action="append",
        metavar="KEY=VALUE",
        help="Playwright connect option: slow_mo=MS, expose_network=RULES (--trailblaze-connect only); "
        "repeatable",
    ),
    _opt(
        "viewport",
        "trailblaze_viewport",
        ini_default="1280x800",
        metavar="WxH",
        help="web viewport (default 1280x800)",
    ),
    _opt(
        "web-timeout",
        "trailblaze_web_timeout_ms",
        metavar="MS",
        help="action timeout of web tools in ms (default 30000, 45000 when CI is set)",
    ),
    _opt(
        "settle-ms",
        "trailblaze_settle_ms",
        ini_default="500",
        metavar="MS",
        help="quiet window after an action that started network requests (default 500)",
    ),
    _opt(
        "memory", action="append", default=[], metavar="KEY=VALUE", help="seed a memory value (repeatable)"
    ),
    _opt(
        "secret",
        action="append",
        default=[],
        metavar="KEY=VALUE|NAME",
        help="seed a secret memory value, masked in everything the run writes (repeatable); "
        "a bare NAME takes the value of environment variable NAME",
    ),
    _opt("arg", action="append", default=[], metavar="NAME=VALUE", help="bind a trail arg (repeatable)"),
    _opt("args-file", metavar="FILE", help="YAML or JSON map of trail args (--trailblaze-arg overrides it)"),
    _opt(
        "agent-steps",
        "trailblaze_agent_steps",
        ini_default="fail",
        choices=("fail", "skip"),
        help="steps with no recording for the device and no agent: fail (default) or skip the trail",
    ),
    _opt(
        "platform",
        "trailblaze_platform",
        ini_default="web",
        choices=("web", "android", "ios"),
        help="platform for trails that name no device classifier (default web)",
    ),
    _opt(
        "agent-mode",
        "trailblaze_agent_mode",
        ini_default="host",
        choices=("host", "on-device"),
        help="agent mode of the session; on-device disables tools that need the host",
    ),
    _opt(
        "driver",
        metavar="DRIVER",
        help="the upstream driver the sessions of its platform report (enum name or key, e.g. "
        "PLAYWRIGHT_ELECTRON): tools, toolsets and MCP servers filtered by driver follow it; "
        "overrides trail pins",
    ),
    _opt(
        "config-dir",
        "trailblaze_config_dir",
        metavar="DIR",
        help="workspace config folder (holding trailblaze.yaml); default: trails/config found walking up "
        "from each trail, or TRAILBLAZE_CONFIG_DIR",
    ),
    _opt(
        "strict",
        "trailblaze_strict",
        ini_type="bool",
        ini_default=False,
        action="store_true",
        default=None,
        help="treat naming and trailmap-scoping warnings as errors",
    ),
    _opt(
        "allow-outside-code",
        "trailblaze_allow_outside_code",
        ini_type="bool",
        ini_default=False,
        action="store_true",
        default=None,
        help="let trails and tool files name code outside the workspace root: Python files, installed "
        "modules, MCP server scripts (code you trust)",
    ),
    _opt(
        "max-file-size",
        "trailblaze_max_file_size",
        metavar="SIZE",
        help="refuse trail and workspace files larger than SIZE (default 10MB; e.g. 512KB, 20MB)",
    ),
    _opt(
        "allow-file-urls",
        "trailblaze_allow_file_urls",
        ini_type="paths",
        ini_default=[],
        action="append",
        metavar="PATH",
        help="let web trails open file:// URLs under PATH too (repeatable, added to the ini's); by "
        "default only files inside the trail's workspace and the rootdir",
    ),
    _opt(
        "mcp-handshake-timeout",
        "trailblaze_mcp_handshake_timeout",
        metavar="SECONDS",
        help="how long an MCP server may take to answer `initialize` (default 60, or "
        "TRAILBLAZE_MCP_SUBPROCESS_HANDSHAKE_TIMEOUT_MS)",
    ),
    _opt(
        "mcp-call-timeout",
        "trailblaze_mcp_call_timeout",
        metavar="SECONDS",
        help="how long one MCP tool call may take before the server is stopped (default 60)",
    ),
    _opt(
        "appium-url",
        "trailblaze_appium_url",
        metavar="URL",
        help="Appium server for android / ios trails (or TRAILBLAZE_APPIUM_URL), e.g. http://127.0.0.1:4723",
    ),
    _opt(
        "appium-server",
        "trailblaze_appium_server",
        metavar="DIR",
        help="start a local Appium server for the run from DIR/node_modules/appium (stopped at the end)",
    ),
    _opt(
        "appium-log-level",
        "trailblaze_appium_log_level",
        ini_default="warn",
        choices=APPIUM_LOG_LEVELS,
        help="log level of the local Appium server (default warn); its log is masked like all output",
    ),
    _opt(
        "appium-caps",
        "trailblaze_appium_caps",
        metavar="FILE",
        help="YAML or JSON file of Appium capabilities by platform ({android: {...}, ios: {...}}) or by "
        "device (android-phone, android-tablet, ios-ipad, ...: each an item per trail, with its own url "
        "and a pool of devices for xdist workers)",
    ),
    _opt(
        "appium-fresh-session",
        "trailblaze_appium_fresh_session",
        ini_type="bool",
        ini_default=False,
        action="store_true",
        default=None,
        help="start a new Appium session for every trail instead of one per platform and worker",
    ),
    _opt(
        "full-trace",
        action="store_true",
        default=False,
        help="show Python tracebacks for trail failures instead of the trail report",
    ),
)

EVIDENCE_OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        ("--trailblaze-report",),
        "trailblaze_report",
        {
            "metavar": "PATH",
            "help": "write a self-contained HTML report of the trails (steps, tool calls, screenshots) "
            "to PATH",
        },
        (IniSpec("trailblaze_report", "HTML report path (see --trailblaze-report)"),),
    ),
    OptionSpec(
        ("--trailblaze-screenshot", "--trailblaze-screenshots"),
        "trailblaze_screenshot",
        {
            "choices": (*SCREENSHOT, *SCREENSHOT_ALIASES),
            "help": "screenshots of trails: on (after every step), off, only-on-failure (default)",
        },
        (
            IniSpec("trailblaze_screenshot", "screenshots of trails: on, off, only-on-failure"),
            IniSpec("trailblaze_screenshots", "older name of trailblaze_screenshot"),
        ),
    ),
    OptionSpec(
        ("--trailblaze-tracing",),
        "trailblaze_tracing",
        {
            "choices": RECORDING,
            "help": "Playwright traces of web trails (open with `playwright show-trace`): on, off "
            "(default), retain-on-failure",
        },
        (IniSpec("trailblaze_tracing", "Playwright traces: on, off, retain-on-failure"),),
    ),
    OptionSpec(
        ("--trailblaze-video",),
        "trailblaze_video",
        {
            "choices": RECORDING,
            "help": "videos of trails (web; mobile where the Appium driver can record the screen): on, "
            "off (default), retain-on-failure",
        },
        (IniSpec("trailblaze_video", "videos of trails: on, off, retain-on-failure"),),
    ),
)
