"""The one-line and report forms of a failed step, and steps stopped from outside (a timeout)."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_trailblaze import tool
from pytest_trailblaze.core.errors import AgentFailure, AgentStepRequired, ToolFailure, TrailheadError
from pytest_trailblaze.core.masking import Masker
from pytest_trailblaze.core.run.runner import ResolvedStep, StepFailureInfo, TrailRunner, plan_trail
from pytest_trailblaze.core.run.step_failures import headline, step_assertion, trail_error
from pytest_trailblaze.core.tooling.context import DeviceInfo, ToolContext
from pytest_trailblaze.core.tooling.memory import Memory
from pytest_trailblaze.core.tooling.registry import ToolRegistry
from pytest_trailblaze.core.trail.parse import parse_trail
from pytest_trailblaze.plugin.failures import failure_repr


class Stop(BaseException):
    """Stands for what a test timeout raises into a call (pytest-timeout: ``pytest.fail``)."""


@tool()
def hang(ctx: Any) -> str:
    raise Stop("Timeout (>3.0s) from pytest-timeout.")


@tool()
def mismatch(ctx: Any) -> str:
    raise ToolFailure("expected 'pears' but got 'apples'\nmore detail")


TRAIL = """\
trail:
  - step: Fine
    recording:
      web: []
  - step: "Wait for the   slow back end"
    recording:
      web: [{mismatch: {}}, {hang: {}}]
"""


def runner(text: str = TRAIL, **options: Any) -> TrailRunner:
    registry = ToolRegistry(platform="web")
    registry.register_all([hang, mismatch])
    ctx = ToolContext(registry, Memory(), DeviceInfo("web", "playwright-native", 1280, 800))
    return TrailRunner(plan_trail(parse_trail(text, "t.trail.yaml"), ("web",)), ctx, **options)


def test_a_stop_from_outside_is_the_located_failure_of_the_running_call() -> None:
    text = TRAIL.replace("{mismatch: {}}, ", "")
    healed: list[ResolvedStep] = []
    stopped = runner(text, stops=(Stop,), self_heal=True, agent=lambda step, ctx: healed.append(step) or True)

    with pytest.raises(StepFailureInfo) as caught:
        stopped.run_steps()

    assert str(caught.value).splitlines() == [
        "t.trail.yaml:5:5: step 2 of 2 failed: Wait for the   slow back end",
        "  tool 1 of 1 (line 7): hang {}",
        "  cause: stopped while running: Timeout (>3.0s) from pytest-timeout.",
    ]
    assert isinstance(caught.value.__cause__, Stop)
    assert caught.value.headline == (
        "step 2/2 'Wait for the slow back end': stopped while running: Timeout (>3.0s) from pytest-timeout."
    )
    assert stopped.failed is not None and stopped.failed.number == 2
    assert healed == [], "a stopped step is never handed to the agent"


def test_without_stops_the_outside_exception_passes_through_untouched() -> None:
    with pytest.raises(Stop):
        runner(TRAIL.replace("{mismatch: {}}, ", "")).run_steps()


def test_a_failed_step_raises_an_assertion_error_whose_first_line_is_the_headline() -> None:
    masker = Masker({"fruit": "apples"})
    run = runner()
    with pytest.raises(StepFailureInfo) as caught:
        run.run_steps()

    error = step_assertion(caught.value, run.failed, masker)

    assert type(error) is AssertionError
    first = str(error).splitlines()[0]
    assert first == "step 2/2 'Wait for the slow back end': expected 'pears' but got '********'"
    assert "t.trail.yaml:5:5: step 2 of 2 failed" in str(error) and "apples" not in str(error)


def test_agent_failures_take_their_cause_line_or_their_first_line() -> None:
    run = runner()
    step = run.plan.steps[1]
    where = f"{step.step.span}: {step.label}"
    required = AgentStepRequired(f"{where} needs an agent: no recording for web\n  fix: ...")
    failed = AgentFailure(f"{where} failed: the agent could not do it\n  cause: HTTP 500")

    named = "step 2/2 'Wait for the slow back end'"
    assert headline(required, step) == f"{named}: needs an agent: no recording for web"
    assert headline(failed, step) == f"{named}: HTTP 500"


def test_reports_keep_the_text_and_add_a_crash_line() -> None:
    run = runner()
    with pytest.raises(StepFailureInfo) as caught:
        run.run_steps()
    try:
        raise step_assertion(caught.value, run.failed, Masker()) from caught.value
    except AssertionError as exc:
        error = exc

    full = failure_repr(error, "t.trail.yaml", 5, "auto")
    line = failure_repr(error, "t.trail.yaml", 5, "line")
    trailhead = TrailheadError("could not reach the starting state: x")
    head = failure_repr(trailhead, "t.trail.yaml", 1, "line", failure=False)

    crash = "AssertionError: step 2/2 'Wait for the slow back end': expected 'pears' but got 'apples'"
    assert full is not None and line is not None and head is not None
    assert str(full.reprcrash) == f"t.trail.yaml:5: {crash}"
    assert str(full).splitlines()[0] == "t.trail.yaml:5:5: step 2 of 2 failed: Wait for the   slow back end"
    assert str(full).splitlines()[-1] == crash
    assert str(line) == "", "--tb=line: pytest prints the crash line, nothing else"
    assert str(head).strip() == "t.trail.yaml:1: TrailheadError: could not reach the starting state: x"
    assert trail_error(error) is caught.value
    assert failure_repr(ValueError("not ours"), "t.trail.yaml", 1, "auto") is None
