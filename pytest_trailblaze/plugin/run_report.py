"""The run's evidence at its end: ``summary.json``, the HTML report, and a terminal section
saying where the report, traces, videos and failure evidence are.

Records reach this plugin on the teardown reports (``report.trailblaze_record``), so under
pytest-xdist the controller, which sees every worker's reports, writes the files once.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from ..evidence.html import render
from ..evidence.summary import RECORD_SHAPE, SUMMARY_SHAPE, outcome_counts, summary, write_json, write_text
from ..session.run_evidence import pixel_warning
from .evidence_options import evidence_of
from .options import SETTINGS_KEY
from .output_masking import masker_of

SUMMARY_NAME = "summary.json"
#: Evidence kinds the end-of-run section names for a trail that did not pass.
_SHOWN_KINDS = ("failure screenshot", "page source", "trace", "video")


class RunReport:
    """Collects the trail records of the run and writes the run's evidence files at the end."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.records: dict[str, dict[str, Any]] = {}
        self.started = time.time()
        self.written: dict[str, str] = {}

    @property
    def is_worker(self) -> bool:
        return hasattr(self.config, "workerinput")

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        record = getattr(report, "trailblaze_record", None)
        if isinstance(record, dict) and report.when == "teardown":
            self.records[report.nodeid] = record  # a rerun replaces the earlier record

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self.is_worker:
            return
        evidence = evidence_of(self.config)
        records = list(self.records.values())
        masker = masker_of(self.config)
        if records:
            output = self.config.stash[SETTINGS_KEY].output_dir
            data = summary(
                records,
                started_at=_iso(self.started),
                duration_s=time.time() - self.started,
                report=_display(evidence.report) if evidence.report else None,
                output_dir=_display(output),
            )
            self.written["summary"] = _display(write_json(output / SUMMARY_NAME, data, masker, SUMMARY_SHAPE))
        if evidence.report is not None:
            meta = _meta(records, time.time() - self.started, self.started)
            page = render(
                [masker.value(r, RECORD_SHAPE) for r in records],
                report_path=evidence.report,
                title=_title(),
                meta=meta,
            )
            self.written["report"] = _display(write_text(evidence.report, page))

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.is_worker or not (self.written or self.records) or self.config.get_verbosity() < -1:
            return
        lines = [f"{kind}: {path}" for kind, path in sorted(self.written.items(), reverse=True)]
        lines += [line for record in self.records.values() for line in _evidence_lines(record)]
        notes = sorted({note for record in self.records.values() for note in record.get("notes", ())})
        warning = pixel_warning(evidence_of(self.config), masker_of(self.config))
        lines += [f"note: {note}" for note in [*notes, *([warning] if warning else [])]]
        if lines:
            terminalreporter.section("trailblaze evidence", sep="-")
            for line in lines:
                terminalreporter.line(line)


def _evidence_lines(record: dict[str, Any]) -> list[str]:
    """Where a trail's evidence is: for a trail that did not pass, or that kept a trace or video."""
    shown = [a["path"] for a in record.get("artifacts", ()) if a["kind"] in _SHOWN_KINDS]
    failed = record["outcome"] in ("failed", "error")
    if not record.get("artifacts_dir") or not (failed or shown):
        return []
    listed = f" ({', '.join(shown)})" if shown else ""
    return [f"{record['outcome']} {record['name']}: {record['artifacts_dir']}/{listed}"]


def _meta(records: list[dict[str, Any]], duration: float, started: float) -> str:
    counts = ", ".join(f"{n} {outcome}" for outcome, n in outcome_counts(records).items())
    return f"{len(records)} trails ({counts or 'none ran'}) · {duration:.1f} s · started {_iso(started)}"


def _title() -> str:
    return "pytest-trailblaze report"


def _iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).isoformat(timespec="seconds")


def _display(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)
