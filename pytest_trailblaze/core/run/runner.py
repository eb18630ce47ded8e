"""Replay of a trail for one device: trailhead, then steps, each in one of three states
(docs/upstream.md, Recordings: three states).

For the device's classifier chain each step resolves to a list of calls (replayed in order,
stopping at the first failure), an empty list (a passing no-op), or nothing at all (an agent
step: handed to the agent callback, or a failure naming the missing recording).
"""

from __future__ import annotations

import json
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Protocol

from ..errors import (
    AgentStepRequired,
    FatalToolError,
    StepFailure,
    ToolError,
    TrailblazeError,
    TrailheadError,
)
from ..jsondata import JsonValue
from ..masking import MASK
from ..shown import clip, clip_value
from ..tooling.context import ToolContext
from ..tooling.registry import ANNOTATION_ARGS, FAILURE_CHARS
from ..trail.lineage import resolve
from ..trail.model import Step, ToolCall, Trail


@dataclass(frozen=True, slots=True)
class Heal:
    """A recorded step that failed and goes to the agent: its calls, what the ones that ran
    answered (in order), and why the next one failed. The calls that ran stay done: the agent
    does what is left, and the written recording keeps them in front of the agent's calls."""

    calls: tuple[ToolCall, ...]
    ran: tuple[str, ...]
    cause: str

    @property
    def kept(self) -> tuple[ToolCall, ...]:
        """The recorded calls that worked, in order."""
        return self.calls[: len(self.ran)]


@dataclass(frozen=True, slots=True)
class ResolvedStep:
    """A step as it runs on one device."""

    number: int
    total: int
    step: Step
    classifier: str
    matched: str | None
    calls: tuple[ToolCall, ...] | None
    #: Why the step's recording failed, when the step is handed to the agent to heal it.
    heal_cause: str | None = None
    #: The recording's calls, those that ran and the failure, when the step is being healed.
    healing: Heal | None = None

    @property
    def needs_agent(self) -> bool:
        return self.calls is None

    @property
    def label(self) -> str:
        return "the trailhead" if self.step.kind == "trailhead" else f"step {self.number} of {self.total}"

    @property
    def short_label(self) -> str:
        """``step 3/7`` or ``trailhead``: the form of one-line summaries."""
        return "trailhead" if self.step.kind == "trailhead" else f"step {self.number}/{self.total}"


@dataclass(frozen=True, slots=True)
class TrailPlan:
    """Every step of a trail resolved against one device's classifier chain."""

    trail: Trail
    chain: tuple[str, ...]
    trailhead: ResolvedStep | None
    steps: tuple[ResolvedStep, ...]

    def agent_steps(self) -> list[ResolvedStep]:
        return [s for s in (self.trailhead, *self.steps) if s is not None and s.needs_agent]


def resolve_step(
    step: Step, chain: tuple[str, ...], number: int, total: int, *, use_recording: bool = True
) -> ResolvedStep:
    classifier = chain[0] if chain else "unknown"
    hit = resolve(step.recording, chain) if step.recording and use_recording else None
    if hit is None or not step.recordable:
        return ResolvedStep(number, total, step, classifier, None, None)
    return ResolvedStep(number, total, step, classifier, hit[0], hit[1])


def plan_trail(trail: Trail, chain: tuple[str, ...], *, use_recordings: bool = True) -> TrailPlan:
    """Resolve every step; without ``use_recordings`` (AI-only mode) steps go to the agent, except
    the trailhead and v1 ``- tools:`` blocks, which always replay."""
    total = len(trail.steps)
    head = resolve_step(trail.trailhead, chain, 0, total) if trail.trailhead else None
    steps = tuple(
        resolve_step(s, chain, i, total, use_recording=use_recordings or s.kind == "tools")
        for i, s in enumerate(trail.steps, start=1)
    )
    return TrailPlan(trail, chain, head, steps)


class RunListener(Protocol):
    """Told as each step (trailhead included) starts and ends: progress, records, reports.

    ``error`` is None when the step passed, else what it raised (a ``StepFailure``, an
    interrupt...). A listener must not raise: the step's own outcome is what counts.
    """

    def step_started(self, step: ResolvedStep) -> None: ...

    def step_finished(self, step: ResolvedStep, error: BaseException | None) -> None: ...


#: Takes an agent step; returns None to decline, anything else when done; raises on failure.
AgentCallback = Callable[[ResolvedStep, ToolContext], object]


