"""The fields of a trail's record (``record.json``), as the summary, the HTML report and the end
of the run read them.

A record is plain data: built on the process that ran the trail, shipped to the xdist controller
inside the teardown report, and written as JSON; these names say what each field holds.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypedDict


class CallDict(TypedDict):
    """One tool call of a step (``CallRecord``)."""

    name: str
    #: The arguments as the registry showed them, secrets masked.
    args: Mapping[str, object]
    #: ``passed``, ``failed`` or ``running``.
    outcome: str
    message: str
    duration_s: float
    #: 0 for a call of the step, 1 and more for the calls a tool made.
    depth: int


class StepDict(TypedDict):
    """One step (``StepRecord``), the trailhead as step 0."""

    number: int
    total: int
    kind: str
    text: str
    line: int | None
    mode: str
    outcome: str
    duration_s: float
    calls: list[CallDict]
    error: str | None
    screenshot: str | None
    #: ``trailhead`` or ``step N/M``.
    label: str


class ArtifactDict(TypedDict):
    """A file of the trail's artifacts folder: its kind (``trace``, ``video``...) and relative path."""

    kind: str
    path: str


class TrailRecord(TypedDict):
    """One trail item's run: what ran, where, how it went, and the evidence it left."""

    format: str
    nodeid: str
    name: str
    trail_id: str
    title: str | None
    file: str
    platform: str
    classifier: str | None
    driver: str | None
    #: The process that ran it: ``gw0``... under xdist, ``main`` otherwise.
    worker: str
    #: ``passed``, ``failed``, ``error``, ``skipped`` or ``xfailed``.
    outcome: str
    started_at: str | None
    duration_s: float
    steps: list[StepDict]
    failure: str | None
    artifacts_dir: str | None
    record_path: str | None
    artifacts: list[ArtifactDict]
    notes: list[str]
    #: The item's report properties (JUnit's), as text.
    properties: dict[str, str]
