"""Per-trail records and the run's ``summary.json``: machine-readable, secrets masked on write.

A trail record is a plain dict (it crosses pytest-xdist on the item's report); the run's
summary lists every trail record with where its evidence lies. Files are written whole or not
at all (a temporary file renamed), so a reader never sees half a record.
"""

from __future__ import annotations

import json
import os
import uuid
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

from ..core.jsondata import JsonObject, JsonValue
from ..core.masking import KEEP, Masker, Shape
from .record_format import TrailRecord

RECORD_FORMAT = "pytest-trailblaze/trail-record@1"
SUMMARY_FORMAT = "pytest-trailblaze/summary@1"
RECORD_NAME = "record.json"
#: The fields of a trail record that are structure, never masked: ids, outcomes, kinds, paths of
#: files this plugin named (masked by name where they were made), numbers.
RECORD_SHAPE: Shape = {
    **dict.fromkeys(("format", "nodeid", "name", "trail_id", "platform", "classifier", "driver"), KEEP),
    **dict.fromkeys(("worker", "outcome", "started_at", "duration_s", "artifacts_dir", "record_path"), KEEP),
    "steps": {
        **dict.fromkeys(("number", "total", "kind", "line", "mode", "outcome", "duration_s"), KEEP),
        **dict.fromkeys(("screenshot", "label"), KEEP),
        "calls": dict.fromkeys(("name", "outcome", "duration_s", "depth"), KEEP),
    },
    "artifacts": dict.fromkeys(("kind", "path"), KEEP),
}
#: The same for ``summary.json``.
SUMMARY_SHAPE: Shape = {
    **dict.fromkeys(("format", "started_at", "duration_s", "totals", "report", "output_dir"), KEEP),
    "trails": {
        **dict.fromkeys(("nodeid", "trail_id", "platform", "outcome", "duration_s", "steps_passed"), KEEP),
        **dict.fromkeys(("steps_total", "artifacts_dir", "record"), KEEP),
    },
}

#: Kinds of evidence files by name, first match wins (names are the ones this plugin writes).
_KINDS = (
    ("failure.png", "failure screenshot"),
    ("trace.zip", "trace"),
    ("record.json", "record"),
    ("steps/", "step screenshot"),
    ("snapshots/", "snapshot"),
    ("mcp-", "tool server log"),
    ("failure-", "page source"),
)
_SUFFIX_KINDS = {".webm": "video", ".mp4": "video", ".png": "screenshot", ".zip": "trace", ".log": "log"}


def artifact_kind(relative: str) -> str:
    """What a file of an artifacts folder is, from its path inside the folder."""
    for start, kind in _KINDS:
        if relative == start or relative.startswith(start):
            return kind
    return _SUFFIX_KINDS.get(Path(relative).suffix, "file")


def list_artifacts(folder: Path) -> list[dict[str, str]]:
    """Every file under ``folder`` (relative, ``/``-separated) with its kind, in name order; the
    record itself is listed by whoever writes it."""
    if not folder.is_dir():
        return []
    found = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and p.name != RECORD_NAME):
        relative = path.relative_to(folder).as_posix()
        found.append({"kind": artifact_kind(relative), "path": relative})
    return found


def outcome_counts(records: Iterable[TrailRecord]) -> dict[str, int]:
    return dict(sorted(Counter(str(r.get("outcome")) for r in records).items()))


def summary(
    records: Sequence[TrailRecord],
    *,
    started_at: str,
    duration_s: float,
    report: str | None,
    output_dir: str,
) -> JsonObject:
    """The run at a glance: totals, where the report and each trail's evidence are."""
    trails: list[JsonValue] = []
    for record in records:
        failing = next(
            (s for s in record.get("steps", ()) if s["outcome"] in ("failed", "interrupted")), None
        )
        ran = [s for s in record.get("steps", ()) if s["outcome"] != "not run"]
        trails.append(
            {
                "nodeid": record["nodeid"],
                "trail_id": record.get("trail_id"),
                "platform": record.get("platform"),
                "outcome": record["outcome"],
                "duration_s": record.get("duration_s"),
                "steps_passed": sum(1 for s in ran if s["outcome"] == "passed"),
                "steps_total": len(record.get("steps", ())),
                "failing_step": f"{failing['label']}: {failing['text']}" if failing else None,
                "artifacts_dir": record.get("artifacts_dir"),
                "record": record.get("record_path"),
            }
        )
    totals: dict[str, JsonValue] = dict(outcome_counts(records))
    return {
        "format": SUMMARY_FORMAT,
        "started_at": started_at,
        "duration_s": round(duration_s, 3),
        "totals": totals,
        "report": report,
        "output_dir": output_dir,
        "trails": trails,
    }


def write_json(path: Path, data: object, masker: Masker, shape: Shape | None = None) -> Path:
    """Write ``data`` as JSON with every string value masked (but the fields ``shape`` keeps),
    atomically (safe under xdist)."""
    text = json.dumps(masker.value(data, shape), indent=2, ensure_ascii=False, default=str) + "\n"
    return write_text(path, text)


def write_text(path: Path, text: str) -> Path:
    """Write through a uniquely named sibling renamed into place (permissions as for any new file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".{path.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        with temp.open("x", encoding="utf-8") as out:
            out.write(text)
        temp.replace(path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    return path
