"""The pytest plugin (entry point ``trailblaze``): options, collection, fixtures, reports.

This package is the only one that imports pytest. The modules below register as plugins of
their own so each keeps its hooks and fixtures next to the code they belong to.
"""

from __future__ import annotations

import pytest

from ..core.trail.devices import PLATFORMS
from ..session.registries import ToolCatalog
from . import (
    agent,
    collection,
    device_matrix,
    evidence,
    evidence_options,
    fixtures,
    heap,
    hookspecs,
    links,
    playwright_compat,
    reporting,
    signals,
    trace_video,
)
from .collection import CATALOG_KEY
from .options import SETTINGS_KEY, add_options, resolve_settings
from .output_masking import warn_short_secrets
from .run_report import RunReport


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    pluginmanager.add_hookspecs(hookspecs)


def pytest_addoption(parser: pytest.Parser) -> None:
    add_options(parser)
    agent.add_options(parser)
    evidence_options.add_options(parser)


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    config.stash[SETTINGS_KEY] = resolve_settings(config)
    config.stash[evidence_options.EVIDENCE_KEY] = evidence_options.resolve(config)
    warn_short_secrets(config)
    for platform in PLATFORMS:
        config.addinivalue_line("markers", f"{platform}: trail items that run on the {platform} platform")
    config.addinivalue_line(
        "markers", "trailblaze(target, trail_id, driver, platform, tags): facts about a trail item"
    )
    plugins = {"collection": collection, "fixtures": fixtures, "reporting": reporting, "signals": signals,
               "agent": agent, "evidence": evidence, "recordings": trace_video, "devices": device_matrix,
               "links": links, "playwright-compat": playwright_compat, "heap": heap}  # fmt: skip
    for name, module in plugins.items():
        if not config.pluginmanager.is_registered(module):
            config.pluginmanager.register(module, f"trailblaze-{name}")
    if not config.pluginmanager.has_plugin("trailblaze-run-report"):
        config.pluginmanager.register(RunReport(config), "trailblaze-run-report")
    catalog = ToolCatalog()
    config.stash[CATALOG_KEY] = catalog
    config.hook.pytest_trailblaze_register_tools.call_historic(kwargs={"registry": catalog, "config": config})