@dataclass
class TrailRunner:
    """Runs a ``TrailPlan`` through a ``ToolContext``; records progress for reports."""

    plan: TrailPlan
    ctx: ToolContext
    agent: AgentCallback | None = None
    #: Told of every step's start and end, in order (see ``RunListener``).
    listeners: list[RunListener] = field(default_factory=list)
    #: Hand a ``step:`` whose recorded tool failed to the agent (never verify:, trailhead, fatal).
    self_heal: bool = False
    #: What stops a tool call from outside the trail (a test timeout's exception): raised into a
    #: call, it becomes the failure of the step that was running, located like any other.
    stops: tuple[type[BaseException], ...] = ()
    steps_run: int = 0
    failed: ResolvedStep | None = field(default=None)
    #: Steps the agent did (no recording, or healed), and the healed ones among them.
    agent_done: list[ResolvedStep] = field(default_factory=list)
    healed: list[ResolvedStep] = field(default_factory=list)

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
        for listener in self.listeners:
            listener.step_started(step)
        try:
            if step.needs_agent:
                self._run_agent(step)
            else:
                self._replay_or_heal(step)
        except BaseException as exc:
            for listener in self.listeners:
                listener.step_finished(step, exc)
            raise
        for listener in self.listeners:
            listener.step_finished(step, None)

    def _replay(self, step: ResolvedStep, ran: list[str] | None = None) -> None:
        """Run the step's calls in order; ``ran`` gets the message of each call that worked."""
        calls = step.calls or ()
        for index, call in enumerate(calls, start=1):
            try:
                result = self.ctx.registry.execute(call.name, call.args, self.ctx)
            except ToolError as exc:
                raise StepFailureInfo.build(self.plan.trail, step, call, index, exc, self.ctx) from exc
            except TrailblazeError:
                raise
            except Exception as exc:  # a tool's own code raised: a failed step, in the trail's terms
                raise StepFailureInfo.crashed(step, call, index, exc, self.ctx) from exc
            except self.stops as exc:
                raise StepFailureInfo.stopped(step, call, index, exc, self.ctx) from exc
            if ran is not None:
                ran.append(self.ctx.memory.mask(result.message))

    def _replay_or_heal(self, step: ResolvedStep) -> None:
        ran: list[str] = []
        try:
            self._replay(step, ran)
        except StepFailureInfo as exc:
            fatal = isinstance(exc.__cause__, FatalToolError) or not isinstance(exc.__cause__, Exception)
            if not (self.self_heal and self.agent and step.step.kind == "step") or fatal:
                raise
            heal = Heal(tuple(step.calls or ()), tuple(ran), exc.cause)
            healing = replace(step, heal_cause=exc.cause.splitlines()[0], healing=heal)
            try:
                outcome = self.agent(healing, self.ctx)
            except StepFailure as heal_error:
                heal_error.args = (f"{heal_error.args[0]}\n  self-heal of: {exc.args[0]}",)
                raise
            if outcome is None:
                raise
            self.agent_done.append(step)
            self.healed.append(step)

    def _run_agent(self, step: ResolvedStep) -> None:
        outcome = self.agent(step, self.ctx) if self.agent else None
        if outcome is None:
            raise AgentStepRequired(agent_message(self.plan.trail, step))
        self.agent_done.append(step)


