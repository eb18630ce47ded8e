"""Live step progress under ``-v``: each step of a trail as it runs, in pytest's own output.

The lines go where pytest's live logging puts its records: after the test's location line,
with capturing suspended for the write, ending on a fresh line so that pytest's ``PASSED`` /
``FAILED`` word lands on a line of its own. Nothing is printed with ``-q`` or on an xdist
worker (whose output nobody sees; the step table in the report sections covers that case).
Text goes through the terminal writer, which the masking filter already wraps.
"""

from __future__ import annotations

from contextlib import nullcontext
from typing import Any

import pytest

from ..evidence.progress import end_text, start_text
from ..evidence.records import StepRecord

INDENT = "    "


class LiveProgress:
    """Writes step lines to the terminal when pytest runs verbosely in this process."""

    def __init__(self, config: pytest.Config) -> None:
        self.reporter = config.pluginmanager.get_plugin("terminalreporter")
        self.capture = config.pluginmanager.get_plugin("capturemanager")
        worker = hasattr(config, "workerinput")
        self.enabled = self.reporter is not None and not worker and config.get_verbosity() >= 1
        self._item: str | None = None
        self._open = False

    def new_test(self) -> None:
        """A test starts (a rerun too): its first step begins below its location line."""
        self._item, self._open = None, False

    def _suspended(self) -> Any:
        return self.capture.global_and_fixture_disabled() if self.capture is not None else nullcontext()

    def started(self, nodeid: str, record: StepRecord, *, agent: bool) -> None:
        if not self.enabled:
            return
        with self._suspended():
            if self._item != nodeid:  # the first step of this test: leave pytest's location line
                self._item = nodeid
                self.reporter.write("\n")
            elif self._open:
                self.reporter.write("\n")
            self.reporter.write(INDENT + start_text(record, agent=agent))
            self.reporter.flush()
        self._open = True

    def finished(self, record: StepRecord) -> None:
        if not self.enabled or not self._open:
            return
        good = record.outcome == "passed"
        with self._suspended():
            self.reporter.write(end_text(record), green=good, red=not good)
            self.reporter.write("\n")
            self.reporter.flush()
        self._open = False
