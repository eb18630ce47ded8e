"""The pytest plugin (entry point ``trailblaze``): options, collection, fixtures, reports.

This package is the only one that imports pytest. The modules below register as plugins of
their own so each keeps its hooks and fixtures next to the code they belong to.

Every process declares every option, ini key, hook specification and marker. The modules that
collect and run trails (collection, fixtures, evidence, recordings, the agent...) are imported and
registered only where trails are collected: not on a pytest-xdist controller, which hands the
items to its workers and only reads their reports. Its start-up comes before any worker starts.
"""

from __future__ import annotations

import importlib

import pytest

from ..core.trail.devices import PLATFORMS
from . import agent_settings, evidence_options, heap, hookspecs, options
from .options import SETTINGS_KEY, resolve_settings
from .output_masking import warn_short_secrets
from .run_report import RunReport

#: The plugins in the order they register (later ones' hooks run first among equals), each with
#: whether an xdist controller needs it too: reports and their masking, interrupts, the agent's
#: options and usage totals, the device pools' lease folder it hands its workers. The others
#: collect and run trails; their modules are imported where they register.
_PLUGINS = (
    ("collection", "collection", False),
    ("fixtures", "fixtures", False),
    ("reporting", "reporting", True),
    ("signals", "signals", True),
    ("agent-settings", "agent_settings", True),
    ("agent", "agent", False),
    ("evidence", "evidence", False),
    ("recordings", "trace_video", False),
    ("devices", "device_matrix", True),
    ("links", "links", False),
    ("playwright-compat", "playwright_compat", False),
    ("heap", "heap", True),
)


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    pluginmanager.add_hookspecs(hookspecs)


def pytest_addoption(parser: pytest.Parser) -> None:
    options.add_options(parser)
    agent_settings.add_options(parser)
    evidence_options.add_options(parser)


def is_xdist_controller(config: pytest.Config) -> bool:
    """Whether this process hands the items to pytest-xdist workers instead of collecting them.

    The same test as xdist's own (a distribution mode and workers to send to, not only collecting),
    and not ``--fixtures`` / ``--fixtures-per-test``, which collect in this process even then.
    """
    option = config.option
    return (
        not hasattr(config, "workerinput")
        and getattr(option, "dist", "no") != "no"
        and bool(getattr(option, "tx", None))
        and not option.collectonly
        and not option.showfixtures
        and not option.show_fixtures_per_test
    )


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    if not config.pluginmanager.is_blocked("trailblaze-heap"):
        heap.freeze_start_up(config)  # where the heap plugin registers: its freezes go together
    config.stash[SETTINGS_KEY] = resolve_settings(config)
    config.stash[evidence_options.EVIDENCE_KEY] = evidence_options.resolve(config)
    warn_short_secrets(config)
    for platform in PLATFORMS:
        config.addinivalue_line("markers", f"{platform}: trail items that run on the {platform} platform")
    config.addinivalue_line(
        "markers", "trailblaze(target, trail_id, driver, platform, tags): facts about a trail item"
    )
    collecting = not is_xdist_controller(config)
    for name, module_name, everywhere in _PLUGINS:
        if everywhere or collecting:
            module = importlib.import_module(f".{module_name}", __name__)
            if not config.pluginmanager.is_registered(module):
                config.pluginmanager.register(module, f"trailblaze-{name}")
    if not config.pluginmanager.has_plugin("trailblaze-run-report"):
        config.pluginmanager.register(RunReport(config), "trailblaze-run-report")
    if collecting:
        _register_tools(config)


def _register_tools(config: pytest.Config) -> None:
    """The run's tool catalog: built-in tools and those of ``pytest_trailblaze_register_tools``."""
    from ..session.registries import ToolCatalog
    from .collection import CATALOG_KEY

    catalog = ToolCatalog()
    config.stash[CATALOG_KEY] = catalog
    config.hook.pytest_trailblaze_register_tools.call_historic(kwargs={"registry": catalog, "config": config})
