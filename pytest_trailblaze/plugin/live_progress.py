"""Live step progress under ``-v``: each step of a trail as it runs, in pytest's own output.

Each step gets a line below the test's location line, written with capturing suspended (as
pytest's live logging does). Afterwards the terminal reporter is told the line is not its own, so
it writes the test's location again with its ``PASSED`` / ``FAILED`` word: the classic
``path::name PASSED`` line stays whole for people and tools that read it. Nothing is printed
with ``-q`` or on an xdist worker (whose output nobody sees; the step table in the report
sections covers that case). Text goes through the terminal writer, which the masking filter
already wraps.
"""

from __future__ import annotations

from contextlib import nullcontext
from typing import Any

import pytest

from ..evidence.progress import end_text, start_text
from ..evidence.records import StepRecord

INDENT = "    "


#: What the terminal reporter keeps as "current location" after writing a result: any value other
#: than a test's location line makes it start a fresh line with that location before the result.
NOT_A_LOCATION = -2


class LiveProgress:
    """Writes step lines to the terminal when pytest runs verbosely in this process."""

    def __init__(self, config: pytest.Config) -> None:
        self.reporter = config.pluginmanager.get_plugin("terminalreporter")
        self.capture = config.pluginmanager.get_plugin("capturemanager")
        worker = hasattr(config, "workerinput")
        self.enabled = self.reporter is not None and not worker and config.get_verbosity() >= 1
        self._open = False

    def new_test(self) -> None:
        """A test starts (a rerun too): no step line is open."""
        self._open = False

    def _suspended(self) -> Any:
        return self.capture.global_and_fixture_disabled() if self.capture is not None else nullcontext()

    def started(self, record: StepRecord, *, agent: bool) -> None:
        if not self.enabled:
            return
        with self._suspended():
            self.reporter.write("\n" + INDENT + start_text(record, agent=agent))
            self.reporter.flush()
        self.reporter.currentfspath = NOT_A_LOCATION
        self._open = True

    def finished(self, record: StepRecord) -> None:
        if not self.enabled or not self._open:
            return
        good = record.outcome == "passed"
        with self._suspended():
            self.reporter.write(end_text(record), green=good, red=not good)
            self.reporter.flush()
        self.reporter.currentfspath = NOT_A_LOCATION
        self._open = False
