"""Hooks other plugins and ``conftest.py`` files implement to extend pytest-trailblaze."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from ..core.run.driver import Driver
    from ..core.run.runner import ResolvedStep
    from ..core.tooling.context import ToolContext
    from ..core.tooling.tooldef import ToolResult
    from ..session.registries import ToolCatalog

hookspec = pytest.hookspec


@hookspec(historic=True)
def pytest_trailblaze_register_tools(registry: ToolCatalog, config: pytest.Config) -> None:
    """Add tools to every session: call ``registry.register(tool)`` for each.

    Called once at start-up and replayed for plugins and conftest files registered later, so a
    ``conftest.py`` next to the trails can contribute tools. Every session's registry takes these
    tools; names must be unique across all sources (built-ins, workspace files, MCP servers).
    """


@hookspec(firstresult=True)
def pytest_trailblaze_make_driver(platform: str, request: pytest.FixtureRequest) -> Driver | None:
    """Return a driver for ``platform`` (an object with ``platform``, ``driver_key``,
    ``device_info()`` and ``close()``: the contract's ``Driver``), or None.

    Each further capability is a method of ``pytest_trailblaze.core.run.driver`` the driver may
    have (``screenshot(path)``, ``hierarchy()``, ``sleep(seconds)``, ``launch_app``...); a tool
    that needs one it lacks fails its call saying what the driver cannot do. Called once per
    trail item before the built-in driver is considered; the first non-None result wins. The
    plugin closes the driver after the trail.
    """


@hookspec(firstresult=True)
def pytest_trailblaze_agent_step(step: ResolvedStep, context: ToolContext, item: pytest.Item) -> object:
    """Perform a step that has no recording for the device (an AI agent, a human, a script).

    Return None to decline (the step then fails, or skips with --trailblaze-agent-steps=skip),
    any other value once the step is done; raise ``AssertionError`` when it could not be done.
    Tools are available through ``context.run(name, args)``. With a model configured
    (``--trailblaze-llm``) the built-in LLM agent takes the step first; it is also called for a
    ``step:`` whose recording failed under ``--trailblaze-self-heal`` (``step.heal_cause`` says why;
    ``step.healing`` holds the recorded calls, the messages of those that ran, and the error).
    """


def pytest_trailblaze_before_tool(name: str, args: Mapping[str, object], context: ToolContext) -> None:
    """Called before each tool call with its interpolated (secret-masked) arguments."""


def pytest_trailblaze_after_tool(
    name: str, args: Mapping[str, object], result: ToolResult, context: ToolContext
) -> None:
    """Called after each tool call that succeeded."""


def pytest_trailblaze_tool_error(
    name: str, args: Mapping[str, object], error: BaseException, context: ToolContext
) -> None:
    """Called when a tool call raised (a failed assertion, bad arguments, a broken driver)."""


def pytest_trailblaze_before_step(step: ResolvedStep, context: ToolContext, item: pytest.Item) -> None:
    """Called as each step starts, the trailhead included (``step.step.kind == "trailhead"``).

    ``step.number`` / ``step.total`` place it in the trail; ``step.needs_agent`` says whether an
    agent does it. Progress lines, step records and the HTML report are built from these hooks.
    """


def pytest_trailblaze_after_step(step: ResolvedStep, context: ToolContext, item: pytest.Item) -> None:
    """Called when a step passed (a recording replayed, a no-op, or an agent / self-heal did it)."""


def pytest_trailblaze_step_error(
    step: ResolvedStep, context: ToolContext, item: pytest.Item, error: BaseException
) -> None:
    """Called when a step failed or was interrupted; ``error`` is what it raised (a step failure's
    message has its secrets masked already; mask anything else you write with the run's masker)."""
