"""Traces and videos of a trail: started with its first step, kept or dropped before its driver is
torn down, by ``--trailblaze-tracing`` / ``--trailblaze-video`` (``on``, ``retain-on-failure``).

Drivers that record implement ``core.run.driver.Recording`` (both built-in drivers do):

- ``start_recording(video=..., tracing=...) -> list[str]``: start what the driver can record;
  returns notes on what it could not (an Appium driver without screen recording);
- ``stop_recording(folder) -> list[Path]``: stop, and save into ``folder`` (None: discard).

Trace files hold text the page and the trail typed: their text is masked like every other file
the run writes. Pictures (screenshots, video frames) cannot be masked; see ``pixel_warning``.
"""

from __future__ import annotations

from ..core.masking import Masker
from ..core.run.driver import FileConfinement, Recording, StepMarks
from .run_evidence import ItemEvidence, mask_archive
from .settings import EvidenceSettings

_VIDEO_SUFFIXES = (".webm", ".mp4")


def can_record(driver: object, settings: EvidenceSettings) -> bool:
    """Whether a trace or video is asked for and the driver can record one."""
    wanted = (settings.tracing, settings.video) != ("off", "off")
    return wanted and isinstance(driver, Recording)


def begin_recording(driver: Recording, settings: EvidenceSettings) -> list[str]:
    """Start the driver's trace and video as asked; notes on what it could not record."""
    return list(driver.start_recording(video=settings.video != "off", tracing=settings.tracing != "off"))


def mark_step(driver: object, title: str | None, masker: Masker) -> None:
    """Steps as groups of the trace (the trace viewer lists each step's actions under it)."""
    if not isinstance(driver, StepMarks):
        return
    mark = driver.recording_step
    try:
        mark(masker.text(title) if title else None)
    except Exception:  # a trace without step groups is still a trace
        return


def finish_recording(
    driver: Recording, evidence: ItemEvidence, settings: EvidenceSettings, masker: Masker
) -> None:
    """Stop the driver's recording; keep what the settings keep for this outcome, masked."""
    failed = any(outcome == "failed" for outcome in evidence.phases.values())
    keep_trace = EvidenceSettings.keep(settings.tracing, failed)
    keep_video = EvidenceSettings.keep(settings.video, failed)
    breach = driver.file_url_breach() if isinstance(driver, FileConfinement) else None
    if breach is not None and (keep_trace or keep_video):
        # they recorded the page as it was shown: a file from outside the project's folders
        keep_trace = keep_video = False
        evidence.notes.append(
            f"trace / video: not kept: a page showed {masker.text(breach)}, a file outside the "
            "folders web trails may open files from"
        )
    try:
        saved = driver.stop_recording(evidence.folder if keep_trace or keep_video else None)
    except Exception as exc:  # evidence must not turn a passed trail into an error
        evidence.notes.append(f"trace / video: not saved: {type(exc).__name__}: {exc}")
        return
    for path in saved:
        video = path.suffix in _VIDEO_SUFFIXES
        if not (keep_video if video else keep_trace):
            path.unlink(missing_ok=True)
        elif not video and masker:
            mask_archive(path, masker)
