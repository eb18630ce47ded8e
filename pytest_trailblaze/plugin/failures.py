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
from ..core.errors import first_line
from ..core.run.step_failures import trail_error

if TYPE_CHECKING:
    from ..compat import ReprExceptionInfo


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
