"""How a trail's failure reads to pytest, and to the tools that read pytest's reports.

A failed step is an assertion failure. The call phase raises a plain ``AssertionError`` whose
message starts ``step 3/7 'Add to cart': <cause>``, chained to the located ``StepFailure``: so
``--only-rerun AssertionError`` (pytest-rerunfailures), Allure's "failed" status and any log
parser that looks for ``AssertionError`` take it as one.

Its report shows the located text of the failure (file:line:col, step, tool, cause, screenshot)
and ends with that ``AssertionError`` line. It also carries a crash line (the trail's file, the
failing step's line and the one-line message), which pytest prints for ``--tb=line`` and in the
short summary (``-rA``) and which JUnit takes as the failure's ``message``. Errors of our own in
setup and teardown (trailhead, driver, tool servers) get the same shape with their own type.

The report is made of pytest's own report parts (``compat.plain_longrepr``): the only shape whose
crash line pytest serializes, so it arrives unchanged through pytest-xdist and through the secret
masking, which rebuilds reports from their serialized form.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from ..compat import plain_longrepr
from ..core.errors import StepFailure, TrailblazeError, first_line
from ..core.masking import Masker
from ..core.run.runner import ResolvedStep, StepFailureInfo, step_headline

if TYPE_CHECKING:
    from ..compat import ReprExceptionInfo


def step_assertion(failure: StepFailure, step: ResolvedStep | None, masker: Masker) -> AssertionError:
    """The ``AssertionError`` a failed step raises into pytest (chain it to ``failure``)."""
    return AssertionError(masker.text(f"{headline(failure, step)}\n{failure}"))


def headline(failure: StepFailure, step: ResolvedStep | None) -> str:
    """``step 3/7 'Add to cart': cause``; agent failures take their ``cause:`` line as the cause."""
    if isinstance(failure, StepFailureInfo):
        return failure.headline
    step = step or next((e.step for e in causes(failure) if isinstance(e, StepFailureInfo)), None)
    text = str(failure)
    if step is None:
        return first_line(failure, text)
    lines = [line.strip() for line in text.splitlines()]
    cause = next((line.removeprefix("cause: ") for line in lines if line.startswith("cause: ")), None)
    if cause is None:
        cause = first_line(failure, text).removeprefix(f"{step.step.span}: ").removeprefix(f"{step.label} ")
    return step_headline(step, cause)


def causes(error: BaseException) -> list[BaseException]:
    """``error`` and the errors it was raised from, newest first."""
    chain: list[BaseException] = []
    current: BaseException | None = error
    while current is not None and current not in chain:
        chain.append(current)
        current = current.__cause__ or (None if current.__suppress_context__ else current.__context__)
    return chain


def trail_error(error: BaseException) -> TrailblazeError | None:
    """The error of ours behind ``error``: itself, or the step failure a step's assertion wraps."""
    if isinstance(error, TrailblazeError):
        return error
    if type(error) is AssertionError and isinstance(error.__cause__, StepFailure):
        return error.__cause__
    return None


def failing_line(error: BaseException, step: ResolvedStep | None) -> int | None:
    """The line of the step that failed: from the error's chain, else from the runner's record."""
    located = next((e.step for e in causes(error) if isinstance(e, StepFailureInfo)), None) or step
    return located.step.span.line if located is not None else None


def failure_repr(
    error: BaseException, path: str, line: int, style: str, *, failure: bool = True
) -> ReprExceptionInfo | None:
    """The report of a failure of ours (see the module docstring), or None for anyone else's.

    With ``--tb=line`` (``style``) only the crash line is shown: one line per failure. pytest
    prints that line itself for failures; for errors (``failure=False``) the report holds it.
    """
    ours = trail_error(error)
    if ours is None:
        return None
    text: str | None
    if ours is error:
        crash = f"{type(error).__name__}: {first_line(error)}"
        text = str(error)
    else:
        crash = f"AssertionError: {first_line(error)}"
        text = f"{ours}\n{crash}"
    if style == "line":
        text = None if failure else f"{path}:{line}: {crash}"
    return plain_longrepr(text, path, line, crash)


def report_location(report: pytest.TestReport, line: int | None) -> None:
    """Point the report's location (``reportinfo``'s line, 0-based) at the failing step."""
    if line is not None and report.location is not None:
        report.location = (report.location[0], line - 1, report.location[2])
