"""What the agent did in a passed trail, written into its trail file as recordings."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..agent.judgement import JUDGED, RECORDING_NOTE
from ..agent.recording import recorded_step
from ..core.trail.legacy import recording_file
from ..core.trail.lineage import resolve as resolve_recording
from ..core.trail.model import ANY_DEVICE
from ..core.trail.writeback import SlotUpdate, save_recordings
from ..plugin.agent_reports import RUNS_KEY


def _save(item: Any, trail_run: Any) -> None:
    from ..plugin.agent import AGENT_KEY  # moved code: plugin.agent imports this module

    ctx, device = trail_run.context, trail_run.device
    heal = item.config.stash[AGENT_KEY].self_heal
    updates, notes = [], []
    latest = {run.step.number: run for run in item.stash[RUNS_KEY] if run.done}
    for run in latest.values():
        step = run.step
        if not step.step.recordable or step.step.kind == "tools":
            continue
        recorded = resolve_recording(step.step.recording or {}, device.chain())
        if recorded is not None and not heal:  # U§7.3: an AI-only run replaces none without self-heal
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
        notes += _write(item, device, updates)
    item.user_properties.extend(("recording_note", note) for note in notes)


def _write(item: Any, device: Any, updates: list[SlotUpdate]) -> list[str]:
    """Write into the trail file, or the device's own file beside a v1 definition (U§7.3)."""
    path = recording_file(item.path, item.trail.format == "v1", device.classifier)
    shown = item.trail.path if path == item.path else str(Path(item.trail.path).with_name(path.name))
    try:
        written, notes = save_recordings(
            path, shown, device.classifier, device.chain(), updates, os.environ, source=item.path
        )
    except OSError as exc:  # the run passed; a file that cannot be written is a note, not a failure
        return [f"{shown}: not written: {exc.strerror or exc}"]
    if written:
        steps = ", ".join(str(u.number) if u.number else "trailhead" for u in updates)
        item.user_properties.append(("recording_saved", f"{shown} ({device.classifier}): {steps}"))
    return notes
