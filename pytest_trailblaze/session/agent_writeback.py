"""What the agent did in a passed trail, written into its trail file as recordings."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from ..agent.judgement import JUDGED, RECORDING_NOTE
from ..agent.loop import StepRun
from ..agent.recording import recorded_step
from ..core.tooling.context import DeviceInfo, ToolContext
from ..core.trail.legacy import recording_file
from ..core.trail.lineage import resolve as resolve_recording
from ..core.trail.model import ANY_DEVICE, Trail
from ..core.trail.writeback import SlotUpdate, save_recordings


def save_agent_recordings(
    trail: Trail, path: Path, runs: Iterable[StepRun], ctx: ToolContext, device: DeviceInfo, *, heal: bool
) -> list[tuple[str, str]]:
    """Write the agent's steps of a passed trail (``runs``, the last of each step counting) into
    its file at ``path``, for ``device``; returns the report properties that say what was written
    (``recording_saved``) and what was not, and why (``recording_note``). ``heal``: the agent may
    replace a step's recording (``--trailblaze-self-heal``), else it only fills steps that have none.
    """
    updates, notes = [], []
    properties: list[tuple[str, str]] = []
    latest = {run.step.number: run for run in runs if run.done}
    for run in latest.values():
        step = run.step
        if not step.step.recordable or step.step.kind == "tools":
            continue
        recorded = resolve_recording(step.step.recording or {}, device.chain())
        if recorded is not None and not heal:  # a recorded step is replaced only when self-healing
            key = "every device" if recorded[0] == ANY_DEVICE else recorded[0]
            notes.append(
                f"{step.label}: not written: it has a recording for {key} "
                "(the agent replaces recordings only with --trailblaze-self-heal)"
            )
            continue
        calls = recorded_step(run, ctx.tool_log, ctx.registry)
        if calls is None:
            notes.append(f"{step.label}: not written: a call it made holds a secret value")
        elif calls:
            comments = tuple((name, RECORDING_NOTE) for name in sorted({n for n, _ in calls} & JUDGED))
            updates.append(SlotUpdate(step.number, step.step.text, tuple(calls), comments))
    if updates:
        notes += _write(trail, path, device, updates, properties)
    return [*properties, *(("recording_note", note) for note in notes)]


def _write(
    trail: Trail, source: Path, device: DeviceInfo, updates: list[SlotUpdate], saved: list[tuple[str, str]]
) -> list[str]:
    """Write into the trail file, or the device's own file beside a v1 definition
    (docs/upstream.md, Recording write-back)."""
    path = recording_file(source, trail.format == "v1", device.classifier)
    shown = trail.path if path == source else str(Path(trail.path).with_name(path.name))
    try:
        written, notes = save_recordings(
            path, shown, device.classifier, device.chain(), updates, os.environ, source=source
        )
    except OSError as exc:  # the run passed; a file that cannot be written is a note, not a failure
        return [f"{shown}: not written: {exc.strerror or exc}"]
    if written:
        steps = ", ".join(str(u.number) if u.number else "trailhead" for u in updates)
        saved.append(("recording_saved", f"{shown} ({device.classifier}): {steps}"))
    return notes
