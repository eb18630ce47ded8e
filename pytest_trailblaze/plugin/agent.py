"""The built-in LLM agent in pytest: the agent-step hooks, recording write-back.

The agent itself (``session.agent_steps``) takes steps without a recording for the device when a
model is set (``session.agent_options``); ``--trailblaze-save-recordings`` writes what it did into
the trail files after a trail passed. Options: ``agent_settings``; usage and cost: ``agent_reports``.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING

import pytest

from ..agent.agent_tools import TOOLS
from ..session.agent_options import workspace_model
from .agent_reports import JUDGE_KEY, RUNS_KEY
from .agent_settings import AGENT_KEY

if TYPE_CHECKING:  # the agent's loop loads with the first model: a replay-only run never needs it
    from ..agent import StepRun
    from ..core.run.runner import ResolvedStep
    from ..core.tooling.context import ToolContext
    from ..session.registries import ToolCatalog
    from ..session.settings import AgentSettings
    from ..session.trailrun import TrailRun
    from .collection import TrailItem

AGENT_PLUGIN = "trailblaze-llm-agent"


class BuiltinAgent:
    """The agent (``session.agent_steps``) as a plugin of the run; registered only when a model is set."""

    def __init__(self, settings: AgentSettings) -> None:
        from ..session.agent_steps import AgentSteps

        self.steps = AgentSteps(settings)

    @pytest.hookimpl(tryfirst=True)
    def pytest_trailblaze_before_step(
        self, step: ResolvedStep, context: ToolContext, item: TrailItem
    ) -> None:
        """Tools that ask the model about the screen (``rememberWithAi``...) get it, replayed or not."""
        if context.judge is None:
            judge = self.steps.judge(getattr(item, "workspace", None))
            if judge is not None:
                context.judge = item.stash.setdefault(JUDGE_KEY, judge)

    @pytest.hookimpl(tryfirst=True)
    def pytest_trailblaze_agent_step(
        self, step: ResolvedStep, context: ToolContext, item: TrailItem
    ) -> StepRun | None:
        spec = self.steps.spec_for(getattr(item, "workspace", None))
        if spec is None:
            return None
        runs = item.stash.setdefault(RUNS_KEY, [])
        return self.steps.take_step(spec, step, context, item.trail, item.workspace, runs)


def pytest_configure(config: pytest.Config) -> None:
    if config.stash[AGENT_KEY].spec is not None:  # read by agent_settings, registered before this
        _register_agent(config)


def _register_agent(config: pytest.Config) -> None:
    if config.pluginmanager.get_plugin(AGENT_PLUGIN) is None:
        config.pluginmanager.register(BuiltinAgent(config.stash[AGENT_KEY]), AGENT_PLUGIN)


def pytest_unconfigure(config: pytest.Config) -> None:
    agent = config.pluginmanager.get_plugin(AGENT_PLUGIN)
    if agent is not None:
        agent.steps.close()


def pytest_trailblaze_register_tools(registry: ToolCatalog, config: pytest.Config) -> None:
    for tool in TOOLS:
        registry.register(tool)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A model named only in a workspace's trailblaze.yaml turns the agent on too."""
    if any(workspace_model(getattr(item, "workspace", None)) for item in items):
        _register_agent(config)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    """After a trail passed, write what the agent did into the trail file (when asked to)."""
    result = yield
    run: TrailRun | None = getattr(item, "funcargs", {}).get("trailblaze_run")
    settings = item.config.stash[AGENT_KEY]
    runs = item.stash.get(RUNS_KEY, None)
    if run is not None and settings.save_recordings and runs:
        from ..session.agent_writeback import save_agent_recordings

        trail, path = run.item.trail, run.item.path
        written = save_agent_recordings(trail, path, runs, run.context, run.device, heal=settings.self_heal)
        item.user_properties.extend(written)
    return result