def agent_message(trail: Trail, step: ResolvedStep) -> str:
    why = " (the step is `recordable: false`)" if not step.step.recordable else ""
    return (
        f"{step.step.span}: {step.label} needs an agent: no recording for {step.classifier}{why}\n"
        f"  step: {step.step.text}\n"
        f"  fix: record it under `recording:` as `{step.classifier}: [...]`, let a model do it "
        f"(--trailblaze-llm PROVIDER/MODEL), enable an agent plugin (pytest_trailblaze_agent_step), "
        f"or pass --trailblaze-agent-steps=skip"
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
        arguments: dict[str, JsonValue],
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
        arguments = (
            exc.arguments if exc.arguments is not None else clip_value(ctx.memory.mask(dict(call.args)))
        )
        cause = clip(ctx.memory.mask(str(exc)), FAILURE_CHARS)
        message = describe_failure(step, call, index, arguments, cause)
        return cls(message, step=step, call=call, index=index, arguments=arguments, cause=cause)

    @classmethod
    def crashed(
        cls, step: ResolvedStep, call: ToolCall, index: int, exc: Exception, ctx: ToolContext
    ) -> StepFailureInfo:
        """A tool raised something other than a tool error: the cause is the exception and the
        frames outside this package (the user's own code); the chained original keeps them all."""
        arguments = shown_arguments(call, ctx)
        cause = clip(ctx.memory.mask(describe_exception(exc)), FAILURE_CHARS)
        message = describe_failure(step, call, index, arguments, cause)
        return cls(message, step=step, call=call, index=index, arguments=arguments, cause=cause)

    @classmethod
    def stopped(
        cls, step: ResolvedStep, call: ToolCall, index: int, exc: BaseException, ctx: ToolContext
    ) -> StepFailureInfo:
        """The call was stopped from outside (a test timeout): its message is the cause, without
        the frames of whatever library call happened to be waiting at that moment."""
        arguments = shown_arguments(call, ctx)
        cause = ctx.memory.mask(f"stopped while running: {str(exc).strip() or type(exc).__name__}")
        message = describe_failure(step, call, index, arguments, cause)
        return cls(message, step=step, call=call, index=index, arguments=arguments, cause=cause)

    @property
    def headline(self) -> str:
        """One line for summaries: ``step 3/7 'Add to cart': <first line of the cause>``."""
        return step_headline(self.step, self.cause)

    def with_screenshot(self, path: str) -> None:
        self.screenshot = path
        self.args = (f"{self.args[0]}\n  screenshot: {path}",)


def step_headline(step: ResolvedStep, cause: str) -> str:
    """``step 3/7 'Add to cart': cause`` on one line (the step's text and the cause's first line)."""
    text = " ".join(step.step.text.split())
    first = next((line.strip() for line in cause.splitlines() if line.strip()), "(no message)")
    return f"{step.short_label} {text!r}: {first}"


def describe_failure(
    step: ResolvedStep, call: ToolCall, index: int, arguments: dict[str, JsonValue], cause: str
) -> str:
    count = len(step.calls or ())
    head = f"{step.step.span}: {step.label} failed: {step.step.text}"
    tool_line = f"  tool {index} of {count} (line {call.span.line}): {call.name} {render_args(arguments)}"
    cause_lines = cause.strip().splitlines() or ["(no message)"]
    body = "\n".join(["  cause: " + cause_lines[0], *("    " + line for line in cause_lines[1:])])
    return "\n".join([head, tool_line, body])


def shown_arguments(call: ToolCall, ctx: ToolContext) -> dict[str, JsonValue]:
    """The call's arguments as the registry showed them: interpolated, secrets and sensitive masked."""
    args = {k: v for k, v in call.args.items() if k not in ANNOTATION_ARGS}
    try:
        args = ctx.memory.interpolate(args)
    except TrailblazeError:
        pass
    hidden = ctx.registry.get(call.name).descriptor.sensitive_args if call.name in ctx.registry else ()
    return {k: MASK if k in hidden else v for k, v in clip_value(ctx.memory.mask(args)).items()}


def describe_exception(exc: BaseException) -> str:
    """``Type: message``, then the frames of the traceback that are not this package's."""
    kind = type(exc)
    name = kind.__qualname__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"
    text = str(exc).strip()
    lines = [f"{name}: {text}" if text else name]
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if not _is_ours(f.filename)]
    if frames:
        lines.append("traceback (your code; --trailblaze-full-trace shows every frame):")
        for frame in frames:
            lines.append(f"  {_shown_path(frame.filename)}:{frame.lineno} in {frame.name}")
            if frame.line:
                lines.append(f"    {frame.line}")
    else:
        lines.append("(raised inside pytest-trailblaze; --trailblaze-full-trace shows the traceback)")
    return "\n".join(lines)


#: The pytest_trailblaze package (this file is core/run/runner.py): its frames are not "your code".
_PACKAGE = Path(__file__).resolve().parents[2]


def _is_ours(filename: str) -> bool:
    return Path(filename).resolve().is_relative_to(_PACKAGE)


def _shown_path(filename: str) -> str:
    try:
        return str(Path(filename).resolve().relative_to(Path.cwd()))
    except ValueError:
        return filename


def render_args(arguments: dict[str, JsonValue]) -> str:
    return json.dumps(arguments, ensure_ascii=False, default=str, separators=(", ", ": "))
