"""Text forms of step records: the live progress line and the step table of a trail.

``step 3/7 Add to cart … ✓ 0.42 s`` while running (``-v``); the same facts as a table in
the report sections pytest shows with ``-rA`` and with failures.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..core.masking import visible
from .records import NOT_RUN, StepRecord

#: Marks of a finished step.
MARKS = {"passed": "✓", "failed": "✗", "interrupted": "✗"}
#: Shown after a step's text when something other than a recording did it.
MODE_NOTES = {"agent": "agent", "self-healed": "self-healed", "no-op": "no-op"}
TEXT_WIDTH = 60


def short(text: str, width: int = TEXT_WIDTH) -> str:
    """The first line of ``text``, control characters shown (``\\x1b``), cut to ``width`` characters."""
    line = visible(text.strip().split("\n")[0]) if text.strip() else ""
    return line if len(line) <= width else line[: width - 1] + "…"


def seconds(value: float) -> str:
    return f"{value:.2f} s"


def start_text(record: StepRecord, *, agent: bool) -> str:
    """What is printed as a step starts: ``step 3/7 Add to cart [agent] … ``."""
    note = " [agent]" if agent else ""
    return f"{record.label} {short(record.text)}{note} … "


def end_text(record: StepRecord) -> str:
    """What completes the line: ``✓ 0.42 s``, with a note for self-healed steps."""
    note = " (self-healed)" if record.mode == "self-healed" else ""
    return f"{MARKS.get(record.outcome, '?')} {seconds(record.duration_s)}{note}"


def step_table(steps: Sequence[StepRecord]) -> str:
    """Every step of a trail, one line each: label, text, how it ran, outcome and time."""
    rows = []
    for step in steps:
        mode = MODE_NOTES.get(step.mode, "")
        took = seconds(step.duration_s) if step.outcome != NOT_RUN else ""
        rows.append((step.label, short(step.text, 50), mode, step.outcome, took))
    widths = [max((len(row[i]) for row in rows), default=0) for i in range(5)]
    lines = ["  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip() for row in rows]
    return "\n".join(lines)
