"""What a trail's run leaves: its step records and outcome, the record file, masked traces."""

from __future__ import annotations

import base64
import json
import zipfile
from dataclasses import dataclass, field
from datetime import UTC, datetime
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.masking import MASK, Masker
from ..core.run.driver import Screenshots
from ..evidence.progress import short, step_table
from ..evidence.record_format import TrailRecord
from ..evidence.records import StepRecord, StepRecorder
from ..evidence.summary import RECORD_FORMAT, RECORD_NAME, RECORD_SHAPE, list_artifacts, write_json
from .artifacts import display_path
from .settings import EvidenceSettings

if TYPE_CHECKING:  # an annotation: the run's summary is written on an xdist controller too
    from .trail_items import ItemFacts


@dataclass
class ItemEvidence:
    """What one item's run left: its step records, phase outcomes, failure text, notes."""

    recorder: StepRecorder
    folder: Path
    phases: dict[str, str] = field(default_factory=dict)
    started_at: float | None = None
    duration_s: float = 0.0
    failure: str | None = None
    notes: list[str] = field(default_factory=list)
    #: Where each property sits in ``item.user_properties``, and the list's length when it was last
    #: written here (see ``step_property``).
    places: dict[str, int] = field(default_factory=dict)
    written_length: int = -1

    def note_phase(self, when: str, start: float, duration: float, outcome: str, failure: str | None) -> None:
        """A phase (setup, call, teardown) of the item ended: its outcome, time and first failure."""
        if self.started_at is None:
            self.started_at = start
        self.duration_s += duration
        self.phases[when] = outcome
        if failure is not None and self.failure is None:
            self.failure = failure

    def step_property(self, properties: list[tuple[str, object]], name: str, value: str) -> None:
        """Set the property ``name`` of ``properties`` in place: one step's update costs a lookup,
        not a copy of the list (a 20,000-step trail was quadratic here). A list someone else
        changed meanwhile (``TrailRun.publish`` rebuilds it) is indexed once again."""
        place = self.places.get(name)
        stale = place is not None and (place >= len(properties) or properties[place][0] != name)
        if stale or (place is None and len(properties) != self.written_length):
            self.places = {key: index for index, (key, _) in enumerate(properties)}
            place = self.places.get(name)
        if place is None:
            place = self.places[name] = len(properties)
            properties.append((name, value))
        else:
            properties[place] = (name, value)
        self.written_length = len(properties)


def outcome(phases: dict[str, str]) -> str:
    """One word for the item, as pytest counts it: error for setup / teardown failures."""
    if phases.get("setup") == "failed" or phases.get("teardown") == "failed":
        return "error"
    for phase in ("setup", "call"):
        if phases.get(phase) in ("skipped", "xfailed"):
            return "xfailed" if phases[phase] == "xfailed" else "skipped"
    return phases.get("call", "passed")


def build_record(
    evidence: ItemEvidence,
    item: ItemFacts,
    properties: list[tuple[str, object]],
    *,
    worker: str,
    masker: Masker,
) -> TrailRecord:
    """The trail's record, written to its artifacts folder (unless it skipped) and returned masked;
    ``properties``: the item's report properties (JUnit's), ``worker``: the process that ran it."""
    recorder, folder = evidence.recorder, evidence.folder
    failing = recorder.failed
    if failing is not None and failing.screenshot is None and (folder / "failure.png").is_file():
        failing.screenshot = "failure.png"
    kept = outcome(evidence.phases) not in ("skipped", "xfailed")  # skipped trails: in the summary only
    if kept:
        folder.mkdir(parents=True, exist_ok=True)
    props = dict(properties)
    record = {
        "format": RECORD_FORMAT,
        "nodeid": item.nodeid,
        "name": item.name,
        "trail_id": item.trail_id,
        "title": item.trail.config.title or None,
        "file": item.trail.path,
        "platform": item.platform,
        "classifier": props.get("classifier"),
        "driver": props.get("driver"),
        "worker": worker,
        "outcome": outcome(evidence.phases),
        "started_at": _iso(evidence.started_at) if evidence.started_at else None,
        "duration_s": round(evidence.duration_s, 3),
        "steps": [s.as_dict() for s in recorder.steps],
        "failure": evidence.failure,
        "artifacts_dir": display_path(folder) if kept else None,
        "record_path": display_path(folder / RECORD_NAME) if kept else None,
        "artifacts": list_artifacts(folder) + ([{"kind": "record", "path": RECORD_NAME}] if kept else []),
        "notes": list(evidence.notes),
        "properties": {k: str(v) for k, v in properties},
    }
    # plain values only: xdist ships it as is
    plain: TrailRecord = json.loads(json.dumps(record, default=str))
    if kept:
        write_json(folder / RECORD_NAME, plain, masker, RECORD_SHAPE)
    masked: TrailRecord = masker.value(plain, RECORD_SHAPE)
    return masked


