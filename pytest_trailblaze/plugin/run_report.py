"""The run's evidence at its end (``session.run_summary``): ``summary.json``, the HTML report, and a
terminal section saying where the report, traces, videos and failure evidence are.

Records reach this plugin on the teardown reports (``report.trailblaze_record``), so under
pytest-xdist the controller, which sees every worker's reports, writes the files once.
"""

from __future__ import annotations

import time
from typing import cast

import pytest

from ..evidence.record_format import TrailRecord
from .evidence_options import evidence_of
from .options import SETTINGS_KEY
from .output_masking import masker_of


class RunReport:
    """Collects the trail records of the run and writes the run's evidence files at the end."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.records: dict[str, TrailRecord] = {}
        self.started = time.time()
        self.written: dict[str, str] = {}

    @property
    def is_worker(self) -> bool:
        return hasattr(self.config, "workerinput")

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        record = getattr(report, "trailblaze_record", None)
        if isinstance(record, dict) and report.when == "teardown":
            # the record plugin/evidence.py put on the report (on this process, or on an xdist worker)
            self.records[report.nodeid] = cast(TrailRecord, record)  # a rerun replaces the earlier record

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self.is_worker:
            return
        from ..session.run_summary import write_run_files  # loaded here, not in the start-up

        output = self.config.stash[SETTINGS_KEY].output_dir
        records, evidence = list(self.records.values()), evidence_of(self.config)
        self.written = write_run_files(records, evidence, output, masker_of(self.config), self.started)

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if self.is_worker or not (self.written or self.records) or self.config.get_verbosity() < -1:
            return
        from ..session.run_summary import evidence_section

        records, evidence = list(self.records.values()), evidence_of(self.config)
        lines = evidence_section(records, self.written, evidence, masker_of(self.config))
        if lines:
            terminalreporter.section("trailblaze evidence", sep="-")
            for line in lines:
                terminalreporter.line(line)
