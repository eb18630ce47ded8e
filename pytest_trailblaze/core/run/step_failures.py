"""How a failed step is told: its headline (``step 3/7 'Add to cart': cause``), the assertion a
step raises into the test runner, and the step failure found behind any error.

The plugin turns these into pytest's reports (``plugin/failures.py``); they need no pytest.
"""

from __future__ import annotations

from ..errors import StepFailure, TrailblazeError, first_line
from ..masking import Masker
from .runner import ResolvedStep, StepFailureInfo, step_headline


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
