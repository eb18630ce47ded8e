"""Traces and videos of a trail: started with its first step, kept or dropped before its driver
is torn down, by ``--trailblaze-tracing`` / ``--trailblaze-video`` (``on``, ``retain-on-failure``).

Drivers offer two optional methods (both built-in drivers have them):

- ``start_recording(video=..., tracing=...) -> list[str]``: start what the driver can record;
  returns notes on what it could not (an Appium driver without screen recording);
- ``stop_recording(folder) -> list[Path]``: stop, and save into ``folder`` (None: discard).

Trace files hold text the page and the trail typed: their text is masked like every other file
the run writes. Pictures (screenshots, video frames) cannot be masked; see ``pixel_warning``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from ..core.run.driver import Recording, StepMarks
from ..core.run.runner import ResolvedStep
from ..core.tooling.context import ToolContext
from ..drivers.browser import BrowserOptions
from ..session.run_evidence import mask_archive
from ..session.settings import EvidenceSettings
from .collection import TrailItem
from .evidence import ITEM_KEY, ItemEvidence, item_evidence
from .evidence_options import evidence_of
from .options import SETTINGS_KEY, worker_id
from .output_masking import masker_of

RECORDER_KEY = pytest.StashKey[Any]()
_VIDEO_SUFFIXES = (".webm", ".mp4")


def browser_options(options: BrowserOptions, config: pytest.Config) -> BrowserOptions:
    """``options`` with this worker's video folder when videos are recorded (Playwright writes
    each page's video there; the ones kept are saved into the trails' artifacts folders)."""
    if evidence_of(config).video == "off":
        return options
    worker = worker_id(config)
    return replace(options, video_dir=config.stash[SETTINGS_KEY].output_dir / ".videos" / worker)


def pytest_trailblaze_before_step(step: ResolvedStep, context: ToolContext, item: pytest.Item) -> None:
    if isinstance(item, TrailItem):
        start(item, item_evidence(item), context.driver)
        _group(item, f"{step.label}: {step.step.text}")


def pytest_trailblaze_after_step(step: ResolvedStep, context: ToolContext, item: pytest.Item) -> None:
    _group(item, None)


def pytest_trailblaze_step_error(
    step: ResolvedStep, context: ToolContext, item: pytest.Item, error: BaseException
) -> None:
    _group(item, None)


def _group(item: pytest.Item, title: str | None) -> None:
    """Steps as groups of the trace (the trace viewer lists each step's actions under it)."""
    driver = item.stash.get(RECORDER_KEY, None)
    if not isinstance(driver, StepMarks):
        return
    mark = driver.recording_step
    try:
        mark(masker_of(item.config).text(title) if title else None)
    except Exception:  # a trace without step groups is still a trace
        return


def start(item: TrailItem, evidence: ItemEvidence, driver: Any) -> None:
    """At the trail's first step: start the driver's trace and video, when asked and able."""
    settings = evidence_of(item.config)
    if (settings.tracing, settings.video) == ("off", "off") or RECORDER_KEY in item.stash:
        return
    if not isinstance(driver, Recording):
        return
    begin = driver.start_recording
    item.stash[RECORDER_KEY] = driver
    evidence.notes.extend(begin(video=settings.video != "off", tracing=settings.tracing != "off"))


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Any:
    """Before the fixtures' teardown closes the driver: stop, then keep or drop what it recorded."""
    if isinstance(item, TrailItem) and RECORDER_KEY in item.stash:
        driver = item.stash[RECORDER_KEY]
        del item.stash[RECORDER_KEY]
        evidence = item.stash.get(ITEM_KEY, None)
        if evidence is not None:
            _finish(item, evidence, driver)
    return (yield)


def _finish(item: TrailItem, evidence: ItemEvidence, driver: Any) -> None:
    settings = evidence_of(item.config)
    failed = any(outcome == "failed" for outcome in evidence.phases.values())
    keep_trace = EvidenceSettings.keep(settings.tracing, failed)
    keep_video = EvidenceSettings.keep(settings.video, failed)
    try:
        saved = driver.stop_recording(evidence.folder if keep_trace or keep_video else None)
    except Exception as exc:  # evidence must not turn a passed trail into an error
        evidence.notes.append(f"trace / video: not saved: {type(exc).__name__}: {exc}")
        return
    masker = masker_of(item.config)
    for path in saved:
        video = path.suffix in _VIDEO_SUFFIXES
        if not (keep_video if video else keep_trace):
            path.unlink(missing_ok=True)
        elif not video and masker:
            mask_archive(path, masker)


