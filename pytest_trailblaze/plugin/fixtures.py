"""Public fixtures, all prefixed ``trailblaze_``; override any of them in ``conftest.py``.

The chain mirrors pytest-playwright's: small fixtures returning plain values
(``trailblaze_browser_options``, ``trailblaze_browser_context_args``, ``trailblaze_memory_defaults``)
feed the ones that start things (``trailblaze_browser``, ``trailblaze_driver``) and the one that
runs the trailhead (``trailblaze_run``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

import pytest

from ..core.jsondata import JsonValue
from ..core.run.driver import Driver
from ..core.tooling.context import DeviceInfo
from ..core.tooling.memory import Memory
from ..core.tooling.registry import ToolRegistry
from ..drivers.appium import AppiumHost
from ..drivers.browser import BrowserHost
from ..drivers.browser_options import BrowserOptions
from ..drivers.playwright import WebDriver
from ..mcp.toolsets import McpToolsets
from ..session.driver_choice import handed_context, reported_device
from ..session.memory_seed import seed_memory
from ..session.registries import SessionRegistries, ToolCatalog
from ..session.settings import Settings
from ..session.trail_items import NO_DRIVER
from ..session.trailrun import TrailRun
from ..workspace import Workspace
from . import playwright_compat, trace_video
from .collection import CATALOG_KEY, TrailItem, warn_at
from .device_matrix import LEASES_KEY, appium_driver
from .evidence import item_artifacts
from .item_runs import ItemHooks, run_setup, skips_as_pytest
from .options import SETTINGS_KEY, worker_id
from .output_masking import masker_of

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext


def _trail_item(request: pytest.FixtureRequest, fixture: str) -> TrailItem:
    node = request.node
    if not isinstance(node, TrailItem):
        raise pytest.UsageError(f"{fixture} is only available to trail items, not to {node.nodeid}")
    return node


@pytest.fixture(scope="session")
def trailblaze_settings(pytestconfig: pytest.Config) -> Settings:
    """The resolved options and ini values of this run."""
    return pytestconfig.stash[SETTINGS_KEY]


@pytest.fixture(scope="session")
def trailblaze_browser_options(
    request: pytest.FixtureRequest, trailblaze_settings: Settings
) -> BrowserOptions:
    """How the browser is launched; override to change any launch setting.

    With pytest-playwright, its ``--browser``, ``--headed``, ``--browser-channel``, ``--slowmo`` and
    ``browser_type_launch_args`` fixture apply where ``--trailblaze-*`` options say nothing.
    """
    options = playwright_compat.browser_options(request, trailblaze_settings.browser)
    return trace_video.browser_options(options, request.config)


@pytest.fixture(scope="session")
def trailblaze_browser_context_args() -> Mapping[str, JsonValue]:
    """Extra keyword arguments for ``browser.new_context()`` (locale, permissions, ...); they win
    over pytest-playwright's ``browser_context_args`` where that applies (``playwright_compat``)."""
    return {}


@pytest.fixture
def trailblaze_browser_context() -> BrowserContext | None:
    """A Playwright ``BrowserContext`` to run each web trail in, or None (the default): a fresh
    context of the trails' own browser.

    Override it to hand trails a context of your own, e.g. pytest-playwright's (its browser, its
    ``browser_context_args``, its traces and videos): ``def trailblaze_browser_context(context):
    return context``. The trail runs in its first page and leaves it open to its owner.
    """
    return None


@pytest.fixture(scope="session")
def trailblaze_browser(trailblaze_browser_options: BrowserOptions) -> Iterator[BrowserHost]:
    """The worker's browser; launched on first use, closed at the end of the session."""
    host = BrowserHost(trailblaze_browser_options)
    try:
        yield host
    finally:
        host.close()


@pytest.fixture(scope="session")
def trailblaze_appium_capabilities(trailblaze_settings: Settings) -> Mapping[str, Mapping[str, object]]:
    """Appium capabilities by device name (``android``, ``ios``, or the profiles of the caps file,
    like ``android-tablet``); override to add vendor keys."""
    return trailblaze_settings.appium.capabilities


@pytest.fixture(scope="session")
def trailblaze_appium(request: pytest.FixtureRequest, trailblaze_settings: Settings) -> Iterator[AppiumHost]:
    """The worker's Appium server connection (a local server when asked) and its sessions."""
    worker = worker_id(request.config)
    logs = trailblaze_settings.output_dir / "appium-logs"
    leases = request.config.stash.get(LEASES_KEY, None)
    host = AppiumHost(trailblaze_settings.appium, logs, worker, leases, masker_of(request.config))
    try:
        yield host
    finally:
        host.close()


@pytest.fixture(scope="session")
def trailblaze_memory_defaults() -> Mapping[str, JsonValue]:
    """Memory values seeded before everything else (config.memory and the CLI override them)."""
    return {}


@pytest.fixture(scope="session")
def trailblaze_tool_catalog(pytestconfig: pytest.Config) -> ToolCatalog:
    """Tools contributed through ``pytest_trailblaze_register_tools``."""
    return pytestconfig.stash[CATALOG_KEY]


@pytest.fixture(scope="session")
def trailblaze_mcp_toolsets(
    pytestconfig: pytest.Config, trailblaze_settings: Settings
) -> Iterator[McpToolsets]:
    """The worker's MCP tool servers by session scope; all stopped at the end of the session."""
    worker = worker_id(pytestconfig)
    toolsets = McpToolsets(
        trailblaze_settings.output_dir / "mcp-logs",
        handshake_timeout=trailblaze_settings.mcp_handshake_timeout,
        call_timeout=trailblaze_settings.mcp_call_timeout,
        worker=worker,
        masker=masker_of(pytestconfig),
    )
    try:
        yield toolsets
    finally:
        toolsets.close()


