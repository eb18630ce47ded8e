"""Replay of a trail for one device: trailhead, then steps, each in one of three states (U§1.5).

For the device's classifier chain each step resolves to a list of calls (replayed in order,
stopping at the first failure), an empty list (a passing no-op), or nothing at all (an agent
step: handed to the agent callback, or a failure naming the missing recording).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from .context import ToolContext
from .errors import AgentStepRequired, StepFailure, ToolError, TrailheadError
from .lineage import resolve
from .model import Step, ToolCall, Trail


@dataclass(frozen=True, slots=True)
class ResolvedStep:
    """A step as it runs on one device."""

    number: int
    total: int
    step: Step
    classifier: str
    matched: str | None
    calls: tuple[ToolCall, ...] | None

    @property
    def needs_agent(self) -> bool:
        return self.calls is None

    @property
    def label(self) -> str:
        return "the trailhead" if self.step.kind == "trailhead" else f"step {self.number} of {self.total}"


@dataclass(frozen=True, slots=True)
class TrailPlan:
    """Every step of a trail resolved against one device's classifier chain."""

    trail: Trail
    chain: tuple[str, ...]
    trailhead: ResolvedStep | None
    steps: tuple[ResolvedStep, ...]

    def agent_steps(self) -> list[ResolvedStep]:
        return [s for s in (self.trailhead, *self.steps) if s is not None and s.needs_agent]


def resolve_step(step: Step, chain: tuple[str, ...], number: int, total: int) -> ResolvedStep:
    classifier = chain[0] if chain else "unknown"
    hit = resolve(step.recording, chain) if step.recording else None
    if hit is None or not step.recordable:
        return ResolvedStep(number, total, step, classifier, None, None)
    return ResolvedStep(number, total, step, classifier, hit[0], hit[1])


def plan_trail(trail: Trail, chain: tuple[str, ...]) -> TrailPlan:
    total = len(trail.steps)
    head = resolve_step(trail.trailhead, chain, 0, total) if trail.trailhead else None
    steps = tuple(resolve_step(s, chain, i, total) for i, s in enumerate(trail.steps, start=1))
    return TrailPlan(trail, chain, head, steps)


class RunListener(Protocol):
    def step_started(self, step: ResolvedStep) -> None: ...

    def step_finished(self, step: ResolvedStep, passed: bool) -> None: ...


#: Takes an agent step; returns None to decline, anything else when done; raises on failure.
AgentCallback = Callable[[ResolvedStep, ToolContext], Any]


@dataclass
class TrailRunner:
    """Runs a ``TrailPlan`` through a ``ToolContext``; records progress for reports."""

    plan: TrailPlan
    ctx: ToolContext
    agent: AgentCallback | None = None
    listener: RunListener | None = None
    steps_run: int = 0
    failed: ResolvedStep | None = field(default=None)

    def run_trailhead(self) -> None:
        """Reach the starting state; any failure is a ``TrailheadError``."""
        head = self.plan.trailhead
        if head is None:
            return
        try:
            self._run_step(head)
        except StepFailure as exc:
            self.failed = head
            raise TrailheadError(f"could not reach the starting state: {exc}") from exc

    def run_steps(self) -> None:
        for step in self.plan.steps:
            try:
                self._run_step(step)
            except StepFailure:
                self.failed = step
                raise
            self.steps_run += 1

    def _run_step(self, step: ResolvedStep) -> None:
        if self.listener:
            self.listener.step_started(step)
        passed = False
        try:
            if step.needs_agent:
                self._run_agent(step)
            else:
                self._replay(step)
            passed = True
        finally:
            if self.listener:
                self.listener.step_finished(step, passed)

    def _replay(self, step: ResolvedStep) -> None:
        calls = step.calls or ()
        for index, call in enumerate(calls, start=1):
            try:
                self.ctx.registry.execute(call.name, call.args, self.ctx)
            except ToolError as exc:
                raise StepFailureInfo.build(self.plan.trail, step, call, index, exc, self.ctx) from exc

    def _run_agent(self, step: ResolvedStep) -> None:
        outcome = self.agent(step, self.ctx) if self.agent else None
        if outcome is None:
            raise AgentStepRequired(agent_message(self.plan.trail, step))


def agent_message(trail: Trail, step: ResolvedStep) -> str:
    why = " (the step is `recordable: false`)" if not step.step.recordable else ""
    return (
        f"{step.step.span}: {step.label} needs an agent: no recording for {step.classifier}{why}\n"
        f"  step: {step.step.text}\n"
        f"  fix: record it under `recording:` as `{step.classifier}: [...]`, enable an agent plugin "
        f"(pytest_trailblaze_agent_step), or pass --trailblaze-agent-steps=skip"
    )


class StepFailureInfo(StepFailure):
    """A failed step with everything a reader needs: where, which tool, with what, and why."""

    def __init__(
        self,
        message: str,
        *,
        step: ResolvedStep,
        call: ToolCall,
        index: int,
        arguments: dict[str, Any],
        cause: str,
    ) -> None:
        super().__init__(message)
        self.step = step
        self.call = call
        self.index = index
        self.arguments = arguments
        self.cause = cause
        self.screenshot: str | None = None

    @classmethod
    def build(
        cls, trail: Trail, step: ResolvedStep, call: ToolCall, index: int, exc: ToolError, ctx: ToolContext
    ) -> StepFailureInfo:
        arguments = exc.arguments if exc.arguments is not None else ctx.memory.mask(dict(call.args))
        cause = ctx.memory.mask(str(exc))
        message = describe_failure(step, call, index, arguments, cause)
        return cls(message, step=step, call=call, index=index, arguments=arguments, cause=cause)

    def with_screenshot(self, path: str) -> None:
        self.screenshot = path
        self.args = (f"{self.args[0]}\n  screenshot: {path}",)


def describe_failure(
    step: ResolvedStep, call: ToolCall, index: int, arguments: dict[str, Any], cause: str
) -> str:
    count = len(step.calls or ())
    head = f"{step.step.span}: {step.label} failed: {step.step.text}"
    tool_line = f"  tool {index} of {count} (line {call.span.line}): {call.name} {render_args(arguments)}"
    cause_lines = cause.strip().splitlines() or ["(no message)"]
    body = "\n".join(["  cause: " + cause_lines[0], *("    " + line for line in cause_lines[1:])])
    return "\n".join([head, tool_line, body])


def render_args(arguments: dict[str, Any]) -> str:
    return json.dumps(arguments, ensure_ascii=False, default=str, separators=(", ", ": "))
