"""Step and trail records: what a trail run did, as plain data ready for JSON.

Records are built from the runner's step events and the tool log the registry keeps (masked
arguments, durations), never from a driver: the same record feeds the per-trail
``record.json``, ``summary.json``, the HTML report, JUnit properties and the progress lines.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..core.jsondata import JsonValue
from ..core.trail.model import Step, Trail
from .record_format import CallDict, StepDict

if TYPE_CHECKING:  # annotations only: an xdist controller reads records without the runner
    from ..core.run.runner import ResolvedStep
    from ..core.tooling.registry import ToolLogEntry

#: Step outcomes: ``passed`` / ``failed`` / ``interrupted`` once run, ``not run`` otherwise.
NOT_RUN = "not run"


@dataclass(frozen=True, slots=True)
class CallRecord:
    """One tool call of a step: arguments as the registry showed them (secrets masked)."""

    name: str
    args: dict[str, JsonValue]
    outcome: str
    message: str
    duration_s: float
    depth: int

    def as_dict(self) -> CallDict:
        """The call as plain data, its arguments copied (the record outlives the tool log)."""
        return {
            "name": self.name,
            "args": copy.deepcopy(self.args),
            "outcome": self.outcome,
            "message": self.message,
            "duration_s": self.duration_s,
            "depth": self.depth,
        }


@dataclass(slots=True)
class StepRecord:
    """One step (the trailhead is number 0) and how it went."""

    number: int
    total: int
    kind: str
    text: str
    line: int | None
    #: ``replay``, ``no-op``, ``agent`` or ``self-healed``; ``planned`` for a step not run.
    mode: str
    outcome: str = NOT_RUN
    duration_s: float = 0.0
    calls: list[CallRecord] = field(default_factory=list)
    error: str | None = None
    #: Path of a screenshot of this step, relative to the trail's artifacts folder.
    screenshot: str | None = None

    @property
    def label(self) -> str:
        return "trailhead" if self.kind == "trailhead" else f"step {self.number}/{self.total}"

    def as_dict(self) -> StepDict:
        """The step as plain data, in field order, with its label."""
        return {
            "number": self.number,
            "total": self.total,
            "kind": self.kind,
            "text": self.text,
            "line": self.line,
            "mode": self.mode,
            "outcome": self.outcome,
            "duration_s": self.duration_s,
            "calls": [call.as_dict() for call in self.calls],
            "error": self.error,
            "screenshot": self.screenshot,
            "label": self.label,
        }


def planned(step: Step, number: int, total: int) -> StepRecord:
    """A step as the trail file states it, before (or without) running."""
    line = step.span.line if step.span else None
    return StepRecord(number, total, step.kind, step.text, line, "planned")


def plan_of(trail: Trail) -> list[StepRecord]:
    """Every step of a trail, trailhead first, all ``not run``."""
    total = len(trail.steps)
    head = [planned(trail.trailhead, 0, total)] if trail.trailhead else []
    return head + [planned(s, i, total) for i, s in enumerate(trail.steps, start=1)]


def _mode(step: ResolvedStep, calls: Sequence[CallRecord], error: BaseException | None) -> str:
    if step.needs_agent:
        return "agent"
    if not step.calls:
        return "no-op"
    healed = error is None and any(c.depth == 0 and c.outcome == "failed" for c in calls)
    return "self-healed" if healed else "replay"


def _outcome(error: BaseException | None) -> str:
    if error is None:
        return "passed"
    return "failed" if isinstance(error, Exception) else "interrupted"  # Ctrl-C, SIGTERM, timeouts


def call_records(entries: Sequence[ToolLogEntry]) -> list[CallRecord]:
    outcome = {True: "passed", False: "failed", None: "running"}
    return [
        CallRecord(
            e.name, dict(e.args), outcome[e.success], e.message, round(e.duration_ms / 1000, 4), e.depth
        )
        for e in entries
    ]


class StepRecorder:
    """Turns step start / end events into ``StepRecord`` objects, timing each step."""

    def __init__(self, trail: Trail, clock: Callable[[], float] = time.perf_counter) -> None:
        self.steps = plan_of(trail)
        self.clock = clock
        self._started: dict[int, tuple[float, int]] = {}
        #: Each record by (is the trailhead, number): finding a step's record is a lookup, so a trail
        #: of 20,000 steps costs 20,000 lookups, not 20,000 scans of the plan.
        self._slots = {(r.kind == "trailhead", r.number): r for r in self.steps}

    def started(self, step: ResolvedStep, log: Sequence[ToolLogEntry]) -> StepRecord:
        self._started[step.number] = (self.clock(), len(log))
        return self._slot(step)

    def finished(
        self, step: ResolvedStep, log: Sequence[ToolLogEntry], error: BaseException | None
    ) -> StepRecord:
        now = self.clock()
        began, first = self._started.pop(step.number, (now, len(log)))
        record = self._slot(step)
        record.calls = call_records(log[first:])
        record.duration_s = round(now - began, 4)
        record.outcome = _outcome(error)
        record.mode = _mode(step, record.calls, error)
        record.error = str(error) if error is not None and str(error) else None
        if error is not None and record.error is None:
            record.error = type(error).__name__
        return record

    def _slot(self, step: ResolvedStep) -> StepRecord:
        """The record of ``step``: its place in the plan (the trailhead is first when present)."""
        key = (step.step.kind == "trailhead", step.number)
        record = self._slots.get(key)
        if record is None:
            record = self._slots[key] = planned(step.step, step.number, step.total)
            self.steps.append(record)
        return record

    @property
    def failed(self) -> StepRecord | None:
        return next((s for s in self.steps if s.outcome in ("failed", "interrupted")), None)