def _iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).isoformat(timespec="seconds")


def mask_archive(path: Path, masker: Masker) -> None:
    """Rewrite a zip (a Playwright trace) with every secret in its members masked.

    Text members (the action log, DOM snapshots, network bodies) get the usual mask; a binary
    member that holds a secret's bytes has them overwritten, which may spoil that member but
    keeps the secret in the process.
    """
    secrets = [value.encode() for value in masker.values]
    temp = path.with_name(f".{path.name}.masking")
    with zipfile.ZipFile(path) as source, zipfile.ZipFile(temp, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            data = source.read(info)
            if any(secret in data for secret in secrets):
                data = _masked(data, masker, secrets)
            target.writestr(info, data)
    temp.replace(path)


def _masked(data: bytes, masker: Masker, secrets: list[bytes]) -> bytes:
    try:
        return masker.text(data.decode("utf-8")).encode("utf-8")
    except UnicodeDecodeError:
        for secret in secrets:
            data = data.replace(secret, MASK.encode())
        return data


def pixel_warning(settings: EvidenceSettings, masker: Masker) -> str | None:
    """With secrets, pictures are the one channel masking cannot reach: say so once per run."""
    pictures = settings.video != "off" or settings.tracing != "off" or settings.step_screenshots
    if not (masker and pictures):
        return None
    return (
        "secrets are masked in traces' text, but screenshots, trace frames and videos are pictures: "
        "a secret shown on screen (typed into a visible field) can appear in them; type secrets "
        "into password fields, or keep --trailblaze-screenshot, --trailblaze-tracing and "
        "--trailblaze-video off for such trails"
    )


def step_screenshot(evidence: ItemEvidence, record: StepRecord, driver: object) -> None:
    """A picture after the step; a driver that cannot take one leaves a note, not a failure."""
    if not isinstance(driver, Screenshots):
        return
    shoot = driver.screenshot
    name = "trailhead.png" if record.kind == "trailhead" else f"step-{record.number:02d}.png"
    try:
        shoot(evidence.folder / "steps" / name)
    except Exception as exc:  # evidence must never fail the trail it documents
        evidence.notes.append(f"no screenshot after {record.label}: {type(exc).__name__}: {short(str(exc))}")
        return
    record.screenshot = f"steps/{name}"


def html_extras(evidence: ItemEvidence, masker: Masker, section: str) -> list[dict[str, str | None]]:
    """The step table (titled ``section``) and the trail's screenshots, as pytest-html extras."""
    table = masker.text(step_table(evidence.recorder.steps))
    extras: list[dict[str, str | None]] = [
        {"name": section, "format_type": "html", "content": f"<pre>{escape(table)}</pre>",
         "mime_type": None, "extension": None}
    ]  # fmt: skip
    shots = [("failure", evidence.folder / "failure.png")]
    shots += [(s.label, evidence.folder / s.screenshot) for s in evidence.recorder.steps if s.screenshot]
    for label, path in shots:
        if path.is_file():
            content = base64.b64encode(path.read_bytes()).decode("ascii")
            extras.append({"name": label, "format_type": "image", "content": content,
                           "mime_type": "image/png", "extension": "png"})  # fmt: skip
    return extras
