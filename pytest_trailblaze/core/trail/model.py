"""The trail model: immutable records produced by the loader, consumed by the runner.

Every node keeps the ``SourceSpan`` it came from so that a failure anywhere (collection,
argument validation, replay) can point at ``file:line:col``. Plain frozen dataclasses are
used instead of pydantic models because collection builds thousands of them and they carry
no validation of their own: the loader validates while it builds.

``workspace.model`` is the same idea one layer up: the frozen model of a workspace's files.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from ..errors import SourceSpan
from ..jsondata import JsonValue
from .devices import platform_of

#: Key of a recording that applies to any device (legacy v1 recordings carry no classifier).
ANY_DEVICE = "*"

StepKind = Literal["step", "verify", "tools", "trailhead"]
ArgType = Literal["string", "integer", "number", "boolean", "array", "object"]


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One recorded call ``- name: {args}``; ``arg_spans`` locate each argument."""

    name: str
    args: Mapping[str, JsonValue]
    span: SourceSpan
    arg_spans: Mapping[str, SourceSpan] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Step:
    """A step (``step``/``verify``), a v1 ``tools`` block, or the trailhead.

    ``recording`` maps a device classifier (or ``ANY_DEVICE``) to the calls recorded for it;
    an empty tuple is an explicit no-op. ``None`` means the step has no ``recording:`` at all.
    """

    kind: StepKind
    text: str
    span: SourceSpan
    recording: Mapping[str, tuple[ToolCall, ...]] | None = None
    recordable: bool = True
    max_retries: int | None = None

    def calls(self) -> tuple[ToolCall, ...]:
        """Every recorded call of every classifier, in file order."""
        if not self.recording:
            return ()
        return tuple(call for calls in self.recording.values() for call in calls)


@dataclass(frozen=True, slots=True)
class ArgDecl:
    """A ``config.args`` declaration: a typed parameter of the trail."""

    name: str
    type: ArgType
    span: SourceSpan
    description: str = ""
    required: bool = True
    default: JsonValue = None


@dataclass(frozen=True, slots=True)
class TrailConfig:
    """The ``config:`` block; v1-only fields (``driver``, ``platform``) are kept too."""

    id: str | None = None
    target: str | None = None
    title: str | None = None
    description: str | None = None
    priority: str | None = None
    devices: Mapping[str, str] = field(default_factory=dict)
    skip: Mapping[str, str] = field(default_factory=dict)
    tags: tuple[str, ...] = ()
    context: str | None = None
    memory: Mapping[str, str] = field(default_factory=dict)
    metadata: Mapping[str, str] = field(default_factory=dict)
    args: Mapping[str, ArgDecl] = field(default_factory=dict)
    driver: str | None = None
    platform: str | None = None
    #: Where each config key was written, for messages about its value.
    spans: Mapping[str, SourceSpan] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Trail:
    """A loaded trail file, in either source format."""

    path: str
    format: Literal["unified", "v1"]
    config: TrailConfig
    steps: tuple[Step, ...]
    trailhead: Step | None = None
    span: SourceSpan | None = None

    def classifiers(self) -> tuple[str, ...]:
        """Device classifiers named anywhere in the trail, in first-seen order."""
        seen: dict[str, None] = {}
        for step in (self.trailhead, *self.steps):
            if step is not None and step.recording:
                seen.update(dict.fromkeys(k for k in step.recording if k != ANY_DEVICE))
        seen.update(dict.fromkeys(self.config.devices))
        return tuple(seen)

    def platforms(self) -> tuple[str, ...]:
        """Platforms derived from the classifiers, sorted for a stable item order."""
        return tuple(sorted({platform_of(c) for c in self.classifiers()}))
