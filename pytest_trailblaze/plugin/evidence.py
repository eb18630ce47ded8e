"""Evidence of each trail item, built from the step hooks: progress, records, report sections.

Per item (on the process that runs it, an xdist worker included):

- live progress lines under ``-v`` and, with ``--trailblaze-screenshot on``, a screenshot
  after each passed step (through the driver's public ``screenshot(path)``);
- a JUnit property per step (``step_3 = passed 0.42 s · Add to cart``);
- the step table as a report section (``-rA`` and failure output show it) and, when
  pytest-html is installed, the table and screenshots as its extras;
- at teardown, the trail's record (``record.json`` in its artifacts folder), also attached to
  the teardown report as ``trailblaze_record`` so that the controller of an xdist run can
  build ``summary.json`` and the HTML report (``plugin.run_report``).
"""

from __future__ import annotations

import base64
import json
import shutil
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from ..core.run.runner import ResolvedStep
from ..core.tooling.context import ToolContext
from ..evidence.progress import short, step_table
from ..evidence.records import StepRecord, StepRecorder
from ..evidence.summary import RECORD_FORMAT, RECORD_NAME, RECORD_SHAPE, list_artifacts, write_json
from .collection import TrailItem
from .evidence_options import evidence_of
from .live_progress import LiveProgress
from .options import worker_id
from .output_masking import masker_of
from .session import item_artifacts

PROGRESS_KEY = pytest.StashKey[LiveProgress]()
ITEM_KEY = pytest.StashKey["ItemEvidence"]()
SECTION = "trailblaze steps"


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

    def step_property(self, properties: list[tuple[str, Any]], name: str, value: str) -> None:
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


def item_evidence(item: TrailItem) -> ItemEvidence:
    found = item.stash.get(ITEM_KEY, None)
    if found is None:
        found = ItemEvidence(StepRecorder(item.trail), item_artifacts(item))
        item.stash[ITEM_KEY] = found
    return found


def progress_of(config: pytest.Config) -> LiveProgress:
    progress = config.stash.get(PROGRESS_KEY, None)
    if progress is None:
        progress = config.stash[PROGRESS_KEY] = LiveProgress(config)
    return progress


# -- the step hooks ------------------------------------------------------------------------------
def pytest_trailblaze_before_step(step: ResolvedStep, context: ToolContext, item: pytest.Item) -> None:
    if isinstance(item, TrailItem):
        evidence = item_evidence(item)
        evidence.folder = context.artifacts_dir or evidence.folder  # the run's own folder
        record = evidence.recorder.started(step, context.tool_log)
        progress_of(item.config).started(record, agent=step.needs_agent)


def pytest_trailblaze_after_step(step: ResolvedStep, context: ToolContext, item: pytest.Item) -> None:
    if isinstance(item, TrailItem):
        _finished(item, step, context, None)


def pytest_trailblaze_step_error(
    step: ResolvedStep, context: ToolContext, item: pytest.Item, error: BaseException
) -> None:
    if isinstance(item, TrailItem):
        _finished(item, step, context, error)


def _finished(item: TrailItem, step: ResolvedStep, ctx: ToolContext, error: BaseException | None) -> None:
    evidence = item_evidence(item)
    record = evidence.recorder.finished(step, ctx.tool_log, error)
    if error is None and evidence_of(item.config).step_screenshots:
        _step_screenshot(evidence, record, ctx)
    progress_of(item.config).finished(record)
    name = "trailhead" if record.kind == "trailhead" else f"step_{record.number}"
    value = f"{record.outcome} {record.duration_s:.3f} s · {short(record.text)}"
    evidence.step_property(item.user_properties, name, value)


def _step_screenshot(evidence: ItemEvidence, record: StepRecord, ctx: ToolContext) -> None:
    """A picture after the step; a driver that cannot take one leaves a note, not a failure."""
    shoot = getattr(ctx.driver, "screenshot", None)
    if shoot is None:
        return
    name = "trailhead.png" if record.kind == "trailhead" else f"step-{record.number:02d}.png"
    try:
        shoot(evidence.folder / "steps" / name)
    except Exception as exc:  # evidence must never fail the trail it documents
        evidence.notes.append(f"no screenshot after {record.label}: {type(exc).__name__}: {short(str(exc))}")
        return
    record.screenshot = f"steps/{name}"


