"""Traces and videos of trail items (``session.trail_recording``): started at the trail's first
step, stopped and kept or dropped before the fixtures' teardown closes its driver."""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import replace

import pytest

from ..core.run.driver import Driver, Recording
from ..core.run.runner import ResolvedStep
from ..core.tooling.context import ToolContext
from ..drivers.browser_options import BrowserOptions
from ..session.run_evidence import ItemEvidence
from ..session.trail_recording import begin_recording, can_record, finish_recording, mark_step
from .collection import TrailItem
from .evidence import ITEM_KEY, item_evidence
from .evidence_options import evidence_of
from .options import SETTINGS_KEY, worker_id
from .output_masking import masker_of

RECORDER_KEY = pytest.StashKey[Recording]()


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
    driver = item.stash.get(RECORDER_KEY, None)
    if driver is not None:
        mark_step(driver, title, masker_of(item.config))


def start(item: TrailItem, evidence: ItemEvidence, driver: Driver | None) -> None:
    """At the trail's first step: start the driver's trace and video, when asked and able."""
    settings = evidence_of(item.config)
    if RECORDER_KEY in item.stash or not isinstance(driver, Recording) or not can_record(driver, settings):
        return
    item.stash[RECORDER_KEY] = driver
    evidence.notes.extend(begin_recording(driver, settings))


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None, None, None]:
    """Before the fixtures' teardown closes the driver: stop, then keep or drop what it recorded."""
    if isinstance(item, TrailItem) and RECORDER_KEY in item.stash:
        driver = item.stash[RECORDER_KEY]
        del item.stash[RECORDER_KEY]
        evidence = item.stash.get(ITEM_KEY, None)
        if evidence is not None:
            finish_recording(driver, evidence, evidence_of(item.config), masker_of(item.config))
    return (yield)