@pytest.fixture(scope="session")
def trailblaze_sessions(
    pytestconfig: pytest.Config,
    trailblaze_settings: Settings,
    trailblaze_tool_catalog: ToolCatalog,
    trailblaze_mcp_toolsets: McpToolsets,
) -> SessionRegistries:
    """The worker's tool registries, one per session scope (target, platform, driver, agent mode)."""
    return SessionRegistries(
        trailblaze_tool_catalog,
        pytestconfig.hook,
        trailblaze_mcp_toolsets,
        strict=trailblaze_settings.strict,
        warn=warn_at,
    )


@pytest.fixture
def trailblaze_driver(request: pytest.FixtureRequest) -> Iterator[Driver]:
    """The driver of this trail's platform: a fresh browser context for web."""
    item = _trail_item(request, "trailblaze_driver")
    if item.platform == "web":
        yield from _web_driver(request)
        return
    driver = request.config.hook.pytest_trailblaze_make_driver(platform=item.platform, request=request)
    if driver is None and item.platform in ("android", "ios"):
        driver = appium_driver(request, item)
    if driver is None:
        pytest.skip(NO_DRIVER.get(item.platform, f"no driver for {item.platform}"))
    try:
        yield driver
    finally:
        driver.close()


def _web_driver(request: pytest.FixtureRequest) -> Iterator[Driver]:
    """A web trail's driver: a hook's, a handed-in context's, or a fresh context of our browser.

    Playwright's loop is marked on the main thread only while the trail runs: the thread's mark
    is put back as it was found, so async tests and pytest-playwright's page tests that come
    later find no loop of ours (see ``drivers/loopstate.py``).
    """
    host: BrowserHost = request.getfixturevalue("trailblaze_browser")
    with host.loop.left_as_found():
        driver = request.config.hook.pytest_trailblaze_make_driver(platform="web", request=request)
        if driver is None:
            driver = _handed_driver(request, host.options)
        if driver is None:
            driver = WebDriver.open(host, context_args=_context_args(request))
        try:
            yield driver
        finally:
            driver.close()


def _context_args(request: pytest.FixtureRequest) -> dict[str, JsonValue]:
    """A fresh context's arguments: pytest-playwright's ``browser_context_args`` (when it applies),
    then ``trailblaze_browser_context_args``."""
    theirs = request.getfixturevalue("_trailblaze_playwright_context_args")
    return {**theirs, **request.getfixturevalue("trailblaze_browser_context_args")}


def _handed_driver(request: pytest.FixtureRequest, options: BrowserOptions) -> WebDriver | None:
    """A driver over the context ``trailblaze_browser_context`` hands in, if it hands one."""
    playwright_compat.resume_theirs(request.config)  # a handed context may be pytest-playwright's
    context = request.getfixturevalue("trailblaze_browser_context")
    if context is None:
        return None
    return WebDriver.handed(handed_context(context), options)


@pytest.fixture
def trailblaze_workspace(request: pytest.FixtureRequest) -> Workspace | None:
    """The trail's workspace (trailmaps, targets, toolsets, tools), or None without one."""
    return _trail_item(request, "trailblaze_workspace").workspace


@pytest.fixture
def trailblaze_device_info(trailblaze_driver: Driver, trailblaze_settings: Settings) -> DeviceInfo:
    """The measured device (size, density, classifier) of this trail's driver, reporting the
    ``--trailblaze-driver`` when that names a driver of its platform."""
    return reported_device(trailblaze_driver.device_info(), trailblaze_settings.driver_override)


@pytest.fixture
def trailblaze_registry(
    request: pytest.FixtureRequest,
    trailblaze_device_info: DeviceInfo,
    trailblaze_sessions: SessionRegistries,
    trailblaze_settings: Settings,
) -> ToolRegistry:
    """The tool registry of this trail's session scope."""
    item = _trail_item(request, "trailblaze_registry")
    return trailblaze_sessions.get(
        workspace=item.workspace,
        target=item.target,
        device=trailblaze_device_info,
        agent_mode=trailblaze_settings.agent_mode,
    )


@pytest.fixture
def trailblaze_memory(
    request: pytest.FixtureRequest,
    trailblaze_settings: Settings,
    trailblaze_memory_defaults: Mapping[str, JsonValue],
) -> Memory:
    """This trail's memory, seeded from defaults, config.memory, the CLI, secrets and args."""
    item = _trail_item(request, "trailblaze_memory")
    return seed_memory(item.trail, trailblaze_settings, trailblaze_memory_defaults)


@pytest.fixture
def trailblaze_run(
    request: pytest.FixtureRequest,
    trailblaze_driver: Driver,
    trailblaze_device_info: DeviceInfo,
    trailblaze_registry: ToolRegistry,
    trailblaze_memory: Memory,
    trailblaze_settings: Settings,
) -> TrailRun:
    """The trail run of this item, with its trailhead done (a trailhead failure is an ERROR)."""
    item = _trail_item(request, "trailblaze_run")
    setup = run_setup(request.config, trailblaze_settings)
    artifacts = item_artifacts(item, trailblaze_settings)
    with skips_as_pytest():
        run = TrailRun(
            item.facts(),
            trailblaze_driver,
            trailblaze_device_info,
            trailblaze_registry,
            trailblaze_memory,
            setup,
            hooks=ItemHooks(item),
            artifacts=artifacts,
        )
    sessions: SessionRegistries = request.getfixturevalue("trailblaze_sessions")
    mode = trailblaze_settings.agent_mode
    run.server_logs = sessions.server_logs(item.workspace, item.target, trailblaze_device_info, mode)
    run.start()
    return run
