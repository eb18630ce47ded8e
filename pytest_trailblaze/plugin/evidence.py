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

import shutil
from collections.abc import Generator
from pathlib import Path

import pytest

from ..core.run.runner import ResolvedStep
from ..core.tooling.context import ToolContext
from ..evidence.progress import short, step_table
from ..evidence.records import StepRecorder
from ..session.artifacts import artifacts_dir
from ..session.run_evidence import ItemEvidence, build_record, html_extras, step_screenshot
from ..session.settings import Settings
from .collection import TrailItem
from .evidence_options import evidence_of
from .live_progress import LiveProgress
from .options import SETTINGS_KEY, worker_id
from .output_masking import masker_of

PROGRESS_KEY = pytest.StashKey[LiveProgress]()
ITEM_KEY = pytest.StashKey["ItemEvidence"]()
SECTION = "trailblaze steps"


def item_artifacts(item: pytest.Item, settings: Settings | None = None) -> Path:
    """The artifacts folder of a trail item: its test id, secrets masked, under the output folder
    of ``settings`` (the run's unless a ``trailblaze_settings`` override hands others)."""
    chosen = settings if settings is not None else item.config.stash[SETTINGS_KEY]
    return artifacts_dir(chosen, masker_of(item.config).name(item.nodeid))


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
        step_screenshot(evidence, record, ctx.driver)
    progress_of(item.config).finished(record)
    name = "trailhead" if record.kind == "trailhead" else f"step_{record.number}"
    value = f"{record.outcome} {record.duration_s:.3f} s · {short(record.text)}"
    evidence.step_property(item.user_properties, name, value)


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
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    if not isinstance(item, TrailItem):
        return (yield)
    evidence = item_evidence(item)
    shows_steps = call.when == "call" or (call.when == "setup" and call.excinfo is not None)
    if shows_steps and any(s.outcome != "not run" for s in evidence.recorder.steps):
        item.add_report_section(call.when, SECTION, step_table(evidence.recorder.steps))
    report = yield
    outcome = "xfailed" if hasattr(report, "wasxfail") else report.outcome
    failure = report.longreprtext if report.failed else None
    evidence.note_phase(call.when, call.start, call.duration, outcome, failure)
    if shows_steps:
        _html_extras(item, evidence, report)
    if call.when == "teardown":
        worker, masker = worker_id(item.config), masker_of(item.config)
        facts, properties = item.facts(), item.user_properties
        record = build_record(evidence, facts, properties, worker=worker, masker=masker)
        report.trailblaze_record = record  # type: ignore[attr-defined]  # serialized with the report for xdist
    return report


def _html_extras(item: TrailItem, evidence: ItemEvidence, report: pytest.TestReport) -> None:
    """The step table and the screenshots as pytest-html extras, when pytest-html writes a report."""
    if not item.config.pluginmanager.has_plugin("html") or not item.config.getoption("htmlpath", None):
        return
    extras = html_extras(evidence, masker_of(item.config), SECTION)
    report.extras = [*getattr(report, "extras", []), *extras]  # type: ignore[attr-defined]  # pytest-html's