# -- reports ------------------------------------------------------------------------------------
@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """A fresh record and artifacts folder for every run of an item (pytest-rerunfailures runs
    one item again; a set-up that fails before the trail starts must not list older files)."""
    if isinstance(item, TrailItem):
        if ITEM_KEY in item.stash:
            del item.stash[ITEM_KEY]
        shutil.rmtree(item_evidence(item).folder, ignore_errors=True)
        progress_of(item.config).new_test()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    if not isinstance(item, TrailItem):
        return (yield)
    evidence = item_evidence(item)
    shows_steps = call.when == "call" or (call.when == "setup" and call.excinfo is not None)
    if shows_steps and any(s.outcome != "not run" for s in evidence.recorder.steps):
        item.add_report_section(call.when, SECTION, step_table(evidence.recorder.steps))
    report = yield
    _note_phase(evidence, call, report)
    if shows_steps:
        _html_extras(item, evidence, report)
    if call.when == "teardown":
        report.trailblaze_record = _finish_record(item, evidence)
    return report


def _note_phase(evidence: ItemEvidence, call: pytest.CallInfo[None], report: pytest.TestReport) -> None:
    if evidence.started_at is None:
        evidence.started_at = call.start
    evidence.duration_s += call.duration
    evidence.phases[call.when] = "xfailed" if hasattr(report, "wasxfail") else report.outcome
    if report.failed and evidence.failure is None:
        evidence.failure = report.longreprtext


def outcome(phases: dict[str, str]) -> str:
    """One word for the item, as pytest counts it: error for setup / teardown failures."""
    if phases.get("setup") == "failed" or phases.get("teardown") == "failed":
        return "error"
    for phase in ("setup", "call"):
        if phases.get(phase) in ("skipped", "xfailed"):
            return "xfailed" if phases[phase] == "xfailed" else "skipped"
    return phases.get("call", "passed")


def _finish_record(item: TrailItem, evidence: ItemEvidence) -> dict[str, Any]:
    """The trail's record, written to its artifacts folder (unless it skipped) and returned."""
    recorder, folder = evidence.recorder, evidence.folder
    failing = recorder.failed
    if failing is not None and failing.screenshot is None and (folder / "failure.png").is_file():
        failing.screenshot = "failure.png"
    kept = outcome(evidence.phases) not in ("skipped", "xfailed")  # skipped trails: in the summary only
    if kept:
        folder.mkdir(parents=True, exist_ok=True)
    props = dict(item.user_properties)
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
        "worker": worker_id(item.config),
        "outcome": outcome(evidence.phases),
        "started_at": _iso(evidence.started_at) if evidence.started_at else None,
        "duration_s": round(evidence.duration_s, 3),
        "steps": [s.as_dict() for s in recorder.steps],
        "failure": evidence.failure,
        "artifacts_dir": _display(folder) if kept else None,
        "record_path": _display(folder / RECORD_NAME) if kept else None,
        "artifacts": list_artifacts(folder) + ([{"kind": "record", "path": RECORD_NAME}] if kept else []),
        "notes": list(evidence.notes),
        "properties": {k: str(v) for k, v in item.user_properties},
    }
    record = json.loads(json.dumps(record, default=str))  # plain values only: xdist ships it as is
    masker = masker_of(item.config)
    if kept:
        write_json(folder / RECORD_NAME, record, masker, RECORD_SHAPE)
    return masker.value(record, RECORD_SHAPE)


def _html_extras(item: TrailItem, evidence: ItemEvidence, report: pytest.TestReport) -> None:
    """The step table and the screenshots as pytest-html extras, when pytest-html writes a report."""
    if not item.config.pluginmanager.has_plugin("html") or not item.config.getoption("htmlpath", None):
        return
    from html import escape

    masker = masker_of(item.config)
    table = masker.text(step_table(evidence.recorder.steps))
    extras = list(getattr(report, "extras", []))
    extras.append({"name": SECTION, "format_type": "html", "content": f"<pre>{escape(table)}</pre>",
                   "mime_type": None, "extension": None})  # fmt: skip
    shots = [("failure", evidence.folder / "failure.png")]
    shots += [(s.label, evidence.folder / s.screenshot) for s in evidence.recorder.steps if s.screenshot]
    for label, path in shots:
        if path.is_file():
            content = base64.b64encode(path.read_bytes()).decode("ascii")
            extras.append({"name": label, "format_type": "image", "content": content,
                           "mime_type": "image/png", "extension": "png"})  # fmt: skip
    report.extras = extras


def _iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).isoformat(timespec="seconds")


def _display(path: Path) -> str:
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)
