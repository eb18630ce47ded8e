"""The run's evidence at its end, from the records of its trails: ``summary.json``, the HTML report,
and the lines that say where the report, traces, videos and failure evidence are."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from pathlib import Path

from ..core.masking import Masker
from ..evidence.html import render
from ..evidence.record_format import TrailRecord
from ..evidence.summary import RECORD_SHAPE, SUMMARY_SHAPE, outcome_counts, summary, write_json, write_text
from .run_evidence import pixel_warning
from .settings import EvidenceSettings

SUMMARY_NAME = "summary.json"
#: Evidence kinds the end-of-run section names for a trail that did not pass.
_SHOWN_KINDS = ("failure screenshot", "page source", "trace", "video")


def write_run_files(
    records: list[TrailRecord], evidence: EvidenceSettings, output: Path, masker: Masker, started: float
) -> dict[str, str]:
    """Write ``summary.json`` (when a trail ran) and the HTML report (when asked for); returns
    what was written, by kind, as the user sees its path."""
    written: dict[str, str] = {}
    if records:
        data = summary(
            records,
            started_at=_iso(started),
            duration_s=time.time() - started,
            report=_display(evidence.report) if evidence.report else None,
            output_dir=_display(output),
        )
        written["summary"] = _display(write_json(output / SUMMARY_NAME, data, masker, SUMMARY_SHAPE))
    if evidence.report is not None:
        meta = _meta(records, time.time() - started, started)
        page = render(
            [masker.value(r, RECORD_SHAPE) for r in records],
            report_path=evidence.report,
            title=_title(),
            meta=meta,
        )
        written["report"] = _display(write_text(evidence.report, page))
    return written


def evidence_section(
    records: list[TrailRecord], written: dict[str, str], evidence: EvidenceSettings, masker: Masker
) -> list[str]:
    """The lines of the run's evidence section: the files written, where each trail that did not
    pass (or kept a trace or video) left its evidence, and the notes of the trails and the run."""
    lines = [f"{kind}: {path}" for kind, path in sorted(written.items(), reverse=True)]
    lines += [line for record in records for line in _evidence_lines(record)]
    notes = sorted({note for record in records for note in record.get("notes", ())})
    warning = pixel_warning(evidence, masker)
    return lines + [f"note: {note}" for note in [*notes, *([warning] if warning else [])]]


def _evidence_lines(record: TrailRecord) -> list[str]:
    """Where a trail's evidence is: for a trail that did not pass, or that kept a trace or video."""
    shown = [a["path"] for a in record.get("artifacts", ()) if a["kind"] in _SHOWN_KINDS]
    failed = record["outcome"] in ("failed", "error")
    if not record.get("artifacts_dir") or not (failed or shown):
        return []
    listed = f" ({', '.join(shown)})" if shown else ""
    return [f"{record['outcome']} {record['name']}: {record['artifacts_dir']}/{listed}"]


def _meta(records: list[TrailRecord], duration: float, started: float) -> str:
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
