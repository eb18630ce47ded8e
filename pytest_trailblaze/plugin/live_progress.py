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

import pytest

from ..compat import capture_suspended, forget_report_location
from ..evidence.progress import end_text, start_text
from ..evidence.records import StepRecord

INDENT = "    "


class LiveProgress:
    """Writes step lines to the terminal when pytest runs verbosely in this process."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.reporter: pytest.TerminalReporter | None = config.pluginmanager.get_plugin("terminalreporter")
        worker = hasattr(config, "workerinput")
        self.enabled = self.reporter is not None and not worker and config.get_verbosity() >= 1
        self._open = False

    def new_test(self) -> None:
        """A test starts (a rerun too): no step line is open."""
        self._open = False

    def started(self, record: StepRecord, *, agent: bool) -> None:
        if not self.enabled or self.reporter is None:
            return
        with capture_suspended(self.config):
            self.reporter.write("\n" + INDENT + start_text(record, agent=agent))
            self.reporter.flush()
        forget_report_location(self.reporter)
        self._open = True

    def finished(self, record: StepRecord) -> None:
        if not self.enabled or not self._open or self.reporter is None:
            return
        good = record.outcome == "passed"
        with capture_suspended(self.config):
            self.reporter.write(end_text(record), green=good, red=not good)
            self.reporter.flush()
        forget_report_location(self.reporter)
        self._open = False
