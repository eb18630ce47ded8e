"""The built-in agent's options, read in every process (an xdist controller too): a bad value is
a usage error before any worker starts, and the agent's usage is totalled from every report.

What runs the agent (``agent``) is registered only where trails run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from ..session.agent_options import AGENT_OPTIONS, read_agent
from .agent_reports import REPORTS_PLUGIN, AgentReports
from .options import as_usage_error, declare, given

if TYPE_CHECKING:
    from ..session.settings import AgentSettings

AGENT_KEY = pytest.StashKey["AgentSettings"]()


def add_options(parser: pytest.Parser) -> None:
    declare(parser, AGENT_OPTIONS)


def resolve(config: pytest.Config) -> AgentSettings:
    """Read the agent options once; a bad value is a usage error naming the option."""
    return as_usage_error(lambda: read_agent(given(config)))


def pytest_configure(config: pytest.Config) -> None:
    config.stash[AGENT_KEY] = resolve(config)
    if config.pluginmanager.get_plugin(REPORTS_PLUGIN) is None:
        config.pluginmanager.register(AgentReports(), REPORTS_PLUGIN)
