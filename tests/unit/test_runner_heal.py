"""The runner hands failed recorded ``step:``s to the agent under self-heal, and nothing else."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_trailblaze import tool
from pytest_trailblaze.core.errors import FatalToolError, StepFailure, ToolFailure, TrailheadError
from pytest_trailblaze.core.run.runner import ResolvedStep, TrailRunner, plan_trail
from pytest_trailblaze.core.tooling.context import DeviceInfo, ToolContext
from pytest_trailblaze.core.tooling.memory import Memory
from pytest_trailblaze.core.tooling.registry import ToolRegistry
from pytest_trailblaze.core.trail.parse import parse_trail


@tool()
def stale(ctx: Any) -> str:
    raise ToolFailure("No element found matching css=#gone")


@tool()
def broken(ctx: Any) -> str:
    raise FatalToolError("the browser page is gone")


@tool()
def fine(ctx: Any) -> str:
    return "ok"


TRAIL = """\
trailhead:
  step: Start
  recording:
    web: {fine: {}}
trail:
  - step: Click the stale button
    recording:
      web: [{stale: {}}]
  - step: Carry on
    recording:
      web: [{fine: {}}]
"""


def runner(
    text: str, *, self_heal: bool = True, agent_result: Any = True, ai_only: bool = False
) -> tuple[TrailRunner, list[ResolvedStep]]:
    registry = ToolRegistry(platform="web")
    registry.register_all([stale, broken, fine])
    ctx = ToolContext(registry, Memory(), DeviceInfo("web", "playwright-native", 1280, 800))
    seen: list[ResolvedStep] = []

    def agent(step: ResolvedStep, context: ToolContext) -> Any:
        seen.append(step)
        return agent_result

    plan = plan_trail(parse_trail(text, "t.trail.yaml"), ("web",), use_recordings=not ai_only)
    return TrailRunner(plan, ctx, agent=agent, self_heal=self_heal), seen


def test_a_failed_recorded_step_is_healed_and_replay_goes_on() -> None:
    run, seen = runner(TRAIL)
    run.run_trailhead()
    run.run_steps()
    assert [s.number for s in seen] == [1]
    assert seen[0].heal_cause == "No element found matching css=#gone"
    assert [s.number for s in run.healed] == [1] and [s.number for s in run.agent_done] == [1]
    assert run.steps_run == 2


def test_without_self_heal_or_an_agent_taking_it_the_step_fails() -> None:
    for options in ({"self_heal": False}, {"agent_result": None}):
        run, _ = runner(TRAIL, **options)
        with pytest.raises(StepFailure, match="step 1 of 2 failed: Click the stale button"):
            run.run_steps()
        assert run.healed == []


def test_verify_steps_trailheads_and_fatal_errors_are_never_healed() -> None:
    cases = [
        TRAIL.replace("- step: Click the stale button", "- verify: The stale thing shows"),
        TRAIL.replace("[{stale: {}}]", "[{broken: {}}]"),
    ]
    for text in cases:
        run, seen = runner(text)
        with pytest.raises(StepFailure):
            run.run_steps()
        assert seen == []
    run, seen = runner(TRAIL.replace("web: {fine: {}}", "web: {stale: {}}"))
    with pytest.raises(TrailheadError):
        run.run_trailhead()
    assert seen == []


def test_a_failed_heal_says_what_it_healed() -> None:
    run, _ = runner(TRAIL)

    def failing_agent(step: ResolvedStep, context: ToolContext) -> Any:
        raise StepFailure("the agent could not do it")

    run.agent = failing_agent
    with pytest.raises(StepFailure) as caught:
        run.run_steps()
    assert str(caught.value).startswith(
        "the agent could not do it\n  self-heal of: t.trail.yaml:6:5: step 1 of 2"
    )


def test_ai_only_sends_every_step_to_the_agent_but_replays_the_trailhead() -> None:
    run, seen = runner(TRAIL, ai_only=True)
    assert run.plan.trailhead is not None and not run.plan.trailhead.needs_agent
    run.run_trailhead()
    run.run_steps()
    assert [s.number for s in seen] == [1, 2] and run.healed == []
    assert all(s.classifier == "web" for s in seen)
